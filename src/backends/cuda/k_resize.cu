// resize passes: the reference's definition (ops/kernels_resize.cpp) with the same operation
// order. The tables (source index, weight, outside flag per output coordinate) come from the
// host's ops::resize_axes, weights already rounded to the compute type; products and sums use
// the _rn intrinsics, so nothing is contracted whatever the compiler flags.
#include "backends/cuda/device_api_resize.h"
#include "backends/cuda/k_common.cuh"

namespace rung::cuda {
namespace {

__device__ inline float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ inline double mul_rn(double a, double b) { return __dmul_rn(a, b); }
__device__ inline float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ inline double add_rn(double a, double b) { return __dadd_rn(a, b); }

template <typename C>
__global__ void resize_pass_k(const void* x, int xdt, void* y, int ydt, const std::int64_t* index, const C* weight,
                              const std::uint8_t* outside, ResizePass p, std::uint64_t n) {
  RUNG_GRID_LOOP(i, n) {
    std::uint64_t q = i % p.post, o = (i / p.post) % p.out, pre = i / (p.post * p.out);
    C acc;
    if (outside[o]) {
      acc = static_cast<C>(p.ext);
    } else {
      acc = C(-0.0);  // -0 + v = v: the first product is kept exactly
      for (int t = 0; t < p.taps; ++t) {
        C w = weight[o * p.taps + t];
        if (w == C(0)) continue;
        C v = ld<C>(x, xdt, (pre * p.in + static_cast<std::uint64_t>(index[o * p.taps + t])) * p.post + q);
        acc = add_rn(acc, mul_rn(w, v));
      }
    }
    st<C>(y, ydt, i, acc);
  }
}

__global__ void resize_nearest_k(const void* x, void* y, int bytes, const std::int64_t* index, const std::uint8_t* outside,
                                 std::uint64_t ext_bits, ResizePass p, std::uint64_t n) {
  RUNG_GRID_LOOP(i, n) {
    std::uint64_t q = i % p.post, o = (i / p.post) % p.out, pre = i / (p.post * p.out);
    std::uint64_t src = (pre * p.in + static_cast<std::uint64_t>(index[o])) * p.post + q;
    switch (bytes) {
      case 8: static_cast<std::uint64_t*>(y)[i] = outside[o] ? ext_bits : static_cast<const std::uint64_t*>(x)[src]; break;
      case 4: static_cast<std::uint32_t*>(y)[i] = outside[o] ? static_cast<std::uint32_t>(ext_bits) : static_cast<const std::uint32_t*>(x)[src]; break;
      case 2: static_cast<std::uint16_t*>(y)[i] = outside[o] ? static_cast<std::uint16_t>(ext_bits) : static_cast<const std::uint16_t*>(x)[src]; break;
      default: static_cast<std::uint8_t*>(y)[i] = outside[o] ? static_cast<std::uint8_t>(ext_bits) : static_cast<const std::uint8_t*>(x)[src]; break;
    }
  }
}

}  // namespace

int launch_resize_pass(const void* x, int x_dtype, void* y, int y_dtype, const std::int64_t* index, const void* weight,
                       const std::uint8_t* outside, const ResizePass& p, Stream s) {
  std::uint64_t n = p.pre * p.out * p.post;
  if (n == 0) return 0;
  auto st_ = static_cast<cudaStream_t>(s);
  if (y_dtype == F64)
    resize_pass_k<double><<<blocks_for(n, 256), 256, 0, st_>>>(x, x_dtype, y, y_dtype, index, static_cast<const double*>(weight),
                                                               outside, p, n);
  else
    resize_pass_k<float><<<blocks_for(n, 256), 256, 0, st_>>>(x, x_dtype, y, y_dtype, index, static_cast<const float*>(weight),
                                                              outside, p, n);
  return launch_status();
}

int launch_resize_nearest(const void* x, void* y, int elem_bytes, const std::int64_t* index, const std::uint8_t* outside,
                          std::uint64_t ext_bits, const ResizePass& p, Stream s) {
  std::uint64_t n = p.pre * p.out * p.post;
  if (n == 0) return 0;
  resize_nearest_k<<<blocks_for(n, 256), 256, 0, static_cast<cudaStream_t>(s)>>>(x, y, elem_bytes, index, outside, ext_bits, p, n);
  return launch_status();
}

}  // namespace rung::cuda
