// The exact f32 GEMM for WebAssembly SIMD128, which has no fused multiply-add: each C element
// is the chain of binary32 fmas over k in increasing order (from +0, or from C's value), the
// bits of x86-64's fused chain. simd_gemm.cpp takes it on Highway's HWY_WASM target; the
// freestanding harness in bench/wasm/ runs the same code under node against the native chain.
//
// Why it is fast and still exact: the accumulators are floats held in f64x2 lanes and A and B
// are packed as doubles. The product of two floats is exact in binary64, so s = a*b + c rounds
// once, and rounding s to float is the correct fma except in two cases (docs/wasm-gemm.md):
//  - s is exactly a float midpoint (its low 29 bits are 0x10000000) but a*b + c is not;
//  - s lies in the float subnormal range, where the float grid is coarser than 24 bits.
// The second cannot happen when every product is a multiple of 2^-149 (then so is every sum,
// and a sum below 2^-126 is a float, exactly): packing checks that from the exponents, and
// only blocks that fail it test `0 < |s| < 2^-126` too. The test is gathered over chunks of
// kChunk k-steps; if any lane of the tile hit, the chunk is recomputed by round-to-odd, which
// is exact for every input without a test (tile_odd; C still holds the chunk's start).
#pragma once

#include <cstddef>
#include <cstdint>
#include <wasm_simd128.h>

#include "ops/numerics/ieee.h"

namespace rung::cpu::wasm_gemm {

// A 4 x 4 register tile (8 f64x2 accumulators; V8 gives wasm 16 xmm registers on x86-64). A
// 2 x 4 tile measured the same: the tile is bound by the vector pipes, ~5.5 instructions per
// vector and step, not by latency or the few accumulators V8 spills.
inline constexpr std::size_t kMR = 4, kNV = 2, kNR = 2 * kNV;
// Blocking: a KC x NC block of packed B (512 KiB of doubles) stays in L2, an MC x KC block of
// packed A (128 KiB) too; one tile streams 8 KiB micro-panels of each.
inline constexpr std::size_t kKC = 256, kMC = 64, kNC = 256;
inline constexpr std::size_t kChunk = 64;  // k steps a refused tile redoes (tile() below)
inline constexpr std::size_t kPackedAElems = (kMC + kMR - 1) / kMR * kMR * kKC, kPackedBElems = kKC * kNC;

// What packing learns about a block, to pick the tile's form (tile() below).
struct BlockRange {
  // The smallest product grid decides whether sums can fall between float subnormals: x's
  // grid is 2^(key - 150), key = max(biased exponent, 1). Zeros (exact products), infinities
  // and NaN (not finite: the bound below sends them to the conversion form) do not count.
  unsigned min_key = 255;
  std::uint32_t max_abs_bits = 0;  // the largest |x| as bits: NaN compares above infinity
  void add(float x) {
    std::uint32_t u = num::bits_of(x) & 0x7FFFFFFFu;
    max_abs_bits = u > max_abs_bits ? u : max_abs_bits;
    if (u == 0 || u >= 0x7F800000u) return;
    std::uint32_t e = u >> 23;
    e = e == 0 ? 1 : e;
    min_key = e < min_key ? e : min_key;
  }
  double max_abs() const { return static_cast<double>(num::f32_from_bits(max_abs_bits)); }
};
// Every a*b is a multiple of 2^-149 when the two smallest grids' exponents sum to >= -149.
inline bool needs_tiny_test(const BlockRange& a, const BlockRange& b) { return a.min_key + b.min_key < 151; }

inline std::size_t min_size(std::size_t x, std::size_t y) { return x < y ? x : y; }

// Packs A[0:mc, 0:kc] (element (i, k) at a[i * a_rs + k * a_ks]) into kMR-tall panels of
// doubles (panel p at pa + p * kMR * kc, row k of it at + k * kMR), zero-padded at the
// bottom.
inline BlockRange pack_a(std::size_t mc, std::size_t kc, const float* a, std::size_t a_rs, std::size_t a_ks,
                         double* pa) {
  BlockRange range;
  for (std::size_t ir = 0; ir < mc; ir += kMR) {
    double* dst = pa + ir * kc;
    for (std::size_t r = 0; r < kMR; ++r) {
      if (ir + r >= mc) {
        for (std::size_t k = 0; k < kc; ++k) dst[k * kMR + r] = 0.0;
        continue;
      }
      const float* src = a + (ir + r) * a_rs;
      for (std::size_t k = 0; k < kc; ++k) {
        float x = src[k * a_ks];
        range.add(x);
        dst[k * kMR + r] = x;
      }
    }
  }
  return range;
}

// Packs B[0:kc, 0:nc] (element (k, j) at b[k * b_ks + j * b_cs]) into kNR-wide panels of
// doubles (panel p at pb + p * kNR * kc, row k of it at + k * kNR), zero-padded at the right.
inline BlockRange pack_b(std::size_t kc, std::size_t nc, const float* b, std::size_t b_ks, std::size_t b_cs,
                         double* pb) {
  BlockRange range;
  for (std::size_t jr = 0; jr < nc; jr += kNR) {
    double* dst = pb + jr * kc;
    for (std::size_t k = 0; k < kc; ++k) {
      const float* src = b + k * b_ks + jr * b_cs;
      for (std::size_t j = 0; j < kNR; ++j) {
        float x = jr + j < nc ? src[j * b_cs] : 0.0f;
        range.add(x);
        dst[k * kNR + j] = x;
      }
    }
  }
  return range;
}

// How a tile rounds each sum s to float (held in a double).
enum class Rounding {
  // f32x4.demote_f64x2_zero then f64x2.promote_low_f32x4: IEEE's conversion, right for
  // every s (infinities, NaN, overflow, the subnormal grid).
  kConvert,
  // Integer arithmetic on s's bits: add half a float ulp (2^28 in the low bits) and clear
  // the 29 bits below float precision. That is round-to-nearest for every s but the ties,
  // which the midpoint test sends to tile_odd; a carry moves into the exponent as it
  // should. It knows nothing of overflow nor of the subnormal grid: tile() takes it only
  // where |s| stays below 2^127 and no sum can fall between float subnormals.
  kInteger,
};

// s rounded to float and back by conversion. The empty asm keeps clang 14 from folding the
// pair into a scalar demote and promote per lane (4x the instructions); it emits nothing.
inline v128_t convert_to_f32(v128_t s) {
  v128_t f = wasm_f32x4_demote_f64x2_zero(s);
  __asm__("" : "+r"(f));
  return wasm_f64x2_promote_low_f32x4(f);
}

// Starts the tile's accumulators: +0 for a chain's first k-block, else c's floats as doubles.
inline void load_tile(v128_t (&acc)[kMR][kNV], const float* c, std::size_t ldc, bool first) {
#pragma clang loop unroll(full)
  for (std::size_t r = 0; r < kMR; ++r)
#pragma clang loop unroll(full)
    for (std::size_t v = 0; v < kNV; ++v)
      acc[r][v] = first ? wasm_f64x2_splat(0.0) : wasm_f64x2_promote_low_f32x4(wasm_v128_load64_zero(c + r * ldc + 2 * v));
}

// Stores the tile's accumulators (floats held in doubles) as floats, four per row at a time.
// The empty asm keeps clang 14 from turning the demotions into scalar ones per lane.
inline void store_tile(const v128_t (&acc)[kMR][kNV], float* c, std::size_t ldc) {
  static_assert(kNV % 2 == 0, "rows are stored four floats at a time");
#pragma clang loop unroll(full)
  for (std::size_t r = 0; r < kMR; ++r)
#pragma clang loop unroll(full)
    for (std::size_t v = 0; v < kNV; v += 2) {
      v128_t lo = wasm_f32x4_demote_f64x2_zero(acc[r][v]), hi = wasm_f32x4_demote_f64x2_zero(acc[r][v + 1]);
      __asm__("" : "+r"(lo), "+r"(hi));
      wasm_v128_store(c + r * ldc + 2 * v, wasm_i32x4_shuffle(lo, hi, 0, 1, 4, 5));
    }
}

// The tile's k-block in f64x2 lanes: c[0:kMR, 0:kNR] (row stride ldc) continued over kc
// steps. Returns false, leaving c as it was, when a lane met a case where its rounding of s
// may be wrong: a float midpoint (low 29 bits 0x10000000; the integer form tests its
// rounded-up bits t = s + 2^28, whose low 29 bits are then 0), and with kTinyTest a sum
// 0 < |s| < 2^-126.
template <Rounding kRounding, bool kTinyTest>
inline bool tile_fast(std::size_t kc, const double* pa, const double* pb, float* c, std::size_t ldc, bool first) {
  static_assert(kRounding == Rounding::kConvert || !kTinyTest, "the integer form has no subnormal grid");
  v128_t acc[kMR][kNV];
  load_tile(acc, c, ldc, first);
  // Shifted left by 3, a midpoint's low 29 bits are the sign bit alone (the integer form's
  // rounded-up bits: zero).
  const v128_t midpoint = wasm_i32x4_splat(static_cast<std::int32_t>(0x80000000u));
  const v128_t half_ulp = wasm_i64x2_splat(std::int64_t{1} << 28), float_bits = wasm_i64x2_splat(~std::int64_t{0x1FFFFFFF});
  const v128_t smallest_normal = wasm_f64x2_splat(0x1p-126), zero = wasm_f64x2_splat(0.0);
  v128_t hit = wasm_i32x4_splat(0), low_min = wasm_i32x4_splat(-1);
  for (std::size_t k = 0; k < kc; ++k) {
    v128_t b[kNV];
#pragma clang loop unroll(full)
    for (std::size_t v = 0; v < kNV; ++v) b[v] = wasm_v128_load(pb + k * kNR + 2 * v);
#pragma clang loop unroll(full)
    for (std::size_t r = 0; r < kMR; ++r) {
      const v128_t a = wasm_v128_load64_splat(pa + k * kMR + r);
      v128_t s[kNV];
#pragma clang loop unroll(full)
      for (std::size_t v = 0; v < kNV; ++v) {
        s[v] = wasm_f64x2_add(wasm_f64x2_mul(a, b[v]), acc[r][v]);
        if constexpr (kRounding == Rounding::kInteger) s[v] = wasm_i64x2_add(s[v], half_ulp);
      }
      // The low 32 bits of two vectors' four lanes side by side, shifted left by 3 (the low
      // 29 bits alone): one test for four sums. The integer form keeps their unsigned
      // minimum (a hit leaves a zero lane; 3 instructions per pair of vectors, measured 5-8%
      // faster). The conversion form counts its hits (a subtraction of the -1 masks), not
      // OR-ed: clang turns an OR of masks into a bitselect, which V8 expands into three
      // instructions.
#pragma clang loop unroll(full)
      for (std::size_t v = 0; v < kNV; v += 2) {
        v128_t low = wasm_i32x4_shl(wasm_i32x4_shuffle(s[v], s[v + 1], 0, 2, 4, 6), 3);
        if constexpr (kRounding == Rounding::kInteger) {
          low_min = wasm_u32x4_min(low_min, low);
        } else {
          __asm__("" : "+r"(low));  // else clang tests (x & 0x1FFFFFFF) == 0x10000000: one more constant
          hit = wasm_i32x4_sub(hit, wasm_i32x4_eq(low, midpoint));
        }
      }
      if constexpr (kTinyTest) {
#pragma clang loop unroll(full)
        for (std::size_t v = 0; v < kNV; ++v)
          hit = wasm_i32x4_sub(hit, wasm_v128_and(wasm_f64x2_lt(wasm_f64x2_abs(s[v]), smallest_normal),
                                                  wasm_f64x2_ne(s[v], zero)));
      }
#pragma clang loop unroll(full)
      for (std::size_t v = 0; v < kNV; ++v)
        acc[r][v] = kRounding == Rounding::kConvert ? convert_to_f32(s[v]) : wasm_v128_and(s[v], float_bits);
    }
  }
  if (kRounding == Rounding::kInteger) hit = wasm_i32x4_eq(low_min, wasm_i32x4_splat(0));
  if (wasm_v128_any_true(hit)) return false;
  store_tile(acc, c, ldc);
  return true;
}

// The same k-block by round-to-odd (fma_f32_odd, Boldo and Melquiond) in f64x2 lanes: s =
// p + c, TwoSum's exact error e; an inexact s with an even last bit moves one ulp towards e;
// one conversion to float is then correctly rounded, subnormals and overflow included.
// Branch-free and right for every input, but three times tile_fast's instructions: the path
// for the tiles tile_fast refused. Infinite and NaN sums are left as they are.
inline void tile_odd(std::size_t kc, const double* pa, const double* pb, float* c, std::size_t ldc, bool first) {
  v128_t acc[kMR][kNV];
  load_tile(acc, c, ldc, first);
  const v128_t one = wasm_i64x2_splat(1), zero = wasm_i64x2_splat(0), inf = wasm_f64x2_splat(__builtin_inf());
  for (std::size_t k = 0; k < kc; ++k) {
    v128_t b[kNV];
#pragma clang loop unroll(full)
    for (std::size_t v = 0; v < kNV; ++v) b[v] = wasm_v128_load(pb + k * kNR + 2 * v);
#pragma clang loop unroll(full)
    for (std::size_t r = 0; r < kMR; ++r) {
      const v128_t a = wasm_v128_load64_splat(pa + k * kMR + r);
#pragma clang loop unroll(full)
      for (std::size_t v = 0; v < kNV; ++v) {
        const v128_t p = wasm_f64x2_mul(a, b[v]), cv = acc[r][v];
        const v128_t s = wasm_f64x2_add(p, cv);
        const v128_t bv = wasm_f64x2_sub(s, p), av = wasm_f64x2_sub(s, bv);
        const v128_t e = wasm_f64x2_add(wasm_f64x2_sub(p, av), wasm_f64x2_sub(cv, bv));
        // +1 (away from zero) when e and s have the same sign, else -1
        const v128_t step = wasm_v128_or(wasm_i64x2_lt(wasm_v128_xor(e, s), zero), one);
        const v128_t fix = wasm_v128_and(wasm_v128_and(wasm_f64x2_ne(e, zero), wasm_f64x2_lt(wasm_f64x2_abs(s), inf)),
                                         wasm_i64x2_eq(wasm_v128_and(s, one), zero));
        acc[r][v] = convert_to_f32(wasm_i64x2_add(s, wasm_v128_and(step, fix)));
      }
    }
  }
  store_tile(acc, c, ldc);
}

// The form for one tile's k-block (what tile_fast needs to be right), then tile_odd if it
// refused. The integer form needs no sum between float subnormals (needs_tiny_test) and
// |s| < 2^127 at every step: |s| <= (max|c| + kc max|a| max|b|)(1 + 2^-24)^kc, so a bound of
// 2^126 leaves room (infinities and NaN fail it).
struct BlockForm {
  bool tiny_test;
  double ab_bound;  // kc * max|a| * max|b| over the packed blocks
};
inline BlockForm block_form(std::size_t kc, const BlockRange& a, const BlockRange& b) {
  return {needs_tiny_test(a, b), static_cast<double>(kc) * a.max_abs() * b.max_abs()};
}
// What ran (tile chunks by form, and those redone), for bench/wasm/'s parity test to show
// every form met its data.
struct TileCounts {
  unsigned long integer = 0, convert = 0, convert_tiny = 0, odd = 0;
};
inline void tile(std::size_t kc, const double* pa, const double* pb, float* c, std::size_t ldc, bool first,
                 const BlockForm& form, TileCounts* counts = nullptr) {
  double bound = form.ab_bound;
  if (!first)
    for (std::size_t r = 0; r < kMR; ++r)
      for (std::size_t j = 0; j < kNR; ++j) bound += static_cast<double>(num::abs_f32(c[r * ldc + j]));
  // The k-block in chunks of kChunk steps, each redone alone if refused: data whose sums are
  // often exact float midpoints (a float operand of +-1 or a power of two, integers past
  // 2^24), which the test cannot tell from inexact ones, then costs chunks, not k-blocks.
  const int form_id = !form.tiny_test && bound <= 0x1p126 ? 0 : form.tiny_test ? 2 : 1;
  for (std::size_t k0 = 0; k0 < kc; k0 += kChunk) {
    const std::size_t kk = min_size(kChunk, kc - k0);
    const double* ca = pa + k0 * kMR;
    const double* cb = pb + k0 * kNR;
    const bool start = first && k0 == 0;
    bool done;
    if (form_id == 0) done = tile_fast<Rounding::kInteger, false>(kk, ca, cb, c, ldc, start);
    else if (form_id == 2) done = tile_fast<Rounding::kConvert, true>(kk, ca, cb, c, ldc, start);
    else done = tile_fast<Rounding::kConvert, false>(kk, ca, cb, c, ldc, start);
    if (counts) ++(form_id == 0 ? counts->integer : form_id == 2 ? counts->convert_tiny : counts->convert);
    if (done) continue;
    tile_odd(kk, ca, cb, c, ldc, start);
    if (counts) ++counts->odd;
  }
}

// The blocked product over any tile kernel `tile(kc, pa, pb, c, ldc, first, form)` of
// the packed layout above (bench/wasm/ runs other kernels through it): C[0:M, 0:N] = A B, or
// C + A B with `accumulate`, strides as simd.h's gemm_f32. pa and pb hold kPackedAElems and
// kPackedBElems doubles, 16-byte aligned.
template <class Tile>
inline void gemm_blocked(std::size_t M, std::size_t N, std::size_t K, const float* a, std::size_t a_rs,
                         std::size_t a_ks, const float* b, std::size_t b_ks, std::size_t b_cs, float* c,
                         std::size_t ldc, bool accumulate, double* pa, double* pb, Tile&& tile) {
  if (M == 0 || N == 0 || (K == 0 && accumulate)) return;
  if (K == 0) {  // empty chains: +0
    for (std::size_t i = 0; i < M; ++i)
      for (std::size_t j = 0; j < N; ++j) c[i * ldc + j] = 0.0f;
    return;
  }
  alignas(16) float edge[kMR * kNR];
  for (std::size_t jc = 0; jc < N; jc += kNC) {
    const std::size_t nc = min_size(kNC, N - jc);
    for (std::size_t pc = 0; pc < K; pc += kKC) {
      const std::size_t kc = min_size(kKC, K - pc);
      const bool first = pc == 0 && !accumulate;
      const BlockRange range_b = pack_b(kc, nc, b + pc * b_ks + jc * b_cs, b_ks, b_cs, pb);
      for (std::size_t ic = 0; ic < M; ic += kMC) {
        const std::size_t mc = min_size(kMC, M - ic);
        const BlockForm form = block_form(kc, pack_a(mc, kc, a + ic * a_rs + pc * a_ks, a_rs, a_ks, pa), range_b);
        for (std::size_t ir = 0; ir < mc; ir += kMR) {
          const std::size_t mr = min_size(kMR, mc - ir);
          for (std::size_t jr = 0; jr < nc; jr += kNR) {
            const std::size_t nr = min_size(kNR, nc - jr);
            float* cp = c + (ic + ir) * ldc + jc + jr;
            if (mr == kMR && nr == kNR) {
              tile(kc, pa + ir * kc, pb + jr * kc, cp, ldc, first, form);
              continue;
            }
            // Edge tile: the full tile on a copy; the padded lanes are discarded.
            for (std::size_t r = 0; r < kMR; ++r)
              for (std::size_t j = 0; j < kNR; ++j)
                edge[r * kNR + j] = (!first && r < mr && j < nr) ? cp[r * ldc + j] : 0.0f;
            tile(kc, pa + ir * kc, pb + jr * kc, edge, kNR, first, form);
            for (std::size_t r = 0; r < mr; ++r)
              for (std::size_t j = 0; j < nr; ++j) cp[r * ldc + j] = edge[r * kNR + j];
          }
        }
      }
    }
  }
}

// The exact product: tile_fast, and tile_odd for the tiles it refuses.
inline void gemm_f32(std::size_t M, std::size_t N, std::size_t K, const float* a, std::size_t a_rs, std::size_t a_ks,
                     const float* b, std::size_t b_ks, std::size_t b_cs, float* c, std::size_t ldc, bool accumulate,
                     double* pa, double* pb) {
  gemm_blocked(M, N, K, a, a_rs, a_ks, b, b_ks, b_cs, c, ldc, accumulate, pa, pb,
               [](std::size_t kc, const double* tpa, const double* tpb, float* tc, std::size_t tldc, bool first,
                  const BlockForm& form) { tile(kc, tpa, tpb, tc, tldc, first, form); });
}

}  // namespace rung::cpu::wasm_gemm
