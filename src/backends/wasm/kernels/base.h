// What every kernel of a generated wasm module shares: index types, NaN canonicalisation at
// the store (docs/semantics.md §2: every output NaN is the format's canonical quiet NaN) and
// the row-major broadcast walk. Freestanding: built with clang --target=wasm32 -nostdlib.
#pragma once

#include <cstdint>

#include "ops/numerics/portable.h"

namespace rung::wasm_kernels {

using u32 = std::uint32_t;
using u64 = std::uint64_t;
inline constexpr u32 kMaxRank = 8;

inline float canonical(float v) { return num::is_nan(v) ? num::nan_f32() : v; }
inline double canonical(double v) { return num::is_nan(v) ? num::nan_f64() : v; }
template <class T> inline T canonical(T v) { return v; }  // integers and bool have no NaN

// Calls f(i, off) for every index i of `shape` in row-major order, off[k] being operand k's
// element offset (its strides are 0 along the dims it is broadcast in).
template <u32 K, class F> void walk(u32 rank, const u32* shape, const u32* const* strides, F&& f) {
  u64 total = 1;
  for (u32 d = 0; d < rank; ++d) total *= shape[d];
  u32 idx[kMaxRank] = {};
  u32 off[K] = {};
  for (u64 i = 0; i < total; ++i) {
    f(i, off);
    for (u32 d = rank; d-- > 0;) {
      ++idx[d];
      for (u32 k = 0; k < K; ++k) off[k] += strides[k][d];
      if (idx[d] < shape[d]) break;
      for (u32 k = 0; k < K; ++k) off[k] -= strides[k][d] * shape[d];
      idx[d] = 0;
    }
  }
}

}  // namespace rung::wasm_kernels
