// Shape rules and reference kernels of the NN family (family_nn.cpp). Each composite is a
// fixed sequence of the registry's canonical steps (canonical sums, matmul's fma chain,
// rung's transcendentals), computed in f32 with only the outputs rounded to the storage
// dtype; docs/semantics.md ("NN composites") spells out each sequence.
#pragma once

#include "ops/op_def.h"

namespace rung::ops {

ShapeResult rule_norm(const ShapeArgs& a);  // layer_norm, rms_norm
void layer_norm_kernel(KernelContext& c);
void rms_norm_kernel(KernelContext& c);

ShapeResult rule_rope(const ShapeArgs& a);
void rope_kernel(KernelContext& c);

ShapeResult rule_attention(const ShapeArgs& a);
void attention_kernel(KernelContext& c);

ShapeResult rule_ffn_swiglu(const ShapeArgs& a);
ShapeResult rule_ffn_gelu(const ShapeArgs& a);
void ffn_swiglu_kernel(KernelContext& c);
void ffn_gelu_kernel(KernelContext& c);

ShapeResult rule_embedding(const ShapeArgs& a);
void embedding_kernel(KernelContext& c);

ShapeResult rule_cross_entropy(const ShapeArgs& a);
ShapeResult rule_mse(const ShapeArgs& a);
void cross_entropy_kernel(KernelContext& c);
void mse_kernel(KernelContext& c);

}  // namespace rung::ops
