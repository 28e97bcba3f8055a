// The wasm GEMM kernels as one freestanding module (clang --target=wasm32, no libc), for
// bench/wasm/parity.mjs (bits against the native fma chain) and bench.mjs (speed). Kernels:
//   0 exact      src/backends/cpu/wasm/exact_gemm.h's tiles, counted by form (tiles())
//   5 exact      the same through its gemm_f32, uncounted: what the engine's cpu backend runs
//   1 rounding2  the same tile without its test: s rounded to float, double rounding
//                (wrong on midpoints: proves the test data reaches them)
//   2 odd        exact_gemm.h's round-to-odd tile alone (its fallback), branch-free
//   3 soft       fma_f32_soft lane by lane (the engine's path before the tile)
//   4 unfused    f32x4 a*b + c (tier fast candidate, not exact), row-major operands only
#include "backends/cpu/wasm/exact_gemm.h"
#include "unfused_gemm.h"

namespace wg = rung::cpu::wasm_gemm;

namespace {

constexpr std::size_t kMaxElems = 1024 * 1024;
alignas(16) float g_buf[3][kMaxElems];
alignas(16) double g_pa[wg::kPackedAElems];
alignas(16) double g_pb[wg::kPackedBElems];
alignas(16) float g_upa[rung::bench::wasm_unfused::kMR * rung::bench::wasm_unfused::kKC];
alignas(16) float g_upb[rung::bench::wasm_unfused::kKC * (1024 + 8)];
wg::TileCounts g_counts;

// tile_fast with the test left out: every step rounds s to float.
void tile_rounding2(std::size_t kc, const double* pa, const double* pb, float* c, std::size_t ldc, bool first, const wg::BlockForm&) {
  v128_t acc[wg::kMR][wg::kNV];
  for (std::size_t r = 0; r < wg::kMR; ++r)
    for (std::size_t v = 0; v < wg::kNV; ++v)
      acc[r][v] = first ? wasm_f64x2_splat(0.0) : wasm_f64x2_promote_low_f32x4(wasm_v128_load64_zero(c + r * ldc + 2 * v));
  for (std::size_t k = 0; k < kc; ++k)
    for (std::size_t r = 0; r < wg::kMR; ++r) {
      const v128_t a = wasm_v128_load64_splat(pa + k * wg::kMR + r);
      for (std::size_t v = 0; v < wg::kNV; ++v) {
        v128_t s = wasm_f64x2_add(wasm_f64x2_mul(a, wasm_v128_load(pb + k * wg::kNR + 2 * v)), acc[r][v]);
        acc[r][v] = wg::convert_to_f32(s);
      }
    }
  for (std::size_t r = 0; r < wg::kMR; ++r)
    for (std::size_t v = 0; v < wg::kNV; ++v) wasm_v128_store64_lane(c + r * ldc + 2 * v, wasm_f32x4_demote_f64x2_zero(acc[r][v]), 0);
}

void tile_exact_counted(std::size_t kc, const double* pa, const double* pb, float* c, std::size_t ldc, bool first,
                        const wg::BlockForm& form) {
  wg::tile(kc, pa, pb, c, ldc, first, form, &g_counts);
}

// fma_f32_soft lane by lane: the engine's path before these tiles.
void tile_soft(std::size_t kc, const double* pa, const double* pb, float* c, std::size_t ldc, bool first,
               const wg::BlockForm&) {
  for (std::size_t r = 0; r < wg::kMR; ++r)
    for (std::size_t j = 0; j < wg::kNR; ++j) {
      float acc = first ? 0.0f : c[r * ldc + j];
      for (std::size_t k = 0; k < kc; ++k)
        acc = rung::num::fma_f32_soft(static_cast<float>(pa[k * wg::kMR + r]), static_cast<float>(pb[k * wg::kNR + j]), acc);
      c[r * ldc + j] = acc;
    }
}

void tile_odd(std::size_t kc, const double* pa, const double* pb, float* c, std::size_t ldc, bool first,
              const wg::BlockForm&) {
  wg::tile_odd(kc, pa, pb, c, ldc, first);
}

}  // namespace

extern "C" {
float* buffer(int i) { return g_buf[i]; }
std::size_t buffer_elems() { return kMaxElems; }

// C (buffer 2) = A (buffer 0) B (buffer 1), or C + A B with `accumulate`, by kernel `kernel`
// (the list above). Returns 0, or -1 for a kernel or layout this module does not have.
int gemm(int kernel, std::size_t M, std::size_t N, std::size_t K, std::size_t a_rs, std::size_t a_ks, std::size_t b_ks,
         std::size_t b_cs, std::size_t ldc, int accumulate) {
  const float* a = g_buf[0];
  const float* b = g_buf[1];
  float* c = g_buf[2];
  g_counts = {};
  switch (kernel) {
    case 0: wg::gemm_blocked(M, N, K, a, a_rs, a_ks, b, b_ks, b_cs, c, ldc, accumulate, g_pa, g_pb, tile_exact_counted); break;
    case 1: wg::gemm_blocked(M, N, K, a, a_rs, a_ks, b, b_ks, b_cs, c, ldc, accumulate, g_pa, g_pb, tile_rounding2); break;
    case 2: wg::gemm_blocked(M, N, K, a, a_rs, a_ks, b, b_ks, b_cs, c, ldc, accumulate, g_pa, g_pb, tile_odd); break;
    case 3: wg::gemm_blocked(M, N, K, a, a_rs, a_ks, b, b_ks, b_cs, c, ldc, accumulate, g_pa, g_pb, tile_soft); break;
    case 4:
      if (a_rs != K || a_ks != 1 || b_ks != N || b_cs != 1 || ldc != N || accumulate || N > 1024) return -1;
      rung::bench::wasm_unfused::gemm(M, N, K, a, b, c, g_upa, g_upb);
      break;
    case 5: wg::gemm_f32(M, N, K, a, a_rs, a_ks, b, b_ks, b_cs, c, ldc, accumulate, g_pa, g_pb); break;
    default: return -1;
  }
  return 0;
}
// The exact kernel's tiles of the last gemm() by form: 0 integer, 1 convert, 2 convert with
// the tiny-sum test, 3 redone by round-to-odd.
unsigned long tiles(int form) {
  const unsigned long n[] = {g_counts.integer, g_counts.convert, g_counts.convert_tiny, g_counts.odd};
  return form >= 0 && form < 4 ? n[form] : 0;
}
}
