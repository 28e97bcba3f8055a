// Tensor types: element type, shape (static and symbolic dims) and memory space.
// A type's identity is the SHA3-256 of its canonical encoding under the "type" domain;
// two types match only when those hashes are equal (operator== compares exactly the
// fields that the encoding covers, so the two notions cannot drift apart).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/canonical.h"
#include "base/hash.h"
#include "ir/graph/dtype.h"

namespace rung {

// Codes are part of the canonical encoding: append only.
enum class MemSpace : std::uint8_t { host = 0, device = 1, pinned = 2, unified = 3 };
std::string_view memspace_name(MemSpace m);
std::optional<MemSpace> memspace_from_name(std::string_view name);
std::optional<MemSpace> memspace_from_code(std::uint8_t code);

// A dimension: a static extent, or a symbol (`B`) unified later (at a call, at run time).
class Dim {
 public:
  static Dim fixed(std::uint64_t extent) { return Dim(extent, {}); }
  static Dim symbol(std::string name) { return Dim(0, std::move(name)); }

  bool is_static() const { return symbol_.empty(); }
  std::uint64_t extent() const;         // RUNG_CHECKs is_static()
  const std::string& name() const;      // RUNG_CHECKs !is_static()
  std::string to_string() const { return is_static() ? std::to_string(extent_) : symbol_; }

  bool operator==(const Dim&) const = default;

 private:
  Dim(std::uint64_t e, std::string s) : extent_(e), symbol_(std::move(s)) {}
  std::uint64_t extent_;
  std::string symbol_;
};

using Shape = std::vector<Dim>;

struct TensorType {
  DType dtype = DType::f32;
  Shape shape;
  MemSpace space = MemSpace::host;

  std::size_t rank() const { return shape.size(); }
  bool is_static() const;
  // Element count when all dims are static and the product fits in 64 bits.
  std::optional<std::uint64_t> element_count() const;
  std::optional<std::uint64_t> byte_size() const;

  void encode(CanonicalWriter& w) const;
  Hash256 type_id() const;
  std::string to_string() const;  // f32[B, 784], with " @device" when not on the host

  bool operator==(const TensorType&) const = default;
};

TensorType tensor(DType dt, std::initializer_list<Dim> dims, MemSpace space = MemSpace::host);
std::string shape_to_string(const Shape& s);
void encode_shape(const Shape& s, CanonicalWriter& w);  // u32 rank, then per dim: u8 tag 0 + u64 | tag 1 + str

}  // namespace rung
