#include "ops/tensor_literal.h"

#include <charconv>
#include <cstdlib>
#include <limits>
#include <vector>

namespace rung::ops {

namespace {

struct Parser {
  std::string_view s;
  std::size_t pos = 0;
  LiteralError& err;
  bool failed = false;
  int leaf_depth = -1;  // the depth at which numbers sit; every number must sit there

  void skip() {
    while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\n' || s[pos] == '\r')) ++pos;
  }
  bool fail(std::string msg, std::size_t at, std::size_t len = 1) {
    if (!failed) err = {std::move(msg), at, len};
    failed = true;
    return false;
  }
  std::string_view token() {  // a scalar token: up to , ] or whitespace
    skip();
    std::size_t b = pos;
    while (pos < s.size() && s[pos] != ',' && s[pos] != ']' && s[pos] != '[' && s[pos] != ' ' && s[pos] != '\t') ++pos;
    return s.substr(b, pos - b);
  }
};

// A parsed element before it is stored: its text and where it was.
struct Elem {
  std::string_view text;
  std::size_t offset;
};

// value := scalar | '[' (value (',' value)*)? ']'; fills `shape` from the first path seen
// and checks that every sibling list agrees (no ragged nesting).
bool parse_value(Parser& p, std::size_t depth, std::vector<std::int64_t>& shape, std::vector<Elem>& out) {
  p.skip();
  if (depth > 32) return p.fail("nested more than 32 levels deep", p.pos);
  if (p.pos < p.s.size() && p.s[p.pos] == '[') {
    if (p.leaf_depth >= 0 && static_cast<int>(depth) >= p.leaf_depth)
      return p.fail("a list where a number was expected (ragged nesting)", p.pos);
    std::size_t open = p.pos++;
    std::int64_t count = 0;
    p.skip();
    if (p.pos < p.s.size() && p.s[p.pos] == ']') {
      ++p.pos;
    } else {
      for (;;) {
        if (!parse_value(p, depth + 1, shape, out)) return false;
        ++count;
        p.skip();
        if (p.pos < p.s.size() && p.s[p.pos] == ',') { ++p.pos; continue; }
        if (p.pos < p.s.size() && p.s[p.pos] == ']') { ++p.pos; break; }
        return p.fail(p.pos < p.s.size() ? "expected ',' or ']'" : "unclosed '['", p.pos < p.s.size() ? p.pos : open);
      }
    }
    if (shape.size() <= depth) shape.resize(depth + 1, -1);
    if (shape[depth] == -1) shape[depth] = count;
    else if (shape[depth] != count)
      return p.fail("ragged list: " + std::to_string(count) + " elements where an earlier list at this depth had " +
                        std::to_string(shape[depth]), open, p.pos - open);
    return true;
  }
  std::size_t at = p.pos;
  std::string_view t = p.token();
  if (t.empty()) return p.fail("expected a number or '['", at);
  if (shape.size() > depth || (p.leaf_depth >= 0 && p.leaf_depth != static_cast<int>(depth)))
    return p.fail("a number where a list was expected (ragged nesting)", at, t.size());
  p.leaf_depth = static_cast<int>(depth);
  out.push_back({t, at});
  return true;
}

bool store(Parser& p, HostTensor& t, std::uint64_t i, const Elem& e) {
  std::string txt(e.text);
  const DTypeInfo& info = dtype_info(t.dtype());
  auto bad = [&](const std::string& why) { return p.fail("`" + txt + "` " + why, e.offset, e.text.size()); };
  if (t.dtype() == DType::boolean) {
    if (txt == "true" || txt == "1") t.store_bool(i, true);
    else if (txt == "false" || txt == "0") t.store_bool(i, false);
    else return bad("is not a bool (true, false, 1, 0)");
    return true;
  }
  if (info.is_float) {
    double v;
    std::string low;
    for (char c : txt) low += static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
    std::string mag = (!low.empty() && (low[0] == '-' || low[0] == '+')) ? low.substr(1) : low;
    bool neg = !low.empty() && low[0] == '-';
    if (mag == "nan") v = std::numeric_limits<double>::quiet_NaN();
    else if (mag == "inf" || mag == "infinity") v = neg ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    else {
      char* end = nullptr;
      if (t.dtype() == DType::f32) {  // strtof rounds the decimal directly to f32 (no double rounding)
        float f = std::strtof(txt.c_str(), &end);
        if (end != txt.c_str() + txt.size() || txt.empty()) return bad("is not a number");
        t.store_f32(i, f);
        return true;
      }
      v = std::strtod(txt.c_str(), &end);
      if (end != txt.c_str() + txt.size() || txt.empty()) return bad("is not a number");
    }
    t.store_f64(i, v);
    return true;
  }
  // Integers: exact parse, range-checked against the dtype.
  int bits = static_cast<int>(info.block_bytes) * 8;
  if (info.is_signed) {
    std::int64_t v;
    auto r = std::from_chars(txt.data(), txt.data() + txt.size(), v);
    if (r.ec != std::errc() || r.ptr != txt.data() + txt.size()) return bad("is not an integer in the range of i64");
    std::int64_t lo = bits == 64 ? std::numeric_limits<std::int64_t>::min() : -(std::int64_t{1} << (bits - 1));
    std::int64_t hi = bits == 64 ? std::numeric_limits<std::int64_t>::max() : (std::int64_t{1} << (bits - 1)) - 1;
    if (v < lo || v > hi) return bad("does not fit in " + std::string(dtype_name(t.dtype())));
    t.store_int(i, static_cast<std::uint64_t>(v));
  } else {
    std::uint64_t v;
    auto r = std::from_chars(txt.data(), txt.data() + txt.size(), v);
    if (r.ec != std::errc() || r.ptr != txt.data() + txt.size()) return bad("is not a non-negative integer in the range of u64");
    if (bits < 64 && v >= (std::uint64_t{1} << bits)) return bad("does not fit in " + std::string(dtype_name(t.dtype())));
    t.store_int(i, v);
  }
  return true;
}

// "f32[2, 3]:VALUE" (fill) once the dtype name and '[' were seen.
std::optional<HostTensor> parse_fill(Parser& p, DType dt, std::size_t open) {
  Extents shape;
  ++p.pos;
  p.skip();
  while (p.pos < p.s.size() && p.s[p.pos] != ']') {
    std::size_t at = p.pos;
    std::string_view t = p.token();
    std::uint64_t d = 0;  // aarch64 g++ 12 cannot see from_chars set it (-Wmaybe-uninitialized)
    auto r = std::from_chars(t.data(), t.data() + t.size(), d);
    if (t.empty() || r.ec != std::errc() || r.ptr != t.data() + t.size()) {
      p.fail("expected a dimension (a non-negative integer)", at, t.empty() ? 1 : t.size());
      return std::nullopt;
    }
    shape.push_back(d);
    p.skip();
    if (p.pos < p.s.size() && p.s[p.pos] == ',') { ++p.pos; p.skip(); }
  }
  if (p.pos >= p.s.size()) { p.fail("unclosed '['", open); return std::nullopt; }
  ++p.pos;
  p.skip();
  if (p.pos >= p.s.size() || p.s[p.pos] != ':') {
    p.fail("expected ':' and a fill value after the shape (e.g. f32[2,3]:0 or i64[4]:iota)", p.pos);
    return std::nullopt;
  }
  ++p.pos;
  auto n = HostTensor::checked_bytes(dt, shape);
  if (!n || *n > (std::uint64_t{1} << 30)) {
    p.fail("the shape " + extents_to_string(shape) + " is too large for an inline tensor (1 GiB at most)", open);
    return std::nullopt;
  }
  HostTensor t(dt, shape);
  p.skip();
  std::size_t at = p.pos;
  std::string_view v = p.token();
  p.skip();
  if (p.pos != p.s.size()) { p.fail("unexpected text after the fill value", p.pos); return std::nullopt; }
  if (v == "iota") {
    for (std::uint64_t i = 0; i < t.numel(); ++i) {
      std::string num = std::to_string(i);
      if (!store(p, t, i, {num, at})) { p.err.message = "iota value " + num + " does not fit in " + std::string(dtype_name(dt)); return std::nullopt; }
    }
    return t;
  }
  if (v.empty()) { p.fail("expected a fill value", at); return std::nullopt; }
  HostTensor one(dt, Extents{1});  // parse once (also when the shape is empty), then copy
  if (!store(p, one, 0, {v, at})) return std::nullopt;
  std::size_t w = one.bytes().size();
  for (std::uint64_t i = 0; i < t.numel(); ++i) std::memcpy(t.bytes().data() + i * w, one.bytes().data(), w);
  return t;
}

}  // namespace

std::optional<HostTensor> parse_tensor_literal(std::string_view text, LiteralError& error, DType default_dtype) {
  Parser p{text, 0, error};
  DType dt = default_dtype;
  // Optional "dtype:" or "dtype[" prefix.
  std::size_t i = 0;
  while (i < text.size() && ((text[i] >= 'a' && text[i] <= 'z') || (text[i] >= '0' && text[i] <= '9') || text[i] == '_')) ++i;
  if (i > 0 && i < text.size() && (text[i] == ':' || text[i] == '[')) {
    auto named = dtype_from_name(text.substr(0, i));
    if (!named) {
      p.fail("unknown dtype `" + std::string(text.substr(0, i)) + "`", 0, i);
      return std::nullopt;
    }
    if (dtype_info(*named).is_quantized) {
      p.fail("block-quantized tensors cannot be written inline; quantize an f32 tensor instead", 0, i);
      return std::nullopt;
    }
    dt = *named;
    p.pos = i;
    if (text[i] == '[') return parse_fill(p, dt, i);
    ++p.pos;  // ':'
  }
  std::vector<std::int64_t> shape;
  std::vector<Elem> elems;
  if (!parse_value(p, 0, shape, elems)) return std::nullopt;
  p.skip();
  if (p.pos != text.size()) {
    p.fail("unexpected text after the tensor", p.pos, text.size() - p.pos);
    return std::nullopt;
  }
  Extents ext;
  for (auto d : shape) ext.push_back(d < 0 ? 0 : static_cast<std::uint64_t>(d));
  if (element_count(ext) != elems.size()) {
    p.fail("ragged nesting: the lists do not form a rectangular shape", 0, text.size());
    return std::nullopt;
  }
  HostTensor t(dt, ext);
  for (std::size_t k = 0; k < elems.size(); ++k)
    if (!store(p, t, k, elems[k])) return std::nullopt;
  return t;
}

}  // namespace rung::ops
