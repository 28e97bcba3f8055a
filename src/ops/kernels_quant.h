// Reference kernels of the quantized family (family_quant.cpp); the block formats
// themselves are numerics/quant_blocks.h, the byte layout docs/quantization.md.
#pragma once

#include "ops/op_def.h"

namespace rung::ops {

ShapeResult rule_quantize(const ShapeArgs& a);
ShapeResult rule_dequantize(const ShapeArgs& a);
ShapeResult rule_linear_q(const ShapeArgs& a);
void quantize_kernel(KernelContext& c);
void dequantize_kernel(KernelContext& c);
void linear_q_kernel(KernelContext& c);

// Bytes of block b of a q8_0/q4_0 tensor.
const std::uint8_t* q_block(const HostTensor& t, std::uint64_t b);

}  // namespace rung::ops
