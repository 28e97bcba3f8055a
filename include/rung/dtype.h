// Element types: the one definition, shared by the public API and the library. The numeric
// codes are part of the canonical encoding (and so of every hash and every .keg file): never
// renumber, only append.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "rung/export.h"

namespace rung {

enum class DType : std::uint8_t {
  f32 = 1, f16 = 2, bf16 = 3, f64 = 4,
  i64 = 5, i32 = 6, i16 = 7, i8 = 8,
  u64 = 9, u32 = 10, u16 = 11, u8 = 12,
  boolean = 13,
  q8_0 = 14,  // block-quantized storage: 32 values per block, f16 scale + 32 x i8
  q4_0 = 15,  // block-quantized storage: 32 values per block, f16 scale + 16 bytes of nibbles
};

RUNG_API std::string_view dtype_name(DType t);                      // "f32", "bool", "q8_0"
RUNG_API std::optional<DType> dtype_from_name(std::string_view name);  // the inverse

}  // namespace rung
