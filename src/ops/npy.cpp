#include "ops/npy.h"

#include <charconv>
#include <cstring>

namespace rung::ops {

namespace {

struct Descr {
  const char* code;  // numpy's descr without the byte-order character
  DType dtype;
};
const Descr kDescrs[] = {{"f4", DType::f32}, {"f8", DType::f64}, {"f2", DType::f16}, {"i8", DType::i64},
                         {"i4", DType::i32}, {"i2", DType::i16}, {"i1", DType::i8},  {"u8", DType::u64},
                         {"u4", DType::u32}, {"u2", DType::u16}, {"u1", DType::u8},  {"b1", DType::boolean}};

// The value text after 'key': in the header dict, or empty.
std::string_view dict_value(std::string_view h, std::string_view key) {
  std::string k1 = "'" + std::string(key) + "'";
  auto p = h.find(k1);
  if (p == std::string_view::npos) return {};
  p = h.find(':', p + k1.size());
  if (p == std::string_view::npos) return {};
  ++p;
  while (p < h.size() && h[p] == ' ') ++p;
  std::size_t e = p;
  if (e < h.size() && h[e] == '(') {
    e = h.find(')', e);
    return e == std::string_view::npos ? std::string_view{} : h.substr(p, e - p + 1);
  }
  if (e < h.size() && h[e] == '\'') {
    e = h.find('\'', e + 1);
    return e == std::string_view::npos ? std::string_view{} : h.substr(p, e - p + 1);
  }
  while (e < h.size() && h[e] != ',' && h[e] != '}') ++e;
  return h.substr(p, e - p);
}

}  // namespace

std::optional<HostTensor> read_npy(std::span<const std::uint8_t> b, std::string& error) {
  if (b.size() < 10 || std::memcmp(b.data(), "\x93NUMPY", 6) != 0) {
    error = "not a .npy file (no \\x93NUMPY magic)";
    return std::nullopt;
  }
  std::uint8_t major = b[6];
  std::size_t hlen, hstart;
  if (major == 1) {
    hlen = b[8] | (b[9] << 8);
    hstart = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) { error = "truncated header"; return std::nullopt; }
    hlen = b[8] | (b[9] << 8) | (static_cast<std::size_t>(b[10]) << 16) | (static_cast<std::size_t>(b[11]) << 24);
    hstart = 12;
  } else {
    error = "unsupported .npy format version " + std::to_string(major);
    return std::nullopt;
  }
  if (hstart + hlen > b.size()) { error = "header longer than the file"; return std::nullopt; }
  std::string_view h(reinterpret_cast<const char*>(b.data() + hstart), hlen);
  std::string_view descr = dict_value(h, "descr");
  std::string_view fortran = dict_value(h, "fortran_order");
  std::string_view shape_txt = dict_value(h, "shape");
  if (descr.size() < 4 || shape_txt.empty() || fortran.empty()) {
    error = "header lacks descr, fortran_order or shape";
    return std::nullopt;
  }
  if (fortran.substr(0, 4) == "True") { error = "Fortran-order arrays are not supported (save with C order)"; return std::nullopt; }
  std::string_view d = descr.substr(1, descr.size() - 2);  // strip quotes
  char order = d[0];
  std::string_view code = d.substr(1);
  const Descr* found = nullptr;
  for (const auto& x : kDescrs)
    if (code == x.code) found = &x;
  if (!found) { error = "unsupported element type '" + std::string(d) + "'"; return std::nullopt; }
  if (order == '>' && dtype_info(found->dtype).block_bytes > 1) {
    error = "big-endian arrays are not supported";
    return std::nullopt;
  }
  Extents shape;
  for (std::size_t p = 1; p < shape_txt.size();) {
    while (p < shape_txt.size() && (shape_txt[p] == ' ' || shape_txt[p] == ',')) ++p;
    if (p >= shape_txt.size() || shape_txt[p] == ')') break;
    std::uint64_t v;
    auto r = std::from_chars(shape_txt.data() + p, shape_txt.data() + shape_txt.size(), v);
    if (r.ec != std::errc()) { error = "malformed shape " + std::string(shape_txt); return std::nullopt; }
    shape.push_back(v);
    p = static_cast<std::size_t>(r.ptr - shape_txt.data());
  }
  auto bytes = HostTensor::checked_bytes(found->dtype, shape);
  std::size_t data = hstart + hlen;
  if (!bytes || *bytes != b.size() - data) {
    error = "data size does not match shape " + extents_to_string(shape) + " of " + std::string(dtype_name(found->dtype));
    return std::nullopt;
  }
  return HostTensor(found->dtype, shape, std::vector<std::uint8_t>(b.begin() + static_cast<std::ptrdiff_t>(data), b.end()));
}

std::optional<std::vector<std::uint8_t>> write_npy(const HostTensor& t, std::string& error) {
  const Descr* found = nullptr;
  for (const auto& x : kDescrs)
    if (x.dtype == t.dtype()) found = &x;
  if (!found) { error = std::string(dtype_name(t.dtype())) + " has no numpy dtype"; return std::nullopt; }
  std::string shape = "(";  // numpy's tuple syntax: (), (5,), (2, 3)
  for (std::size_t i = 0; i < t.rank(); ++i) shape += (i ? ", " : "") + std::to_string(t.shape()[i]);
  shape += t.rank() == 1 ? ",)" : ")";
  std::string order = dtype_info(t.dtype()).block_bytes == 1 ? "|" : "<";
  std::string h = "{'descr': '" + order + found->code + "', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + h.size() + 1) % 64 != 0) h += ' ';
  h += '\n';
  std::vector<std::uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, static_cast<std::uint8_t>(h.size() & 0xFF),
                                   static_cast<std::uint8_t>(h.size() >> 8)};
  out.insert(out.end(), h.begin(), h.end());
  out.insert(out.end(), t.bytes().begin(), t.bytes().end());
  return out;
}

}  // namespace rung::ops
