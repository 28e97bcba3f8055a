// Small tensors written inline, for `rung eval` and tests:
//
//   [[1, 2], [3, 4]]           nested lists give the shape; f32 unless a dtype is given
//   i64:[1, -2, 3]             dtype prefix (any plain dtype name)
//   f16:[nan, inf, -inf, -0]   special values; hex floats (0x1p-149) are accepted
//   bool:[true, false]         also 1 / 0
//   2.5   []   [[], []]        a scalar; shape [0]; shape [2, 0]
//   f32[2, 3]:1.5              a shape filled with one value
//   i32[5]:iota                0, 1, 2, ... in row-major order
//
// Numbers are rounded once to the dtype (f32 and f64 directly from the decimal string);
// integers out of the dtype's range are an error, never wrapped.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ops/host_tensor.h"

namespace rung::ops {

struct LiteralError {
  std::string message;
  std::size_t offset = 0;  // byte offset into the text
  std::size_t length = 1;
};

std::optional<HostTensor> parse_tensor_literal(std::string_view text, LiteralError& error,
                                               DType default_dtype = DType::f32);

}  // namespace rung::ops
