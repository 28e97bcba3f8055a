// matmul and linear as docs/semantics.md §6 defines them: one fma chain per output over k
// in increasing order from +0 (ops/numerics/dot.h), batch dims broadcast. Under __wasm__
// num::fma_f32 is rung's exact soft fma, so the chain has the fused instruction's bits.
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

inline void matmul_f32(const float* A, const float* B, float* Y, const MatmulShape& s) {
  u32 M = s.ta ? s.ca : s.ra, K = s.ta ? s.ra : s.ca, N = s.tb ? s.rb : s.cb;
  u32 a_row = s.ta ? 1 : s.ca, a_k = s.ta ? s.ca : 1;
  u32 b_k = s.tb ? 1 : s.cb, b_col = s.tb ? s.cb : 1;
  u32 mat_a = s.ra * s.ca, mat_b = s.rb * s.cb, mat_y = M * N;
  const u32* strides[2] = {s.sa, s.sb};
  walk<2>(s.batch_rank, s.batch, strides, [&](u64 bi, const u32* o) {
    const float* a = A + o[0] * mat_a;
    const float* b = B + o[1] * mat_b;
    float* y = Y + static_cast<u32>(bi) * mat_y;
    for (u32 i = 0; i < M; ++i)
      for (u32 j = 0; j < N; ++j) {
        const float* ai = a + i * a_row;
        const float* bj = b + j * b_col;
        y[i * N + j] = canonical(num::dot_chain_f32(
            K, [&](u64 k) { return ai[k * a_k]; }, [&](u64 k) { return bj[k * b_k]; }));
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
