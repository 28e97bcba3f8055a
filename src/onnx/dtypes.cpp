#include "onnx/dtypes.h"

#include <onnx/onnx_pb.h>

namespace rung::onnx_import {

std::optional<DType> dtype_of(std::int32_t t) {
  using TP = ::onnx::TensorProto;
  switch (t) {
    case TP::FLOAT: return DType::f32;
    case TP::DOUBLE: return DType::f64;
    case TP::FLOAT16: return DType::f16;
    case TP::BFLOAT16: return DType::bf16;
    case TP::INT8: return DType::i8;
    case TP::INT16: return DType::i16;
    case TP::INT32: return DType::i32;
    case TP::INT64: return DType::i64;
    case TP::UINT8: return DType::u8;
    case TP::UINT16: return DType::u16;
    case TP::UINT32: return DType::u32;
    case TP::UINT64: return DType::u64;
    case TP::BOOL: return DType::boolean;
    default: return std::nullopt;
  }
}

std::string onnx_type_name(std::int32_t t) {
  if (::onnx::TensorProto_DataType_IsValid(t)) return ::onnx::TensorProto_DataType_Name(static_cast<::onnx::TensorProto_DataType>(t));
  return "type " + std::to_string(t);
}

}  // namespace rung::onnx_import
