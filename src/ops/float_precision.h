// The significand bits of a float dtype, the implicit one included (0 for any other dtype):
// what numerics::int_to_double_rounded needs to round an integer once into that dtype.
#pragma once

#include "ir/graph/dtype.h"

namespace rung::ops {

inline int precision_of(DType t) {
  switch (t) {
    case DType::f64: return 53;
    case DType::f32: return 24;
    case DType::f16: return 11;
    case DType::bf16: return 8;
    default: return 0;
  }
}

}  // namespace rung::ops
