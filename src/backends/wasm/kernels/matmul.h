// matmul and linear as docs/semantics.md §6 defines them: one fma chain per output over k
// in increasing order from +0 (ops/numerics/dot.h), batch dims broadcast. Under __wasm__
// num::fma_f32 is rung's exact soft fma, so the chain has the fused instruction's bits;
// matmul takes its steps kTile outputs at a time with the same result (chain_step).
#pragma once

#include "backends/wasm/kernels/base.h"
#include "ops/numerics/dot.h"

namespace rung::wasm_kernels {

struct MatmulShape {
  u32 ra, ca, rb, cb;  // the last two dims of a and b as stored
  bool ta, tb;
  u32 batch_rank;
  const u32* batch;  // the output's batch dims
  const u32* sa;     // a's and b's strides over them, in matrices (0: broadcast)
  const u32* sb;
};

// One step of the fma chain for up to kTile outputs at once, in binary64: s = a*b + acc is
// the exact product plus one rounding, and rounding s to float is the fused result unless s
// is a float midpoint (its low 29 bits 0x10000000) or below the normal float range, where
// fma_f32_soft (the reference's fma under __wasm__, ops/numerics/ieee.h) redoes the step.
// NaN and inf need no redo: fma_f32_soft returns (float)s for them too. The loops have no
// branch in them, so clang vectorises them in f64x2 lanes; the redo is rare.
inline constexpr u32 kTile = 8;

inline bool needs_exact_step(double s) {
  u64 u = num::bits_of(s);
  u32 biased = static_cast<u32>(u >> 52) & 0x7FF;
  return (u & 0x1FFFFFFFull) == 0x10000000ull || biased < 1023 - 126;
}

// acc[l] (floats held exactly as doubles) continues its chain by a * b[l * b_col].
inline void chain_step(u32 width, float a, const float* b, u32 b_col, double* acc) {
  double s[kTile];
  bool hit = false;
  for (u32 l = 0; l < width; ++l) s[l] = static_cast<double>(a) * static_cast<double>(b[l * b_col]) + acc[l];
  for (u32 l = 0; l < width; ++l) hit |= needs_exact_step(s[l]);
  if (hit)
    for (u32 l = 0; l < width; ++l)
      if (needs_exact_step(s[l])) s[l] = num::fma_f32_soft(a, b[l * b_col], static_cast<float>(acc[l]));
  for (u32 l = 0; l < width; ++l) acc[l] = static_cast<double>(static_cast<float>(s[l]));
}

// One product's sizes and the element strides of a and b as stored (transposed or not).
struct MatmulDims {
  u32 M, K, N;
  u32 a_row, a_k, b_k, b_col;
};

// body(a, b, y, dims) for each output matrix, a and b broadcast over the batch dims.
template <class T, class Body>
void for_each_product(const T* A, const T* B, T* Y, const MatmulShape& s, Body&& body) {
  MatmulDims d{s.ta ? s.ca : s.ra, s.ta ? s.ra : s.ca, s.tb ? s.rb : s.cb,
               s.ta ? 1 : s.ca,    s.ta ? s.ca : 1,    s.tb ? 1 : s.cb, s.tb ? s.cb : 1};
  u32 mat_a = s.ra * s.ca, mat_b = s.rb * s.cb, mat_y = d.M * d.N;
  const u32* strides[2] = {s.sa, s.sb};
  walk<2>(s.batch_rank, s.batch, strides,
          [&](u64 bi, const u32* o) { body(A + o[0] * mat_a, B + o[1] * mat_b, Y + static_cast<u32>(bi) * mat_y, d); });
}

inline void matmul_f32(const float* A, const float* B, float* Y, const MatmulShape& s) {
  for_each_product(A, B, Y, s, [](const float* a, const float* b, float* y, const MatmulDims& d) {
    for (u32 i = 0; i < d.M; ++i)
      for (u32 j0 = 0; j0 < d.N; j0 += kTile) {
        u32 width = d.N - j0 < kTile ? d.N - j0 : kTile;
        double acc[kTile] = {};  // each chain starts at +0
        for (u32 k = 0; k < d.K; ++k) chain_step(width, a[i * d.a_row + k * d.a_k], b + k * d.b_k + j0 * d.b_col, d.b_col, acc);
        for (u32 l = 0; l < width; ++l) y[i * d.N + j0 + l] = canonical(static_cast<float>(acc[l]));
      }
  });
}

// f64: the same chain in binary64 (num::fma_f64, rung's soft binary64 fma under __wasm__),
// one output at a time.
inline void matmul_f64(const double* A, const double* B, double* Y, const MatmulShape& s) {
  for_each_product(A, B, Y, s, [](const double* a, const double* b, double* y, const MatmulDims& d) {
    for (u32 i = 0; i < d.M; ++i)
      for (u32 j = 0; j < d.N; ++j) {
        const double* ai = a + i * d.a_row;
        const double* bj = b + j * d.b_col;
        y[i * d.N + j] = canonical(num::dot_chain_f64(d.K, [&](u64 k) { return ai[k * d.a_k]; }, [&](u64 k) { return bj[k * d.b_k]; }));
      }
  });
}

// linear(x, W, b): the chain of each row of x with each row of W ([N, K]), then + b[n] as a
// separate rounded addition. `bias` may be null.
inline void linear_f32(const float* X, const float* W, const float* bias, float* Y, u32 rows, u32 N, u32 K) {
  for (u32 r = 0; r < rows; ++r)
    for (u32 n = 0; n < N; ++n) {
      const float* x = X + r * K;
      const float* w = W + n * K;
      float acc = num::dot_chain_f32(K, [&](u64 k) { return x[k]; }, [&](u64 k) { return w[k]; });
      if (bias) acc = acc + bias[n];
      Y[r * N + n] = canonical(acc);
    }
}

}  // namespace rung::wasm_kernels
