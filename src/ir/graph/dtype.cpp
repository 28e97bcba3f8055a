#include "ir/graph/dtype.h"

#include <array>

#include "base/check.h"

namespace rung {
namespace {
constexpr std::array<DTypeInfo, 15> kInfos{{
    {DType::f32, "f32", 1, 4, true, false, true, false},
    {DType::f16, "f16", 1, 2, true, false, true, false},
    {DType::bf16, "bf16", 1, 2, true, false, true, false},
    {DType::f64, "f64", 1, 8, true, false, true, false},
    {DType::i64, "i64", 1, 8, false, true, true, false},
    {DType::i32, "i32", 1, 4, false, true, true, false},
    {DType::i16, "i16", 1, 2, false, true, true, false},
    {DType::i8, "i8", 1, 1, false, true, true, false},
    {DType::u64, "u64", 1, 8, false, true, false, false},
    {DType::u32, "u32", 1, 4, false, true, false, false},
    {DType::u16, "u16", 1, 2, false, true, false, false},
    {DType::u8, "u8", 1, 1, false, true, false, false},
    {DType::boolean, "bool", 1, 1, false, false, false, false},
    {DType::q8_0, "q8_0", 32, 34, false, false, true, true},
    {DType::q4_0, "q4_0", 32, 18, false, false, true, true},
}};
}  // namespace

const DTypeInfo& dtype_info(DType t) {
  auto code = static_cast<std::uint8_t>(t);
  RUNG_CHECK(code >= 1 && code <= kInfos.size(), "invalid DType value");
  return kInfos[code - 1];
}

std::string_view dtype_name(DType t) { return dtype_info(t).name; }

std::optional<DType> dtype_from_name(std::string_view name) {
  for (const auto& i : kInfos)
    if (i.name == name) return i.dtype;
  return std::nullopt;
}

std::optional<DType> dtype_from_code(std::uint8_t code) {
  if (code < 1 || code > kDTypeMaxCode) return std::nullopt;
  return static_cast<DType>(code);
}

std::optional<std::uint64_t> storage_bytes(DType t, std::uint64_t elems) {
  const DTypeInfo& i = dtype_info(t);
  if (elems % i.block_elems != 0) return std::nullopt;
  std::uint64_t blocks = elems / i.block_elems;
  if (blocks != 0 && i.block_bytes > UINT64_MAX / blocks) return std::nullopt;
  return blocks * i.block_bytes;
}

}  // namespace rung
