// Shape rules and reference kernels of the conv family (family_conv.cpp): convolution and
// max/average pooling over 1 or 2 spatial axes, NCL / NCHW layout. docs/semantics.md
// ("Convolution and pooling") defines each output element's operation sequence; these
// kernels are its plain form, the oracle the backends are judged against.
#pragma once

#include "ops/op_def.h"
#include "ops/window_geometry.h"

namespace rung::ops {

// What conv and conv_transpose check of their operands and attributes (ranks, static dims,
// groups, bias, window attributes), shared by both shape rules.
struct ConvOperands {
  std::uint64_t in_channels = 0, out_channels = 0, groups = 1;
  WindowAttrs window;
};
std::optional<ConvOperands> conv_operands(const ShapeArgs& a, bool transposed, std::string& err);

ShapeResult rule_conv(const ShapeArgs& a);
void conv_kernel(KernelContext& c);

// conv_transpose: x [N, C, (H,) W], w [C, M/groups, (KH,) KW]; output extent per axis
// stride*(in-1) + output_padding + dilation*(k-1) + 1 - pads.
ShapeResult rule_conv_transpose(const ShapeArgs& a);
void conv_transpose_kernel(KernelContext& c);
// Its geometry: `ax[d].in` the input extent, `.out` the output's, k/stride/dilation/pads as given.
Window2 conv_transpose_window(const HostTensor& x, const HostTensor& w, const Attrs& a);
Window2 conv_transpose_window(const Extents& x, const Extents& w, const Attrs& a);  // from the shapes alone

ShapeResult rule_max_pool(const ShapeArgs& a);  // (y, indices)
ShapeResult rule_avg_pool(const ShapeArgs& a);
void max_pool_kernel(KernelContext& c);
void avg_pool_kernel(KernelContext& c);

// The window of a conv node (x [N, C, spatial...], w [M, C/groups, kernel...]) or of a pool
// node (x and the `kernel_shape` attribute), for kernels of every backend (the Extents forms
// for backends whose tensors are not HostTensors).
Window2 conv_window(const HostTensor& x, const HostTensor& w, const Attrs& a);
Window2 conv_window(const Extents& x, const Extents& w, const Attrs& a);
Window2 pool_window(const HostTensor& x, const Attrs& a);
Window2 pool_window(const Extents& x, const Attrs& a);

// The pool divisor of avg_pool output (oh, ow): taps inside the input, or with
// count_include_pad the taps inside the padded input (the ceil_mode overhang never counts).
std::uint64_t avg_pool_count(const Window2& g, std::uint64_t oh, std::uint64_t ow, bool include_pad);

}  // namespace rung::ops
