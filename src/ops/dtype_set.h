// A set of element types, the constraint an operand's type variable ranges over.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include "ir/graph/dtype.h"

namespace rung::ops {

class DTypeSet {
 public:
  constexpr DTypeSet() = default;
  constexpr DTypeSet(std::initializer_list<DType> types) {
    for (DType t : types) bits_ |= bit(t);
  }
  constexpr bool contains(DType t) const { return (bits_ & bit(t)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr DTypeSet operator|(DTypeSet o) const { return from_bits(bits_ | o.bits_); }
  constexpr DTypeSet operator&(DTypeSet o) const { return from_bits(bits_ & o.bits_); }
  constexpr bool operator==(const DTypeSet&) const = default;
  // "f32|f16|bf16", in dtype code order; named groups are not abbreviated.
  std::string to_string() const;

 private:
  static constexpr std::uint32_t bit(DType t) { return 1u << static_cast<std::uint8_t>(t); }
  static constexpr DTypeSet from_bits(std::uint32_t b) { DTypeSet s; s.bits_ = b; return s; }
  std::uint32_t bits_ = 0;
};

// The groups op declarations use.
inline constexpr DTypeSet kFloat16 = {DType::f16, DType::bf16};
inline constexpr DTypeSet kFloat32Like = {DType::f32, DType::f16, DType::bf16};  // computed in f32
inline constexpr DTypeSet kFloat = kFloat32Like | DTypeSet{DType::f64};
inline constexpr DTypeSet kSignedInt = {DType::i8, DType::i16, DType::i32, DType::i64};
inline constexpr DTypeSet kUnsignedInt = {DType::u8, DType::u16, DType::u32, DType::u64};
inline constexpr DTypeSet kInt = kSignedInt | kUnsignedInt;
inline constexpr DTypeSet kNumeric = kFloat | kInt;
inline constexpr DTypeSet kBool = {DType::boolean};
inline constexpr DTypeSet kQuantized = {DType::q8_0, DType::q4_0};
inline constexpr DTypeSet kPlain = kNumeric | kBool;  // every type with one value per element

}  // namespace rung::ops
