// Shape rules and reference kernels of the shape family (family_shape.cpp): data movement
// (reshape, broadcast_to, transpose, slice, concat, pad) in kernels_shape_layout.cpp and
// indexing/generation (gather, scatter_add, one_hot, iota, arange) in kernels_shape_index.cpp.
#pragma once

#include "ops/op_def.h"

namespace rung::ops {

ShapeResult rule_reshape(const ShapeArgs& a);
ShapeResult rule_broadcast_to(const ShapeArgs& a);
ShapeResult rule_transpose(const ShapeArgs& a);
ShapeResult rule_slice(const ShapeArgs& a);
ShapeResult rule_concat(const ShapeArgs& a);
ShapeResult rule_pad(const ShapeArgs& a);
ShapeResult rule_resize(const ShapeArgs& a);  // kernels_resize.cpp
void reshape_kernel(KernelContext& c);
void broadcast_to_kernel(KernelContext& c);
void transpose_kernel(KernelContext& c);
void slice_kernel(KernelContext& c);
void concat_kernel(KernelContext& c);
void pad_kernel(KernelContext& c);
void resize_kernel(KernelContext& c);

ShapeResult rule_gather(const ShapeArgs& a);
ShapeResult rule_scatter_add(const ShapeArgs& a);
ShapeResult rule_gather_elements(const ShapeArgs& a);
ShapeResult rule_one_hot(const ShapeArgs& a);
ShapeResult rule_iota(const ShapeArgs& a);
ShapeResult rule_arange(const ShapeArgs& a);
void gather_kernel(KernelContext& c);
void scatter_add_kernel(KernelContext& c);
void gather_elements_kernel(KernelContext& c);
void one_hot_kernel(KernelContext& c);
void iota_kernel(KernelContext& c);
void arange_kernel(KernelContext& c);

// gather along `axis` of x (shared with `embedding`): out = x[:axis] + indices + x[axis+1:].
void gather_rows(const HostTensor& x, const HostTensor& indices, std::size_t axis, HostTensor& out,
                 KernelContext& c);

}  // namespace rung::ops
