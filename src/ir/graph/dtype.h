// Element types: the enum is the public one (include/rung/dtype.h); here what the library
// knows about each.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "rung/dtype.h"

namespace rung {


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
std::optional<DType> dtype_from_code(std::uint8_t code);  // for untrusted input
inline constexpr std::uint8_t kDTypeMaxCode = 15;

// Bytes needed to store `elems` values; nullopt when a block format cannot hold that
// count exactly (quantized tensors must have a multiple of 32 elements) or on overflow.
std::optional<std::uint64_t> storage_bytes(DType t, std::uint64_t elems);

}  // namespace rung
