#include "ir/graph/attr.h"

#include <cstring>
#include <cstdio>

#include "base/check.h"

namespace rung {

std::string_view attr_kind_name(AttrKind k) {
  switch (k) {
    case AttrKind::boolean: return "bool";
    case AttrKind::integer: return "int";
    case AttrKind::real: return "float";
    case AttrKind::string: return "string";
    case AttrKind::integers: return "ints";
    case AttrKind::reals: return "floats";
    case AttrKind::dtype: return "dtype";
    case AttrKind::hash: return "hash";
    case AttrKind::bytes: return "bytes";
    case AttrKind::shape: return "shape";
  }
  RUNG_UNREACHABLE("invalid AttrKind");
}

namespace {
template <class... Ts> struct overloaded : Ts... { using Ts::operator()...; };
template <class... Ts> overloaded(Ts...) -> overloaded<Ts...>;  // clang 14 needs the guide

std::string real_to_string(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}
}  // namespace

void AttrValue::encode(CanonicalWriter& w) const {
  w.u8(static_cast<std::uint8_t>(kind()));
  std::visit(overloaded{
                 [&](bool v) { w.boolean(v); },
                 [&](std::int64_t v) { w.i64(v); },
                 [&](double v) { w.f64(v); },
                 [&](const std::string& v) { w.str(v); },
                 [&](const std::vector<std::int64_t>& v) {
                   w.u32(static_cast<std::uint32_t>(v.size()));
                   for (auto x : v) w.i64(x);
                 },
                 [&](const std::vector<double>& v) {
                   w.u32(static_cast<std::uint32_t>(v.size()));
                   for (auto x : v) w.f64(x);
                 },
                 [&](DType v) { w.u8(static_cast<std::uint8_t>(v)); },
                 [&](const Hash256& v) { w.hash(v); },
                 [&](const Bytes& v) { w.bytes(v); },
                 [&](const Shape& v) { encode_shape(v, w); },
             },
             v_);
}

// Equality is bitwise for reals (matching the encoding): -0.0 != 0.0, NaN == same NaN.
bool AttrValue::operator==(const AttrValue& o) const {
  CanonicalWriter a, b;
  encode(a);
  o.encode(b);
  return a.data() == b.data();
}

std::string AttrValue::to_string() const {
  return std::visit(overloaded{
                        [](bool v) -> std::string { return v ? "true" : "false"; },
                        [](std::int64_t v) { return std::to_string(v); },
                        [](double v) { return real_to_string(v); },
                        [](const std::string& v) { return "\"" + v + "\""; },
                        [](const std::vector<std::int64_t>& v) {
                          std::string s = "[";
                          for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
                          return s + "]";
                        },
                        [](const std::vector<double>& v) {
                          std::string s = "[";
                          for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + real_to_string(v[i]);
                          return s + "]";
                        },
                        [](DType v) { return std::string(dtype_name(v)); },
                        [](const Hash256& v) { return "#" + v.short_hex(); },
                        [](const Bytes& v) { return "<" + std::to_string(v.size()) + " bytes #" + sha3_256(v).short_hex(8) + ">"; },
                        [](const Shape& v) { return shape_to_string(v); },
                    },
                    v_);
}

void encode_attrs(const AttrMap& attrs, CanonicalWriter& w) {
  w.u32(static_cast<std::uint32_t>(attrs.size()));
  for (const auto& [k, v] : attrs) {
    w.str(k);
    v.encode(w);
  }
}

std::string attrs_to_string(const AttrMap& attrs) {
  if (attrs.empty()) return {};
  std::string s = "{";
  bool first = true;
  for (const auto& [k, v] : attrs) {
    s += (first ? "" : ", ") + k + "=" + v.to_string();
    first = false;
  }
  return s + "}";
}

}  // namespace rung
