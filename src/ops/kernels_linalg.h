// Shape rules and reference kernels of the linear-algebra family.
#pragma once

#include "ops/op_def.h"

namespace rung::ops {

ShapeResult rule_matmul(const ShapeArgs& a);
ShapeResult rule_linear(const ShapeArgs& a);
void matmul_kernel(KernelContext& c);
void linear_kernel(KernelContext& c);

}  // namespace rung::ops
