#include "runtime/npy.h"

#include <algorithm>
#include <cstring>

#include "base/file_io.h"

namespace rung::npy {
namespace {

struct DescrInfo {
  const char* code;  // without the byte-order character
  DType dtype;
};
constexpr DescrInfo kDescrs[] = {
    {"f4", DType::f32}, {"f8", DType::f64}, {"f2", DType::f16}, {"i8", DType::i64}, {"i4", DType::i32},
    {"i2", DType::i16}, {"i1", DType::i8},  {"u8", DType::u64}, {"u4", DType::u32}, {"u2", DType::u16},
    {"u1", DType::u8},  {"b1", DType::boolean},
};

class HeaderParser {
 public:
  explicit HeaderParser(std::string_view s) : s_(s) {}
  // The header is a Python dict literal; we accept exactly the keys NumPy writes.
  bool parse(std::string& descr, bool& fortran, std::vector<std::uint64_t>& shape, std::string& err) {
    bool have_descr = false, have_order = false, have_shape = false;
    skip();
    if (!eat('{')) return fail(err, "the header does not start with '{'");
    for (;;) {
      skip();
      if (eat('}')) break;
      std::string key;
      if (!string(key)) return fail(err, "expected a quoted key");
      skip();
      if (!eat(':')) return fail(err, "expected ':' after '" + key + "'");
      skip();
      if (key == "descr") {
        if (!string(descr)) return fail(err, "'descr' must be a string");
        have_descr = true;
      } else if (key == "fortran_order") {
        if (word("True")) fortran = true;
        else if (word("False")) fortran = false;
        else return fail(err, "'fortran_order' must be True or False");
        have_order = true;
      } else if (key == "shape") {
        if (!tuple(shape, err)) return false;
        have_shape = true;
      } else {
        return fail(err, "unexpected key '" + key + "'");
      }
      skip();
      if (eat(',')) continue;
      skip();
      if (eat('}')) break;
      return fail(err, "expected ',' or '}'");
    }
    if (!have_descr || !have_order || !have_shape) return fail(err, "the header must have 'descr', 'fortran_order' and 'shape'");
    return true;
  }

 private:
  static bool fail(std::string& err, std::string m) {
    err = std::move(m);
    return false;
  }
  void skip() {
    while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\n' || s_[p_] == '\t')) ++p_;
  }
  bool eat(char c) {
    if (p_ < s_.size() && s_[p_] == c) return ++p_, true;
    return false;
  }
  bool word(std::string_view w) {
    if (s_.substr(p_, w.size()) == w) return p_ += w.size(), true;
    return false;
  }
  bool string(std::string& out) {
    if (p_ >= s_.size() || (s_[p_] != '\'' && s_[p_] != '"')) return false;
    char q = s_[p_++];
    std::size_t end = s_.find(q, p_);
    if (end == std::string_view::npos || end - p_ > 64) return false;
    out = std::string(s_.substr(p_, end - p_));
    p_ = end + 1;
    return true;
  }
  bool tuple(std::vector<std::uint64_t>& shape, std::string& err) {
    if (!eat('(')) return fail(err, "'shape' must be a tuple");
    for (;;) {
      skip();
      if (eat(')')) return true;
      std::uint64_t v = 0;
      std::size_t digits = 0;
      while (p_ < s_.size() && s_[p_] >= '0' && s_[p_] <= '9') {
        if (v > (UINT64_MAX - 9) / 10) return fail(err, "a dimension is too large");
        v = v * 10 + static_cast<std::uint64_t>(s_[p_++] - '0');
        ++digits;
      }
      if (digits == 0) return fail(err, "dimensions must be non-negative integers");
      if (shape.size() >= 32) return fail(err, "more than 32 dimensions");
      shape.push_back(v);
      skip();
      if (eat(',')) continue;
      skip();
      if (eat(')')) return true;
      return fail(err, "expected ',' or ')' in 'shape'");
    }
  }
  std::string_view s_;
  std::size_t p_ = 0;
};

Diagnostic& err(DiagnosticSink& d, SourceId src, const char* code, std::string msg, std::uint32_t at, std::uint32_t len) {
  return d.error(code, std::move(msg)).primary(Span{src, at, at + len});
}

}  // namespace

std::optional<ops::HostTensor> parse(std::string_view b, SourceId src, DiagnosticSink& d) {
  static constexpr char kMagic[] = "\x93NUMPY";
  if (b.size() < 10 || std::memcmp(b.data(), kMagic, 6) != 0) {
    err(d, src, "Y0001", "not a .npy file: it does not start with \\x93NUMPY", 0, static_cast<std::uint32_t>(std::min<std::size_t>(b.size(), 6)));
    return std::nullopt;
  }
  auto major = static_cast<unsigned char>(b[6]);
  std::size_t header_len, header_at;
  if (major == 1) {
    header_len = static_cast<unsigned char>(b[8]) | static_cast<std::size_t>(static_cast<unsigned char>(b[9])) << 8;
    header_at = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) {
      err(d, src, "Y0002", "truncated .npy header", 0, static_cast<std::uint32_t>(b.size()));
      return std::nullopt;
    }
    header_len = 0;
    for (int i = 0; i < 4; ++i) header_len |= static_cast<std::size_t>(static_cast<unsigned char>(b[8 + i])) << (8 * i);
    header_at = 12;
  } else {
    err(d, src, "Y0003", "unsupported .npy format version " + std::to_string(major), 6, 2);
    return std::nullopt;
  }
  if (header_len > 1 << 20 || header_at + header_len > b.size()) {
    err(d, src, "Y0002", "the .npy header (" + std::to_string(header_len) + " bytes) extends past the end of the file (" +
                             std::to_string(b.size()) + " bytes)", 8, static_cast<std::uint32_t>(header_at) - 8);  // the length field
    return std::nullopt;
  }
  std::string descr, why;
  bool fortran = false;
  std::vector<std::uint64_t> shape;
  if (!HeaderParser(b.substr(header_at, header_len)).parse(descr, fortran, shape, why)) {
    err(d, src, "Y0004", "malformed .npy header: " + why, static_cast<std::uint32_t>(header_at), static_cast<std::uint32_t>(header_len));
    return std::nullopt;
  }
  if (fortran) {
    err(d, src, "Y0005", "Fortran-order arrays are not supported; save with np.ascontiguousarray(a)", static_cast<std::uint32_t>(header_at),
        static_cast<std::uint32_t>(header_len));
    return std::nullopt;
  }
  std::optional<DType> dtype;
  bool swap = false;
  if (descr.size() == 3 && (descr[0] == '<' || descr[0] == '>' || descr[0] == '|' || descr[0] == '=')) {
    for (const auto& di : kDescrs)
      if (descr.substr(1) == di.code) dtype = di.dtype;
    swap = descr[0] == '>' && dtype && dtype_info(*dtype).block_bytes > 1;
  }
  if (!dtype) {
    err(d, src, "Y0006", "unsupported .npy dtype '" + descr + "'", static_cast<std::uint32_t>(header_at), static_cast<std::uint32_t>(header_len))
        .note("supported: f4 f8 f2 i8 i4 i2 i1 u8 u4 u2 u1 b1");
    return std::nullopt;
  }
  auto bytes = ops::HostTensor::checked_bytes(*dtype, shape);
  std::size_t data_at = header_at + header_len;
  if (!bytes || *bytes > b.size() - data_at) {
    err(d, src, "Y0007", "the .npy data is truncated: shape " + ops::extents_to_string(shape) + " of " + descr + " needs " +
                             (bytes ? std::to_string(*bytes) : std::string("too many")) + " bytes, the file has " +
                             std::to_string(b.size() - data_at) + " after the header",
        static_cast<std::uint32_t>(data_at), static_cast<std::uint32_t>(b.size() - data_at));
    return std::nullopt;
  }
  if (*bytes < b.size() - data_at) {
    err(d, src, "Y0008", "the .npy file has " + std::to_string(b.size() - data_at - *bytes) + " bytes after its data",
        static_cast<std::uint32_t>(data_at + *bytes), 1);
    return std::nullopt;
  }
  std::vector<std::uint8_t> data(b.begin() + static_cast<long>(data_at), b.begin() + static_cast<long>(data_at + *bytes));
  if (swap) {
    std::size_t w = dtype_info(*dtype).block_bytes;
    for (std::size_t i = 0; i + w <= data.size(); i += w) std::reverse(data.begin() + static_cast<long>(i), data.begin() + static_cast<long>(i + w));
  }
  if (*dtype == DType::boolean)
    for (std::size_t i = 0; i < data.size(); ++i)
      if (data[i] > 1) {
        err(d, src, "Y0009", "a bool element holds " + std::to_string(data[i]) + " (must be 0 or 1)", static_cast<std::uint32_t>(data_at + i), 1);
        return std::nullopt;
      }
  return ops::HostTensor(*dtype, std::move(shape), std::move(data));
}

std::optional<ops::HostTensor> load(const std::string& path, SourceMap& sources, DiagnosticSink& d) {
  auto data = read_file(path, d, 0xFFFFFFFEu);
  if (!data) return std::nullopt;
  SourceId src = sources.add(path, std::move(*data), /*binary=*/true);
  return parse(sources.get(src).text(), src, d);
}

std::optional<std::vector<std::uint8_t>> serialize(const ops::HostTensor& t, DiagnosticSink& d, bool bf16_as_u16) {
  std::string descr;
  for (const auto& di : kDescrs)
    if (di.dtype == t.dtype()) descr = (dtype_info(t.dtype()).block_bytes == 1 ? "|" : "<") + std::string(di.code);
  if (t.dtype() == DType::bf16 && bf16_as_u16) descr = "<u2";
  if (descr.empty()) {
    d.error("Y0006", "a " + std::string(dtype_name(t.dtype())) + " tensor has no NumPy dtype")
        .note(t.dtype() == DType::bf16 ? "cast to f32 first, or write the raw bits as u16" : "dequantize or cast it first");
    return std::nullopt;
  }
  std::string shape = "(";
  for (std::size_t i = 0; i < t.shape().size(); ++i) shape += std::to_string(t.shape()[i]) + (t.shape().size() == 1 || i + 1 < t.shape().size() ? "," : "");
  shape += ")";
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces so the data starts on a 64-byte boundary, ending in '\n'.
  std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::vector<std::uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                                   static_cast<std::uint8_t>(header.size() & 0xFF), static_cast<std::uint8_t>(header.size() >> 8)};
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), t.bytes().begin(), t.bytes().end());
  return out;
}

bool save(const std::string& path, const ops::HostTensor& t, DiagnosticSink& d, bool bf16_as_u16) {
  auto bytes = serialize(t, d, bf16_as_u16);
  return bytes && write_file_atomic(path, *bytes, d);
}

}  // namespace rung::npy
