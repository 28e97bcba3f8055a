#include "plan/exec_plan_codec.h"

#include "base/canonical.h"
#include "base/utf8.h"
#include "plan/exec_plan.h"

namespace rung::plan {
namespace {

void strs(CanonicalWriter& w, const std::vector<std::string>& v) {
  w.u32(static_cast<std::uint32_t>(v.size()));
  for (const auto& s : v) w.str(s);
}
void ids(CanonicalWriter& w, const std::vector<std::uint32_t>& v) {
  w.u32(static_cast<std::uint32_t>(v.size()));
  for (auto i : v) w.u32(i);
}

struct Malformed {};  // thrown to abandon decoding; the diagnostic is already reported

class Decoder {
 public:
  Decoder(std::span<const std::uint8_t> bytes, std::uint64_t base, SourceId src, DiagnosticSink& d)
      : r_(bytes, base), src_(src), d_(d) {}

  std::optional<StoredPlan> run() {
    try {
      return decode();
    } catch (const Malformed&) {
      return std::nullopt;
    }
  }

 private:
  [[noreturn]] void fail(const std::string& msg, std::uint64_t at, std::uint64_t len = 1) {
    d_.error("K0020", "section 'exec_plan': " + msg)
        .primary(Span{src_, static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(at + len)});
    throw Malformed{};
  }
  [[noreturn]] void truncated(const std::string& what) {
    fail("ends in the middle of " + what, r_.file_offset(), r_.remaining());
  }
  std::uint8_t u8(const char* what) {
    std::uint8_t v;
    if (!r_.u8(v)) truncated(what);
    return v;
  }
  std::uint32_t u32(const char* what) {
    std::uint32_t v;
    if (!r_.u32(v)) truncated(what);
    return v;
  }
  std::uint64_t u64(const char* what) {
    std::uint64_t v;
    if (!r_.u64(v)) truncated(what);
    return v;
  }
  Hash256 hash(const char* what) {
    Hash256 h;
    if (!r_.hash(h)) truncated(what);
    return h;
  }
  // A count of records of at least `min_size` bytes each, bounded by what is left.
  std::uint32_t count(const char* what, std::size_t min_size) {
    std::uint64_t at = r_.file_offset();
    std::uint32_t n = u32(what);
    if (std::uint64_t{n} * min_size > r_.remaining())
      fail(std::string(what) + " is " + std::to_string(n) + ", but only " + std::to_string(r_.remaining()) + " bytes remain", at, 4);
    return n;
  }
  std::uint32_t index(const char* what, std::size_t limit) {
    std::uint64_t at = r_.file_offset();
    std::uint32_t i = u32(what);
    if (i >= limit) fail(std::string(what) + " " + std::to_string(i) + " is out of range (there are " + std::to_string(limit) + ")", at, 4);
    return i;
  }
  std::string str(const char* what) {
    std::uint64_t at = r_.file_offset();
    std::uint32_t n = u32(what);
    std::span<const std::uint8_t> b;
    if (!r_.take(n, b)) truncated(what);
    std::string s(b.begin(), b.end());
    if (std::size_t bad = utf8::first_invalid(s); bad != s.size()) fail(std::string(what) + " is not valid UTF-8", at + 4 + bad);
    return s;
  }
  std::vector<std::uint32_t> ids(const char* what, std::size_t limit) {
    std::vector<std::uint32_t> v(count(what, 4));
    for (auto& x : v) x = index(what, limit);
    return v;
  }

  StoredPlan decode() {
    StoredPlan out;
    MemoryPlan& m = out.plan;
    std::uint64_t at = r_.file_offset();
    if (std::uint32_t v = u32("the encoding version"); v != kExecPlanEncodingVersion)
      fail("encoding version " + std::to_string(v) + " is not one this rung reads (" + std::to_string(kExecPlanEncodingVersion) + ")", at, 4);
    std::uint64_t hash_at = r_.file_offset();
    out.hash = hash("the plan hash");
    out.program = hash("the program hash");
    at = r_.file_offset();
    std::uint8_t dev = u8("the device");
    if (dev > static_cast<std::uint8_t>(Device::webgpu)) fail("device code " + std::to_string(dev) + " is unknown", at);
    m.device = static_cast<Device>(dev);
    m.entry = str("the entry name");
    m.batch_dim = str("the batch dim");
    m.batch_extent = u64("the batch extent");

    std::uint32_t nb = count("the buffer count", 50);
    m.buffers.resize(nb);
    std::vector<std::uint64_t> offsets(nb);
    std::vector<std::uint64_t> buffer_at(nb);
    for (std::uint32_t i = 0; i < nb; ++i) {
      Buffer& b = m.buffers[i];
      buffer_at[i] = r_.file_offset();
      b.id = i;
      b.bytes = u64("a buffer size");
      at = r_.file_offset();
      std::uint8_t c = u8("a buffer class");
      if (c >= kClassCount) fail("buffer " + std::to_string(i) + " has class code " + std::to_string(c) + " (0.." + std::to_string(kClassCount - 1) + ")", at);
      b.cls = static_cast<AllocClass>(c);
      at = r_.file_offset();
      auto space = memspace_from_code(u8("a memory space"));
      if (!space) fail("buffer " + std::to_string(i) + " has an unknown memory space code", at);
      b.space = *space;
      at = r_.file_offset();
      auto dt = dtype_from_code(u8("a dtype"));
      if (!dt) fail("buffer " + std::to_string(i) + " has an unknown dtype code", at);
      b.dtype = *dt;
      std::uint32_t rank = count("a rank", 8);
      b.shape.resize(rank);
      for (auto& e : b.shape) e = u64("an extent");
      b.type = str("a buffer type");
      b.what = str("a buffer description");
      b.alloc_event = u32("an allocation event");
      b.free_event = u32("a release event");
      offsets[i] = u64("an offset");
      b.tiles = u32("a tile count");
    }
    std::uint32_t ne = count("the event count", 9);
    m.events.resize(ne);
    std::vector<std::uint64_t> event_at(ne);
    for (auto& e : m.events) {
      event_at[&e - m.events.data()] = r_.file_offset();
      at = r_.file_offset();
      std::uint8_t a = u8("an event kind");
      if (a > 1) fail("an event kind is " + std::to_string(a) + " (0 release, 1 allocation)", at);
      e.alloc = a == 1;
      e.buffer = index("an event's buffer", nb);
      e.at = u32("an event's site");  // checked once the sites are read
    }
    std::uint32_t ns = count("the site count", 5);
    m.sites.resize(ns);
    std::vector<std::uint64_t> site_at(ns);
    for (std::uint32_t i = 0; i < ns; ++i) {
      site_at[i] = r_.file_offset();
      m.sites[i].text = str("a site");
      at = r_.file_offset();
      std::uint8_t has = u8("a site's dispatch flag");
      if (has > 1) fail("a site's dispatch flag is " + std::to_string(has), at);
      std::uint32_t dsp = u32("a site's dispatch");
      if (has) m.sites[i].dispatch = dsp;
    }
    std::uint32_t nd = count("the dispatch count", 28);
    m.dispatches.resize(nd);
    for (auto& d : m.dispatches) {
      d.region = str("a dispatch's region");
      d.node = u32("a dispatch's node");
      d.op = str("a dispatch's op");
      d.inputs = ids("a dispatch input", nb);
      d.outputs = ids("a dispatch output", nb);
      std::uint32_t k = count("a dispatch's shape count", 4);
      for (std::uint32_t j = 0; j < k; ++j) d.shapes.push_back(str("a dispatch shape"));
      d.tiles = u32("a dispatch's tile count");
    }
    std::uint32_t nt = count("the tiling count", 20);
    for (std::uint32_t i = 0; i < nt; ++i) {
      Tiling t;
      t.dispatch = index("a tiling's dispatch", nd);
      t.largest = u64("a tiling's largest binding");
      t.tiles = u32("a tiling's tile count");
      t.why = str("a tiling's reason");
      m.tilings.push_back(std::move(t));
    }
    std::uint32_t nst = count("the stream count", 24);
    for (std::uint32_t i = 0; i < nst; ++i) {
      Streamed st;
      st.region = str("a streamed region");
      st.rows = u64("a streamed row count");
      st.chunk = u64("a chunk size");
      st.why = str("a reason");
      m.streams.push_back(std::move(st));
    }
    if (!r_.at_end()) fail(std::to_string(r_.remaining()) + " bytes of unexplained trailing data", r_.file_offset(), r_.remaining());

    // Cross-references and lifetimes: each buffer allocated exactly by the event it names
    // and released at most once, after that.
    for (std::uint32_t i = 0; i < ne; ++i)
      if (m.events[i].at >= ns) fail("event " + std::to_string(i) + " names site " + std::to_string(m.events[i].at) + " of " + std::to_string(ns), event_at[i]);
    for (std::uint32_t i = 0; i < ns; ++i)
      if (m.sites[i].dispatch && *m.sites[i].dispatch >= nd) fail("site " + std::to_string(i) + " names a dispatch out of range", site_at[i]);
    for (const Buffer& b : m.buffers) {
      bool alloc_ok = b.alloc_event < ne && m.events[b.alloc_event].alloc && m.events[b.alloc_event].buffer == b.id;
      bool free_ok = b.free_event == ne ||
                     (b.free_event < ne && b.free_event > b.alloc_event && !m.events[b.free_event].alloc && m.events[b.free_event].buffer == b.id);
      if (!alloc_ok || !free_ok) fail("buffer " + std::to_string(b.id) + "'s lifetime does not match the event list", buffer_at[b.id]);
    }
    for (std::uint32_t i = 0; i < ne; ++i) {
      const Buffer& b = m.buffers[m.events[i].buffer];
      if ((m.events[i].alloc ? b.alloc_event : b.free_event) != i)
        fail("event " + std::to_string(i) + " is not its buffer's " + (m.events[i].alloc ? "allocation" : "release"), event_at[i]);
    }
    finish(m);  // derived figures and offsets, recomputed
    for (std::uint32_t i = 0; i < nb; ++i)
      if (m.buffers[i].offset != offsets[i])
        fail("buffer " + std::to_string(i) + " is stored at offset " + std::to_string(offsets[i]) + ", but its lifetimes place it at " +
                 std::to_string(m.buffers[i].offset), buffer_at[i]);
    Hash256 actual = exec_plan_hash(m);
    if (actual != out.hash) {
      d_.error("K0020", "section 'exec_plan': the stored plan hash does not match the plan's content")
          .primary(Span{src_, static_cast<std::uint32_t>(hash_at), static_cast<std::uint32_t>(hash_at + 32)})
          .note("stored     " + out.hash.hex())
          .note("recomputed " + actual.hex());
      throw Malformed{};
    }
    return out;
  }

  ByteReader r_;
  SourceId src_;
  DiagnosticSink& d_;
};

}  // namespace

std::vector<std::uint8_t> encode_exec_plan(const MemoryPlan& m, const Hash256& program_hash) {
  CanonicalWriter w;
  w.u32(kExecPlanEncodingVersion);
  w.hash(exec_plan_hash(m));
  w.hash(program_hash);
  w.u8(static_cast<std::uint8_t>(m.device));
  w.str(m.entry);
  w.str(m.batch_dim);
  w.u64(m.batch_extent);
  w.u32(static_cast<std::uint32_t>(m.buffers.size()));
  for (const auto& b : m.buffers) {
    w.u64(b.bytes);
    w.u8(static_cast<std::uint8_t>(b.cls));
    w.u8(static_cast<std::uint8_t>(b.space));
    w.u8(static_cast<std::uint8_t>(b.dtype));
    w.u32(static_cast<std::uint32_t>(b.shape.size()));
    for (auto e : b.shape) w.u64(e);
    w.str(b.type);
    w.str(b.what);
    w.u32(b.alloc_event);
    w.u32(b.free_event);
    w.u64(b.offset);
    w.u32(b.tiles);
  }
  w.u32(static_cast<std::uint32_t>(m.events.size()));
  for (const auto& e : m.events) {
    w.u8(e.alloc ? 1 : 0);
    w.u32(e.buffer);
    w.u32(e.at);
  }
  w.u32(static_cast<std::uint32_t>(m.sites.size()));
  for (const auto& s : m.sites) {
    w.str(s.text);
    w.u8(s.dispatch ? 1 : 0);
    w.u32(s.dispatch.value_or(0));
  }
  w.u32(static_cast<std::uint32_t>(m.dispatches.size()));
  for (const auto& d : m.dispatches) {
    w.str(d.region);
    w.u32(d.node);
    w.str(d.op);
    ids(w, d.inputs);
    ids(w, d.outputs);
    strs(w, d.shapes);
    w.u32(d.tiles);
  }
  w.u32(static_cast<std::uint32_t>(m.tilings.size()));
  for (const auto& t : m.tilings) {
    w.u32(t.dispatch);
    w.u64(t.largest);
    w.u32(t.tiles);
    w.str(t.why);
  }
  w.u32(static_cast<std::uint32_t>(m.streams.size()));
  for (const auto& st : m.streams) {
    w.str(st.region);
    w.u64(st.rows);
    w.u64(st.chunk);
    w.str(st.why);
  }
  return w.take();
}

std::optional<StoredPlan> decode_exec_plan(std::span<const std::uint8_t> payload, std::uint64_t file_offset, SourceId source,
                                           DiagnosticSink& diags) {
  return Decoder(payload, file_offset, source, diags).run();
}

}  // namespace rung::plan
