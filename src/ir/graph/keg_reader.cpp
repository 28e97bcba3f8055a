#include "ir/graph/keg.h"

#include <algorithm>
#include <cstring>

#include "base/file_io.h"
#include "base/utf8.h"
#include "ir/graph/keg_format.h"
#include "ir/graph/validator.h"

namespace rung {
namespace {

std::string bytes_str(std::uint64_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); }

// Thrown inside one section's parse to abandon it; the diagnostic is already reported.
struct SectionFailed {};

class Reader {
 public:
  Reader(std::span<const std::uint8_t> bytes, SourceId src, DiagnosticSink& d) : bytes_(bytes), src_(src), diags_(d) {}

  std::optional<KegFile> run() {
    KegFile f;
    f.source = src_;
    if (!read_header(f) || !read_table(f)) return std::nullopt;
    const KegSection* by_kind[keg::kRequiredKinds + 1] = {};
    for (const auto& s : f.sections)
      if (s.kind >= 1 && s.kind <= keg::kRequiredKinds) by_kind[s.kind] = &s;
    bool missing = false;
    for (std::uint32_t k = 1; k <= keg::kRequiredKinds; ++k)
      if (!by_kind[k]) {
        error("K0006", "required section '" + std::string(keg::section_name(k)) + "' is missing", 0, keg::kHeaderSize);
        missing = true;
      }
    if (missing) return std::nullopt;
    try {
      read_strings(*by_kind[1]);
      read_types(*by_kind[2]);
      read_attributes(*by_kind[3]);
      read_nodes(*by_kind[4], f);
      read_regions(*by_kind[5], f);
      read_exports(*by_kind[6], f);
      for (const auto& sec : f.sections)
        if (sec.kind == static_cast<std::uint32_t>(keg::SectionKind::exec_plan)) read_exec_plan_frame(sec, f);
        else if (sec.kind == static_cast<std::uint32_t>(keg::SectionKind::blockir) ||
                 sec.kind == static_cast<std::uint32_t>(keg::SectionKind::provenance))
          keep_whole(sec, f);
    } catch (const SectionFailed&) {
      return std::nullopt;
    }
    return f;
  }

 private:
  Diagnostic& error(const char* code, std::string msg, std::uint64_t offset, std::uint64_t length = 0) {
    auto& d = diags_.error(code, std::move(msg));
    auto clamp = [&](std::uint64_t v) { return static_cast<std::uint32_t>(std::min<std::uint64_t>(v, bytes_.size())); };
    d.primary(Span{src_, clamp(offset), clamp(offset + std::min<std::uint64_t>(length, bytes_.size()))});
    return d;
  }

  bool read_header(KegFile& f) {
    if (bytes_.size() < 4 || std::memcmp(bytes_.data(), keg::kMagic, 4) != 0) {
      error("K0001", "not a .keg file: the first 4 bytes are not KEG\\0", 0, 4)
          .note("a .keg file starts with the bytes 4B 45 47 00; this file is " + bytes_str(bytes_.size()) + " long");
      return false;
    }
    if (bytes_.size() < keg::kHeaderSize) {
      error("K0001", "file is truncated: " + bytes_str(bytes_.size()) + " is shorter than the " +
                         std::to_string(keg::kHeaderSize) + "-byte header", 0, bytes_.size());
      return false;
    }
    ByteReader r(bytes_.subspan(4, keg::kHeaderSize - 4), 4);
    std::uint32_t header_size = 0;
    r.u16(f.major);
    r.u16(f.minor);
    r.u32(header_size);
    r.u32(section_count_);
    r.u64(table_offset_);
    r.hash(f.stored_fingerprint);
    if (f.major != keg::kMajor) {
      error("K0002", "unsupported .keg format version " + std::to_string(f.major) + "." + std::to_string(f.minor) +
                         " (this rung reads version " + std::to_string(keg::kMajor) + ".x)", 4, 4);
      return false;
    }
    if (header_size < keg::kHeaderSize || header_size > bytes_.size()) {
      error("K0015", "header size field says " + bytes_str(header_size) + "; it must be at least " +
                         std::to_string(keg::kHeaderSize) + " and within the file (" + bytes_str(bytes_.size()) + ")", 8, 4);
      return false;
    }
    header_size_ = header_size;
    return true;
  }

  bool read_table(KegFile& f) {
    if (section_count_ > keg::kMaxSections) {
      error("K0015", "section count " + std::to_string(section_count_) + " exceeds the limit of " +
                         std::to_string(keg::kMaxSections), 12, 4);
      return false;
    }
    std::uint64_t table_len = std::uint64_t{section_count_} * keg::kEntrySize;
    if (table_offset_ < header_size_ || table_offset_ > bytes_.size() || table_len > bytes_.size() - table_offset_) {
      error("K0015", "section table (offset " + std::to_string(table_offset_) + ", " + std::to_string(section_count_) +
                         " entries of " + std::to_string(keg::kEntrySize) + " bytes) does not lie between the header and the end of file (" +
                         bytes_str(bytes_.size()) + ")", 16, 8);
      return false;
    }
    ByteReader r(bytes_.subspan(table_offset_, table_len), table_offset_);
    bool ok = true;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;  // [begin, end) of header, table, sections
    ranges.emplace_back(0, header_size_);
    ranges.emplace_back(table_offset_, table_offset_ + table_len);
    for (std::uint32_t i = 0; i < section_count_; ++i) {
      std::uint64_t entry_at = r.file_offset();
      KegSection s;
      r.u32(s.kind);
      r.u32(s.flags);
      r.u64(s.offset);
      r.u64(s.length);
      r.hash(s.checksum);
      std::string name = "'" + std::string(keg::section_name(s.kind)) + "'";
      if (s.kind == 0 || s.kind > keg::kLastKnownKind) {
        if (!(s.flags & keg::kFlagOptional)) {
          error("K0013", "section " + std::to_string(i) + " has kind " + std::to_string(s.kind) +
                             ", which this rung does not know, and it is not marked optional", entry_at, keg::kEntrySize);
          ok = false;
        }
        name = "#" + std::to_string(i) + " (kind " + std::to_string(s.kind) + ")";
      }
      if (s.offset > bytes_.size() || s.length > bytes_.size() - s.offset) {
        error("K0003", "section " + name + " extends past end of file (offset " + std::to_string(s.offset) + ", length " +
                           std::to_string(s.length) + ", file " + bytes_str(bytes_.size()) + ")", entry_at, keg::kEntrySize);
        ok = false;
        continue;
      }
      for (const auto& other : f.sections)
        if (other.kind == s.kind) {
          error("K0005", "section " + name + " appears more than once", entry_at, keg::kEntrySize);
          ok = false;
        }
      for (const auto& [b, e] : ranges)
        if (s.length > 0 && s.offset < e && b < s.offset + s.length) {
          error("K0014", "section " + name + " (bytes " + std::to_string(s.offset) + ".." + std::to_string(s.offset + s.length) +
                             ") overlaps bytes " + std::to_string(b) + ".." + std::to_string(e) +
                             " (the header, the section table or another section)", entry_at, keg::kEntrySize);
          ok = false;
          break;
        }
      ranges.emplace_back(s.offset, s.offset + s.length);
      Hash256 actual = sha3_256(bytes_.subspan(s.offset, s.length));
      if (actual != s.checksum) {
        error("K0004", "section " + name + " is corrupt: its SHA3-256 checksum does not match", s.offset, s.length)
            .note("expected " + s.checksum.hex())
            .note("found    " + actual.hex());
        ok = false;
      }
      f.sections.push_back(s);
    }
    return ok;
  }

  // ---- section bodies -------------------------------------------------------------------

  struct Cursor {
    ByteReader r;
    std::string section;
  };

  Cursor open(const KegSection& s) {
    return Cursor{ByteReader(bytes_.subspan(s.offset, s.length), s.offset), std::string(keg::section_name(s.kind))};
  }

  [[noreturn]] void truncated(Cursor& c, const std::string& what) {
    error("K0007", "section '" + c.section + "' ends in the middle of " + what, c.r.file_offset(), c.r.remaining());
    throw SectionFailed{};
  }
  [[noreturn]] void fail(Cursor& c, const char* code, const std::string& msg, std::uint64_t at) {
    error(code, "section '" + c.section + "': " + msg, at, 1);
    throw SectionFailed{};
  }

  std::uint32_t u32(Cursor& c, const char* what) {
    std::uint32_t v;
    if (!c.r.u32(v)) truncated(c, what);
    return v;
  }
  std::uint8_t u8(Cursor& c, const char* what) {
    std::uint8_t v;
    if (!c.r.u8(v)) truncated(c, what);
    return v;
  }
  std::uint64_t u64(Cursor& c, const char* what) {
    std::uint64_t v;
    if (!c.r.u64(v)) truncated(c, what);
    return v;
  }
  // A count of records that each take at least `min_size` bytes: bounded by what is left,
  // so a hostile count cannot make us reserve gigabytes.
  std::uint32_t count(Cursor& c, const char* what, std::size_t min_size) {
    std::uint64_t at = c.r.file_offset();
    std::uint32_t n = u32(c, what);
    if (std::uint64_t{n} * min_size > c.r.remaining())
      fail(c, "K0007", std::string(what) + " is " + std::to_string(n) + ", but only " + bytes_str(c.r.remaining()) +
                           " remain (each entry needs at least " + std::to_string(min_size) + ")", at);
    return n;
  }
  std::uint32_t index(Cursor& c, const char* what, std::size_t limit) {
    std::uint64_t at = c.r.file_offset();
    std::uint32_t i = u32(c, what);
    if (i >= limit)
      fail(c, "K0008", std::string(what) + " " + std::to_string(i) + " is out of range (there are " + std::to_string(limit) + ")", at);
    return i;
  }
  const std::string& string_ref(Cursor& c, const char* what) { return strings_[index(c, what, strings_.size())]; }
  void finish(Cursor& c) {
    if (!c.r.at_end())
      fail(c, "K0012", "has " + bytes_str(c.r.remaining()) + " of unexplained trailing data", c.r.file_offset());
  }

  void read_strings(const KegSection& s) {
    Cursor c = open(s);
    std::uint32_t n = count(c, "string count", 4);
    strings_.reserve(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      std::uint64_t at = c.r.file_offset();
      std::uint32_t len = u32(c, "a string length");
      std::span<const std::uint8_t> b;
      if (!c.r.take(len, b)) truncated(c, "string " + std::to_string(i));
      std::string str(b.begin(), b.end());
      if (std::size_t bad = utf8::first_invalid(str); bad != str.size())
        fail(c, "K0009", "string " + std::to_string(i) + " is not valid UTF-8 (byte " + std::to_string(bad) + ")", at + 4 + bad);
      strings_.push_back(std::move(str));
    }
    finish(c);
  }

  Shape read_shape(Cursor& c) {
    std::uint32_t rank = count(c, "a rank", 5);
    Shape shape;
    shape.reserve(rank);
    for (std::uint32_t d = 0; d < rank; ++d) {
      std::uint64_t at = c.r.file_offset();
      std::uint8_t tag = u8(c, "a dimension");
      if (tag == 0) shape.push_back(Dim::fixed(u64(c, "a dimension extent")));
      else if (tag == 1) {
        const std::string& sym = string_ref(c, "symbolic dimension name");
        if (sym.empty()) fail(c, "K0010", "a symbolic dimension has an empty name", at);
        shape.push_back(Dim::symbol(sym));
      } else fail(c, "K0010", "dimension tag " + std::to_string(tag) + " is neither 0 (static) nor 1 (symbolic)", at);
    }
    return shape;
  }

  void read_types(const KegSection& s) {
    Cursor c = open(s);
    std::uint32_t n = count(c, "type count", 6);
    types_.reserve(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      std::uint64_t at = c.r.file_offset();
      auto dt = dtype_from_code(u8(c, "a dtype"));
      if (!dt) fail(c, "K0010", "type " + std::to_string(i) + " has an unknown dtype code", at);
      auto space = memspace_from_code(u8(c, "a memory space"));
      if (!space) fail(c, "K0010", "type " + std::to_string(i) + " has an unknown memory space code", at + 1);
      TensorType t;
      std::uint64_t begin = at;
      t.dtype = *dt;
      t.space = *space;
      t.shape = read_shape(c);
      types_.push_back(std::move(t));
      type_weight_.push_back(c.r.file_offset() - begin);
    }
    finish(c);
  }

  template <typename T, typename F>
  std::vector<T> read_list(Cursor& c, F&& get) {
    std::uint32_t n = count(c, "a list length", sizeof(T));
    std::vector<T> v(n);
    for (auto& x : v) x = get();
    return v;
  }

  void read_attributes(const KegSection& s) {
    Cursor c = open(s);
    std::uint32_t n = count(c, "attribute map count", 4);
    attr_maps_.reserve(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      AttrMap m;
      std::uint64_t begin = c.r.file_offset();
      std::uint32_t entries = count(c, "attribute count", 6);
      const std::string* prev = nullptr;
      for (std::uint32_t e = 0; e < entries; ++e) {
        std::uint64_t at = c.r.file_offset();
        const std::string& key = string_ref(c, "attribute name");
        if (prev && !(*prev < key))
          fail(c, "K0017", "attribute map " + std::to_string(i) + " is not in canonical order: `" + key + "` follows `" + *prev + "`", at);
        prev = &key;
        std::uint64_t kind_at = c.r.file_offset();
        std::uint8_t kind = u8(c, "an attribute kind");
        m.emplace(key, read_attr_value(c, kind, kind_at));
      }
      attr_maps_.push_back(std::move(m));
      attr_weight_.push_back(c.r.file_offset() - begin);
    }
    finish(c);
  }

  AttrValue read_attr_value(Cursor& c, std::uint8_t kind, std::uint64_t at) {
    switch (kind) {
      case 1: {
        std::uint8_t b = u8(c, "a bool");
        if (b > 1) fail(c, "K0010", "a bool attribute holds " + std::to_string(b) + " (must be 0 or 1)", at + 1);
        return AttrValue(b == 1);
      }
      case 2: return AttrValue(static_cast<std::int64_t>(u64(c, "an int")));
      case 3: {
        double d;
        std::uint64_t bits = u64(c, "a float");
        std::memcpy(&d, &bits, 8);
        return AttrValue(d);
      }
      case 4: return AttrValue(string_ref(c, "string attribute"));
      case 5: return AttrValue(read_list<std::int64_t>(c, [&] { return static_cast<std::int64_t>(u64(c, "an int")); }));
      case 6: return AttrValue(read_list<double>(c, [&] {
        double d;
        std::uint64_t bits = u64(c, "a float");
        std::memcpy(&d, &bits, 8);
        return d;
      }));
      case 7: {
        auto dt = dtype_from_code(u8(c, "a dtype"));
        if (!dt) fail(c, "K0010", "a dtype attribute has an unknown code", at + 1);
        return AttrValue(*dt);
      }
      case 8: {
        Hash256 h;
        if (!c.r.hash(h)) truncated(c, "a hash attribute");
        return AttrValue(h);
      }
      case 9: {
        std::uint64_t len = u64(c, "a byte length");
        std::span<const std::uint8_t> b;
        if (len > c.r.remaining() || !c.r.take(len, b)) truncated(c, "a bytes attribute of " + bytes_str(len));
        return AttrValue(Bytes(b.begin(), b.end()));
      }
      case 10: return AttrValue(read_shape(c));
      default:
        fail(c, "K0010", "attribute kind " + std::to_string(kind) + " is unknown (1.." + std::to_string(kAttrKindMaxCode) + ")", at);
    }
  }

  // Shared types and attribute maps are copied into each node that names them; a hostile
  // file could name one large map from millions of nodes. Cap the expansion.
  void expand(Cursor& c, std::uint64_t weight, std::uint64_t at) {
    expanded_ += weight;
    std::uint64_t limit = 64 * std::uint64_t{bytes_.size()} + (std::uint64_t{1} << 20);
    if (expanded_ > limit)
      fail(c, "K0019", "nodes share attributes and types so heavily that loading would expand the file beyond " +
                           bytes_str(limit) + " in memory", at);
  }

  void read_nodes(const KegSection& s, KegFile& f) {
    Cursor c = open(s);
    std::uint32_t n = count(c, "node count", 50);
    f.node_spans.reserve(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      std::uint64_t begin = c.r.file_offset();
      Node node;
      if (!c.r.hash(node.hash)) truncated(c, "node " + std::to_string(i));
      if (!c.r.u16(node.schema)) truncated(c, "node " + std::to_string(i));
      node.opcode = string_ref(c, "opcode");
      std::uint32_t a = index(c, "attribute map", attr_maps_.size());
      node.attrs = attr_maps_[a];
      expand(c, attr_weight_[a], begin);
      std::uint32_t outs = count(c, "output count", 4);
      for (std::uint32_t o = 0; o < outs; ++o) {
        std::uint32_t t = index(c, "type", types_.size());
        node.outputs.push_back(types_[t]);
        expand(c, type_weight_[t], begin);
      }
      std::uint32_t ins = count(c, "input count", 8);
      for (std::uint32_t k = 0; k < ins; ++k) {
        ValueRef v;
        v.node = index(c, "input node", n);
        v.output = u32(c, "an input output-index");
        node.inputs.push_back(v);
      }
      f.graph.adopt_node(std::move(node));
      f.node_spans.push_back(Span{src_, static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(c.r.file_offset())});
    }
    finish(c);
  }

  void read_regions(const KegSection& s, KegFile& f) {
    Cursor c = open(s);
    std::uint32_t n = count(c, "region count", 44);
    std::size_t nodes = f.graph.node_count();
    for (std::uint32_t i = 0; i < n; ++i) {
      std::uint64_t begin = c.r.file_offset();
      Region r;
      if (!c.r.hash(r.hash)) truncated(c, "region " + std::to_string(i));
      r.name = string_ref(c, "region name");
      std::uint32_t np = count(c, "parameter count", 4);
      for (std::uint32_t p = 0; p < np; ++p) r.params.push_back(index(c, "parameter node", nodes));
      std::uint32_t nr = count(c, "result count", 8);
      for (std::uint32_t k = 0; k < nr; ++k) {
        ValueRef v;
        v.node = index(c, "result node", nodes);
        v.output = u32(c, "a result output-index");
        r.results.push_back(v);
      }
      f.graph.adopt_region(std::move(r));
      f.region_spans.push_back(Span{src_, static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(c.r.file_offset())});
    }
    finish(c);
  }

  void read_exports(const KegSection& s, KegFile& f) {
    Cursor c = open(s);
    std::uint32_t n = count(c, "export count", 8);
    const std::string* prev = nullptr;
    for (std::uint32_t i = 0; i < n; ++i) {
      std::uint64_t at = c.r.file_offset();
      const std::string& name = string_ref(c, "export name");
      if (name.empty()) fail(c, "K0017", "export " + std::to_string(i) + " has an empty name", at);
      if (prev && !(*prev < name))
        fail(c, "K0017", "exports are not sorted by name with unique names: `" + name + "` follows `" + *prev + "`", at);
      prev = &name;
      f.graph.set_export(name, index(c, "export region", f.graph.region_count()));
    }
    finish(c);
  }

  // The frame of the exec plan section; the payload stays opaque (src/plan decodes it).
  void read_exec_plan_frame(const KegSection& s, KegFile& f) {
    Cursor c = open(s);
    std::uint64_t at = c.r.file_offset();
    std::uint32_t version = u32(c, "the exec plan frame version");
    if (version != keg::kExecPlanFrameVersion)
      fail(c, "K0020", "frame version " + std::to_string(version) + " is not one this rung reads (" +
                           std::to_string(keg::kExecPlanFrameVersion) + ")", at);
    at = c.r.file_offset();
    Hash256 planned_for;
    if (!c.r.hash(planned_for)) truncated(c, "the fingerprint of the graph the plan was made for");
    if (planned_for != f.stored_fingerprint) {
      error("K0021", "section 'exec_plan' was made for another graph", at, 32)
          .note("plan made for graph " + planned_for.hex())
          .note("this file's graph  " + f.stored_fingerprint.hex());
      throw SectionFailed{};
    }
    KegAttachment a;
    a.kind = s.kind;
    a.payload_offset = c.r.file_offset();
    std::span<const std::uint8_t> payload;
    c.r.take(c.r.remaining(), payload);
    a.payload.assign(payload.begin(), payload.end());
    f.attachments.push_back(std::move(a));
  }

  // A section whose whole content belongs to another layer (blockir: src/ir/block decodes it).
  void keep_whole(const KegSection& s, KegFile& f) {
    KegAttachment a;
    a.kind = s.kind;
    a.payload_offset = s.offset;
    auto b = bytes_.subspan(s.offset, s.length);
    a.payload.assign(b.begin(), b.end());
    f.attachments.push_back(std::move(a));
  }

  std::span<const std::uint8_t> bytes_;
  SourceId src_;
  DiagnosticSink& diags_;
  std::uint32_t header_size_ = 0, section_count_ = 0;
  std::uint64_t table_offset_ = 0;
  std::vector<std::string> strings_;
  std::vector<TensorType> types_;
  std::vector<AttrMap> attr_maps_;
  std::vector<std::uint64_t> type_weight_, attr_weight_;
  std::uint64_t expanded_ = 0;
};

}  // namespace

std::optional<KegFile> read_keg(std::span<const std::uint8_t> bytes, SourceId source, DiagnosticSink& diags) {
  if (bytes.size() >= 0xFFFFFFFFu) {
    diags.error("K0015", ".keg files are limited to 4 GiB");
    return std::nullopt;
  }
  return Reader(bytes, source, diags).run();
}

std::optional<KegFile> load_keg(const std::string& path, SourceMap& sources, DiagnosticSink& diags,
                                const OpSignatures* signatures) {
  auto data = read_file(path, diags, 0xFFFFFFFEu);
  if (!data) return std::nullopt;
  return load_keg_bytes(path, std::move(*data), sources, diags, signatures);
}

std::optional<KegFile> load_keg_bytes(std::string name, std::string bytes_in, SourceMap& sources, DiagnosticSink& diags,
                                      const OpSignatures* signatures) {
  if (bytes_in.size() > 0xFFFFFFFEu) {
    diags.error("K0001", "'" + name + "' is larger than a .keg file can be (4 GiB)");
    return std::nullopt;
  }
  SourceId src = sources.add(std::move(name), std::move(bytes_in), /*binary=*/true);
  std::string_view text = sources.get(src).text();
  auto bytes = std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
  auto file = read_keg(bytes, src, diags);
  if (!file) return std::nullopt;
  ValidateOptions opts;
  opts.signatures = signatures;
  opts.node_spans = &file->node_spans;
  opts.region_spans = &file->region_spans;
  if (!validate(file->graph, diags, opts)) return std::nullopt;
  Hash256 fp = file->graph.fingerprint();
  if (fp != file->stored_fingerprint) {
    diags.error("K0011", "the header's graph fingerprint does not match the graph in the file")
        .primary(Span{src, 24, 56})
        .note("header:     " + file->stored_fingerprint.hex())
        .note("recomputed: " + fp.hex());
    return std::nullopt;
  }
  return file;
}

}  // namespace rung
