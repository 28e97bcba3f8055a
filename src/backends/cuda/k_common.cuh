// Device-side helpers shared by the kernels: element loads and stores for every plain dtype
// (f16/bf16 widen exactly to f32 and narrow with one RNE rounding, as HostTensor does),
// NaN canonicalisation at every float store (docs/semantics.md §2), index arithmetic.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "backends/cuda/device_api.h"
#include "ops/numerics/half.h"
#include "ops/numerics/ieee.h"

namespace rung::cuda {

enum DT : int { F32 = 1, F16 = 2, BF16 = 3, F64 = 4, I64 = 5, I32 = 6, I16 = 7, I8 = 8, U64 = 9, U32 = 10,
                U16 = 11, U8 = 12, BOOL = 13 };

__host__ __device__ inline int dtype_bytes(int dt) {
  switch (dt) {
    case F64: case I64: case U64: return 8;
    case F32: case I32: case U32: return 4;
    case F16: case BF16: case I16: case U16: return 2;
    default: return 1;
  }
}

template <typename T> __device__ inline T ld(const void* p, int dt, std::uint64_t i);
template <> __device__ inline float ld<float>(const void* p, int dt, std::uint64_t i) {
  if (dt == F32) return static_cast<const float*>(p)[i];
  std::uint16_t h = static_cast<const std::uint16_t*>(p)[i];
  return dt == F16 ? num::f32_from_f16(h) : num::f32_from_bf16(h);
}
template <> __device__ inline double ld<double>(const void* p, int, std::uint64_t i) {
  return static_cast<const double*>(p)[i];
}
template <> __device__ inline bool ld<bool>(const void* p, int, std::uint64_t i) {
  return static_cast<const std::uint8_t*>(p)[i] != 0;
}
#define RUNG_LD_INT(T) \
  template <> __device__ inline T ld<T>(const void* p, int, std::uint64_t i) { return static_cast<const T*>(p)[i]; }
RUNG_LD_INT(std::int64_t)
RUNG_LD_INT(std::int32_t)
RUNG_LD_INT(std::int16_t)
RUNG_LD_INT(std::int8_t)
RUNG_LD_INT(std::uint64_t)
RUNG_LD_INT(std::uint32_t)
RUNG_LD_INT(std::uint16_t)
RUNG_LD_INT(std::uint8_t)
#undef RUNG_LD_INT

__device__ inline float canon(float v) { return num::is_nan(v) ? num::nan_f32() : v; }
__device__ inline double canon(double v) { return num::is_nan(v) ? num::nan_f64() : v; }

template <typename T> __device__ inline void st(void* p, int dt, std::uint64_t i, T v) {
  if constexpr (std::is_same_v<T, float>) {
    if (dt == F32) static_cast<float*>(p)[i] = canon(v);
    else if (dt == F16) static_cast<std::uint16_t*>(p)[i] = num::f16_from_f32(v);
    else static_cast<std::uint16_t*>(p)[i] = num::bf16_from_f32(v);
  } else if constexpr (std::is_same_v<T, double>) {
    static_cast<double*>(p)[i] = canon(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    static_cast<std::uint8_t*>(p)[i] = v ? 1 : 0;
  } else {
    static_cast<T*>(p)[i] = v;
  }
}

// Any float dtype widened exactly to double (casts); stores round once from double.
__device__ inline double ld_f64(const void* p, int dt, std::uint64_t i) {
  return dt == F64 ? static_cast<const double*>(p)[i] : static_cast<double>(ld<float>(p, dt, i));
}
__device__ inline void st_f64(void* p, int dt, std::uint64_t i, double v) {
  if (dt == F64) static_cast<double*>(p)[i] = canon(v);
  else if (dt == F32) static_cast<float*>(p)[i] = canon(static_cast<float>(v));
  else if (dt == F16) static_cast<std::uint16_t*>(p)[i] = num::f16_from_f64(v);
  else static_cast<std::uint16_t*>(p)[i] = num::bf16_from_f64(v);
}

// Offset of row-major element `i` of `d` under `stride`.
__device__ inline std::int64_t offset_of(std::uint64_t i, const Dims& d, const std::int64_t* stride) {
  std::int64_t off = 0;
  for (int k = d.rank - 1; k >= 0; --k) {
    std::uint64_t e = d.ext[k];
    off += static_cast<std::int64_t>(i % e) * stride[k];
    i /= e;
  }
  return off;
}

// Blocks for a grid-stride loop over n items. Capped: each thread's set-up (kernel parameters
// whose arrays are indexed at run time live in local memory) is paid once per thread, so
// fewer threads that loop beat one thread per element by far on large tensors.
inline unsigned blocks_for(std::uint64_t n, unsigned threads) {
  std::uint64_t b = (n + threads - 1) / threads;
  return static_cast<unsigned>(b < 1 ? 1 : (b > 4096 ? 4096 : b));
}

// Grid-stride loop over n elements.
#define RUNG_GRID_LOOP(i, n)                                                                    \
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < (n); \
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x)

inline int launch_status() { return static_cast<int>(cudaGetLastError()); }

// Calls fn(T{}) with the type kernels compute in for dtype `dt` (f16/bf16 widen exactly to
// float); bool only where the caller's ops take it. Another dtype is cudaErrorInvalidValue.
template <bool kWithBool = false, typename Fn> inline int with_value_type(int dt, Fn&& fn) {
  switch (dt) {
    case F32: case F16: case BF16: return fn(float{});
    case F64: return fn(double{});
    case I64: return fn(std::int64_t{});
    case I32: return fn(std::int32_t{});
    case I16: return fn(std::int16_t{});
    case I8: return fn(std::int8_t{});
    case U64: return fn(std::uint64_t{});
    case U32: return fn(std::uint32_t{});
    case U16: return fn(std::uint16_t{});
    case U8: return fn(std::uint8_t{});
    case BOOL:
      if constexpr (kWithBool) return fn(bool{});
      return static_cast<int>(cudaErrorInvalidValue);
    default: return static_cast<int>(cudaErrorInvalidValue);
  }
}

}  // namespace rung::cuda
