// ONNX element types (TensorProto.DataType) and rung's dtypes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "rung/dtype.h"

namespace rung::onnx_import {

std::optional<DType> dtype_of(std::int32_t onnx_type);  // nullopt: STRING, COMPLEX, undefined, unknown
std::string onnx_type_name(std::int32_t onnx_type);      // "FLOAT", "STRING", "type 99"

}  // namespace rung::onnx_import
