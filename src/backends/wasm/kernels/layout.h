// Shape ops as bit copies (NaNs canonicalised): reshape (the same elements), transpose and broadcast_to (a strided
// walk of the input; a slice's strides may be negative, held modulo 2^32), concat (each
// operand scattered into its part of the result) and iota (the index along one axis, in f32).
#pragma once

#include <cstring>

#include "backends/wasm/kernels/base.h"

namespace rung::wasm_kernels {

inline void copy_bytes(const unsigned char* x, unsigned char* y, u32 bytes) { std::memmove(y, x, bytes); }

// A float tensor's copy (reshape, a cast to its own type): NaNs leave canonical, as from every op.
template <class T> void copy_canonical(const T* x, T* y, u32 n) {
  for (u32 i = 0; i < n; ++i) y[i] = canonical(x[i]);
}

// y (row-major over `shape`) takes x's element at x's strides permuted or broadcast.
template <class T> void gather_strided(const T* x, T* y, u32 rank, const u32* shape, const u32* sx) {
  const u32* strides[1] = {sx};
  walk<1>(rank, shape, strides, [&](u64 i, const u32* off) { y[i] = canonical(x[off[0]]); });
}

// The reverse of gather_strided: x (row-major over `shape`) written into y at y's strides
// (concat places each operand so).
template <class T> void scatter_strided(const T* x, T* y, u32 rank, const u32* shape, const u32* sy) {
  const u32* strides[1] = {sy};
  walk<1>(rank, shape, strides, [&](u64 i, const u32* off) { y[off[0]] = canonical(x[i]); });
}

inline void iota_f32(float* y, u32 rank, const u32* shape, u32 axis) {
  u32 inner = 1, total = 1;
  for (u32 d = axis + 1; d < rank; ++d) inner *= shape[d];
  for (u32 d = 0; d < rank; ++d) total *= shape[d];
  for (u32 i = 0; i < total; ++i) y[i] = static_cast<float>(i / inner % shape[axis]);
}

}  // namespace rung::wasm_kernels
