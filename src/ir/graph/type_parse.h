// Parses the text form of a tensor type, the inverse of TensorType::to_string():
//   f32            a scalar
//   f32[B, 784]    static and symbolic dims (symbols: letters, digits, '_', not leading digit)
//   bf16[4] @device
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ir/graph/type.h"

namespace rung {
// On failure returns nullopt and sets `error` to what is wrong and where (character index).
std::optional<TensorType> parse_type(std::string_view text, std::string& error);
}  // namespace rung
