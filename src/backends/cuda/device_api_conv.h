// Launchers for conv, conv_transpose, max_pool and avg_pool (k_conv.cu). Same rules as
// device_api.h: they only enqueue work and return a cudaError_t. Every output element runs
// the reference's sequence (src/ops/kernels_conv.cpp, kernels_conv_transpose.cpp,
// kernels_pool.cpp); the index arithmetic is ops::WindowAxis itself, shared with them.
#pragma once

#include <cstdint>

#include "backends/cuda/device_api.h"
#include "ops/window_axis.h"

namespace rung::cuda {

// A window over the spatial axes of NCHW tensors, 1-D held as 2-D with a trivial row axis
// (ops::Window2's convention): h = rows, w = columns.
struct WindowSpec {
  ops::WindowAxis h, w;
};

// conv and conv_transpose: x [N, C, h.in, w.in], y [N, M, h.out, w.out], groups G with
// Cg = C/G input and Mg = M/G output channels each; w [M, Cg, h.k, w.k] (conv) or
// [C, Mg, h.k, w.k] (transposed); b null or M values. One fma chain per output over
// (c, kh, kw) increasing, from b[m] or +0. x, w, b and y share `dtype`.
struct ConvSpec {
  WindowSpec g;
  std::uint64_t N = 0, C = 0, M = 0, Cg = 0, Mg = 0;
  bool transposed = false;
};
int launch_conv(const void* x, const void* w, const void* b, int dtype, void* y, const ConvSpec& c, Stream s);

// The pools over `planes` (N*C) planes of h.in x w.in. max_pool: the ordered scan, y and
// idx (i64, flat position in x). avg_pool: the canonical sum of each window's taps (a warp
// per output; a block where the window has more than 4096 taps, up to 4096^2), one division
// by the tap count.
int launch_max_pool(const void* x, int dtype, void* y, std::int64_t* idx, std::uint64_t planes, const WindowSpec& g, Stream s);
int launch_avg_pool(const void* x, int dtype, void* y, std::uint64_t planes, const WindowSpec& g, bool include_pad, Stream s);

}  // namespace rung::cuda
