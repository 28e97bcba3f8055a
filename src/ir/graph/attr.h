// Node attributes: a map from name to a typed value, kept sorted by name (byte order), which
// is the canonical order the encoding and every hash use.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "base/canonical.h"
#include "base/hash.h"
#include "ir/graph/type.h"

namespace rung {

// Kind codes are part of the canonical encoding: append only.
enum class AttrKind : std::uint8_t {
  boolean = 1, integer = 2, real = 3, string = 4, integers = 5, reals = 6,
  dtype = 7, hash = 8, bytes = 9, shape = 10,
};
inline constexpr std::uint8_t kAttrKindMaxCode = 10;
std::string_view attr_kind_name(AttrKind k);

using Bytes = std::vector<std::uint8_t>;

class AttrValue {
 public:
  using Storage = std::variant<bool, std::int64_t, double, std::string, std::vector<std::int64_t>,
                               std::vector<double>, DType, Hash256, Bytes, Shape>;

  AttrValue(bool v) : v_(v) {}
  AttrValue(int v) : v_(std::int64_t{v}) {}
  AttrValue(std::int64_t v) : v_(v) {}
  AttrValue(double v) : v_(v) {}
  AttrValue(const char* v) : v_(std::string(v)) {}
  AttrValue(std::string v) : v_(std::move(v)) {}
  AttrValue(std::vector<std::int64_t> v) : v_(std::move(v)) {}
  AttrValue(std::vector<double> v) : v_(std::move(v)) {}
  AttrValue(DType v) : v_(v) {}
  AttrValue(Hash256 v) : v_(v) {}
  AttrValue(Bytes v) : v_(std::move(v)) {}
  AttrValue(Shape v) : v_(std::move(v)) {}

  AttrKind kind() const { return static_cast<AttrKind>(v_.index() + 1); }
  template <typename T> bool is() const { return std::holds_alternative<T>(v_); }
  template <typename T> const T& as() const { return std::get<T>(v_); }
  const Storage& storage() const { return v_; }

  void encode(CanonicalWriter& w) const;  // kind byte, then the payload
  std::string to_string() const;          // short, for listings (bytes are summarised)

  bool operator==(const AttrValue& o) const;

 private:
  Storage v_;
};

using AttrMap = std::map<std::string, AttrValue>;  // std::string orders like memcmp

void encode_attrs(const AttrMap& attrs, CanonicalWriter& w);
std::string attrs_to_string(const AttrMap& attrs);

}  // namespace rung
