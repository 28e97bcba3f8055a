// conv, conv_transpose, max_pool and avg_pool as the reference defines them (docs/semantics.md,
// "Convolution and pooling"; src/ops/kernels_conv*.cpp, kernels_pool.cpp, pool_plane.h):
// one thread per output for the fma chains and the max scan, a warp (a block past 4096 taps)
// per output for avg_pool's canonical sum. The per-output sequences are conv_body.h's (host
// and device code, tested on the host against the reference); which input element a tap
// meets is ops::WindowAxis's, the reference's own functions. f16/bf16 widen exactly to f32
// and are rounded once at the store.
#include "backends/cuda/conv_body.h"
#include "backends/cuda/k_tree.cuh"
#include "ops/numerics/elementwise.h"

namespace rung::cuda {
namespace {

template <typename T>
__global__ void conv_k(const void* x, const void* w, const void* b, int dt, void* y, ConvSpec c, std::uint64_t total) {
  auto lx = [&](std::uint64_t o) { return ld<T>(x, dt, o); };
  auto lw = [&](std::uint64_t o) { return ld<T>(w, dt, o); };
  auto lb = [&](std::uint64_t m) { return b ? ld<T>(b, dt, m) : T(0); };
  RUNG_GRID_LOOP(i, total) st(y, dt, i, conv_output<T>(c, i, lx, lw, lb));
}

template <typename T>
__global__ void max_pool_k(const void* x, int dt, void* y, std::int64_t* idx, WindowSpec g, std::uint64_t total) {
  auto lx = [&](std::uint64_t o) { return ld<T>(x, dt, o); };
  RUNG_GRID_LOOP(i, total) {
    T best;
    idx[i] = max_pool_output<T>(g, i, lx, best);
    st(y, dt, i, best);
  }
}

// A warp per output (windows of up to 4096 taps: one tree chunk, lane l taking taps l, l+32, ...).
template <typename T>
__global__ void avg_pool_warp_k(const void* x, int dt, void* y, WindowSpec g, bool include_pad, std::uint64_t total) {
  auto lx = [&](std::uint64_t o) { return ld<T>(x, dt, o); };
  const std::uint64_t taps = g.h.k * g.w.k, warps = (static_cast<std::uint64_t>(gridDim.x) * blockDim.x) >> 5;
  for (std::uint64_t i = (blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x) >> 5; i < total; i += warps) {
    PoolOutput o = pool_output(g, i);
    T s = warp_reduce([&](std::uint64_t j) { return avg_pool_tap<T>(g, o, j, lx); }, taps, num::Add{}, T(0));
    if ((threadIdx.x & 31u) == 0) st(y, dt, i, avg_pool_mean(s, g, o, include_pad));
  }
}

// A block per output (windows of more than 4096 taps, up to 4096^2: chunks, then their sum).
template <typename T>
__global__ void avg_pool_block_k(const void* x, int dt, void* y, WindowSpec g, bool include_pad, std::uint64_t total) {
  __shared__ T part[kChunk + 1];
  auto lx = [&](std::uint64_t o) { return ld<T>(x, dt, o); };
  const std::uint64_t taps = g.h.k * g.w.k;
  for (std::uint64_t i = blockIdx.x; i < total; i += gridDim.x) {
    PoolOutput o = pool_output(g, i);
    T s = block_reduce([&](std::uint64_t j) { return avg_pool_tap<T>(g, o, j, lx); }, taps, num::Add{}, T(0), part);
    if (threadIdx.x == 0) st(y, dt, i, avg_pool_mean(s, g, o, include_pad));
  }
}

}  // namespace

int launch_conv(const void* x, const void* w, const void* b, int dtype, void* y, const ConvSpec& c, Stream s) {
  std::uint64_t total = c.N * c.M * c.g.h.out * c.g.w.out;
  if (total == 0) return 0;
  auto cs = static_cast<cudaStream_t>(s);
  if (dtype == F64)
    conv_k<double><<<blocks_for(total, 128), 128, 0, cs>>>(x, w, b, dtype, y, c, total);
  else
    conv_k<float><<<blocks_for(total, 128), 128, 0, cs>>>(x, w, b, dtype, y, c, total);
  return launch_status();
}

int launch_max_pool(const void* x, int dtype, void* y, std::int64_t* idx, std::uint64_t planes, const WindowSpec& g, Stream s) {
  std::uint64_t total = planes * g.h.out * g.w.out;
  if (total == 0) return 0;
  auto cs = static_cast<cudaStream_t>(s);
  if (dtype == F64)
    max_pool_k<double><<<blocks_for(total, 256), 256, 0, cs>>>(x, dtype, y, idx, g, total);
  else
    max_pool_k<float><<<blocks_for(total, 256), 256, 0, cs>>>(x, dtype, y, idx, g, total);
  return launch_status();
}

int launch_avg_pool(const void* x, int dtype, void* y, std::uint64_t planes, const WindowSpec& g, bool include_pad, Stream s) {
  std::uint64_t total = planes * g.h.out * g.w.out;
  if (total == 0) return 0;
  auto cs = static_cast<cudaStream_t>(s);
  if (g.h.k * g.w.k <= kChunk) {
    unsigned blocks = blocks_for(total, 256 / 32);  // 8 warps a block, a warp per output
    if (dtype == F64)
      avg_pool_warp_k<double><<<blocks, 256, 0, cs>>>(x, dtype, y, g, include_pad, total);
    else
      avg_pool_warp_k<float><<<blocks, 256, 0, cs>>>(x, dtype, y, g, include_pad, total);
  } else {
    unsigned blocks = blocks_for(total, 1);
    if (dtype == F64)
      avg_pool_block_k<double><<<blocks, 256, 0, cs>>>(x, dtype, y, g, include_pad, total);
    else
      avg_pool_block_k<float><<<blocks, 256, 0, cs>>>(x, dtype, y, g, include_pad, total);
  }
  return launch_status();
}

}  // namespace rung::cuda
