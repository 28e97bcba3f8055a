// Element types. The numeric codes are part of the canonical encoding (and so of every
// hash and every .keg file): never renumber, only append.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace rung {

enum class DType : std::uint8_t {
  f32 = 1, f16 = 2, bf16 = 3, f64 = 4,
  i64 = 5, i32 = 6, i16 = 7, i8 = 8,
  u64 = 9, u32 = 10, u16 = 11, u8 = 12,
  boolean = 13,
  q8_0 = 14,  // block-quantized storage: 32 values per block, f16 scale + 32 x i8
  q4_0 = 15,  // block-quantized storage: 32 values per block, f16 scale + 16 bytes of nibbles
};

struct DTypeInfo {
  DType dtype;
  std::string_view name;
  std::uint32_t block_elems;  // 1 for plain types, 32 for the quantized block formats
  std::uint32_t block_bytes;  // bytes per block (per element for plain types)
  bool is_float;
  bool is_integer;
  bool is_signed;
  bool is_quantized;
};

const DTypeInfo& dtype_info(DType t);
std::string_view dtype_name(DType t);
std::optional<DType> dtype_from_name(std::string_view name);
std::optional<DType> dtype_from_code(std::uint8_t code);  // for untrusted input
inline constexpr std::uint8_t kDTypeMaxCode = 15;

// Bytes needed to store `elems` values; nullopt when a block format cannot hold that
// count exactly (quantized tensors must have a multiple of 32 elements) or on overflow.
std::optional<std::uint64_t> storage_bytes(DType t, std::uint64_t elems);

}  // namespace rung
