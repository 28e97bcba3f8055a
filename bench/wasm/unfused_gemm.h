// The unfused f32x4 GEMM: a*b + c rounded twice per step, the tier-fast candidate (its bits
// differ from the fma chain; bench/wasm/ measures its speed and how often it differs). A
// kMR x 8 tile of f32x4 accumulators over f32 panels packed like exact_gemm.h's.
#pragma once

#include <cstddef>
#include <wasm_simd128.h>

namespace rung::bench::wasm_unfused {

inline constexpr std::size_t kMR = 6, kNR = 8, kKC = 256;

inline std::size_t min_size(std::size_t x, std::size_t y) { return x < y ? x : y; }

inline void tile(std::size_t kc, const float* pa, const float* pb, float* c, std::size_t ldc, bool first) {
  v128_t acc[kMR][2];
#pragma clang loop unroll(full)
  for (std::size_t r = 0; r < kMR; ++r) {
    acc[r][0] = first ? wasm_f32x4_splat(0.0f) : wasm_v128_load(c + r * ldc);
    acc[r][1] = first ? wasm_f32x4_splat(0.0f) : wasm_v128_load(c + r * ldc + 4);
  }
  for (std::size_t k = 0; k < kc; ++k) {
    const v128_t b0 = wasm_v128_load(pb + k * kNR), b1 = wasm_v128_load(pb + k * kNR + 4);
#pragma clang loop unroll(full)
    for (std::size_t r = 0; r < kMR; ++r) {
      const v128_t a = wasm_v128_load32_splat(pa + k * kMR + r);
      acc[r][0] = wasm_f32x4_add(wasm_f32x4_mul(a, b0), acc[r][0]);
      acc[r][1] = wasm_f32x4_add(wasm_f32x4_mul(a, b1), acc[r][1]);
    }
  }
#pragma clang loop unroll(full)
  for (std::size_t r = 0; r < kMR; ++r) {
    wasm_v128_store(c + r * ldc, acc[r][0]);
    wasm_v128_store(c + r * ldc + 4, acc[r][1]);
  }
}

// C = A B for row-major A (M x K), B (K x N), C (M x N); pa: kMR * kKC floats per row strip
// (M rounded up), pb: kKC * N (rounded up to kNR) floats.
inline void gemm(std::size_t M, std::size_t N, std::size_t K, const float* a, const float* b, float* c, float* pa,
                 float* pb) {
  alignas(16) float edge[kMR * kNR];
  for (std::size_t pc = 0; pc < K; pc += kKC) {
    const std::size_t kc = min_size(kKC, K - pc);
    const bool first = pc == 0;
    for (std::size_t jr = 0; jr < N; jr += kNR)
      for (std::size_t k = 0; k < kc; ++k)
        for (std::size_t j = 0; j < kNR; ++j) pb[jr * kc + k * kNR + j] = jr + j < N ? b[(pc + k) * N + jr + j] : 0.0f;
    for (std::size_t ir = 0; ir < M; ir += kMR) {
      const std::size_t mr = min_size(kMR, M - ir);
      for (std::size_t k = 0; k < kc; ++k)
        for (std::size_t r = 0; r < kMR; ++r) pa[k * kMR + r] = r < mr ? a[(ir + r) * K + pc + k] : 0.0f;
      for (std::size_t jr = 0; jr < N; jr += kNR) {
        const std::size_t nr = min_size(kNR, N - jr);
        float* cp = c + ir * N + jr;
        if (mr == kMR && nr == kNR) {
          tile(kc, pa, pb + jr * kc, cp, N, first);
          continue;
        }
        for (std::size_t r = 0; r < kMR; ++r)
          for (std::size_t j = 0; j < kNR; ++j) edge[r * kNR + j] = (!first && r < mr && j < nr) ? cp[r * N + j] : 0.0f;
        tile(kc, pa, pb + jr * kc, edge, kNR, first);
        for (std::size_t r = 0; r < mr; ++r)
          for (std::size_t j = 0; j < nr; ++j) cp[r * N + j] = edge[r * kNR + j];
      }
    }
  }
}

}  // namespace rung::bench::wasm_unfused
