// The correctly rounded IEEE-754 primitives the exact path is built from: fma and sqrt.
// They are exact by the standard on every target; only the spelling differs. WebAssembly
// has no fma instruction, so `fma_f32_soft` is the portable replacement (bit-identical to a
// fused fma; tested against the hardware one).
#pragma once

#include "ops/numerics/portable.h"
#if defined(__wasm__)
#include "ops/numerics/fma_f64_soft.h"  // no fma instruction, and musl's fma is wrong on zeros
#endif

namespace rung::num {

// fma(a, b, c) for f32 from binary64 mul/add only. The product of two floats is exact in
// a double; the sum s = p + c rounds once to 53 bits, and rounding s to float again is only
// wrong when s lands exactly on a float midpoint while p + c did not (then the tie-break
// must follow the sign of the lost error, found exactly with TwoSum).
// f32_product_sum is the start both forms share: s and its exact error, or `special` when
// s or p is NaN or infinite (then s is the answer).
struct F32ProductSum {
  double s;
  double err;
  bool special;
};
RUNG_HD F32ProductSum f32_product_sum(float a, float b, float c) {
  double p = static_cast<double>(a) * static_cast<double>(b);
  double cd = static_cast<double>(c);
  double s = p + cd;
  if (is_nan(s) || is_inf(s) || is_inf(p)) return {s, 0.0, true};
  double bv = s - p;  // TwoSum
  double av = s - bv;
  return {s, (p - av) + (cd - bv), false};
}

RUNG_HD float fma_f32_soft(float a, float b, float c) {
  F32ProductSum r = f32_product_sum(a, b, c);
  if (r.special || r.err == 0.0) return static_cast<float>(r.s);
  std::uint64_t u = bits_of(r.s);
  int exp = static_cast<int>((u >> 52) & 0x7FF) - 1023;
  // Bits of the double below float precision: 29 in the normal float range, more below it.
  int extra = exp >= -126 ? 29 : 29 + (-126 - exp);
  if (extra > 53) return static_cast<float>(r.s);  // far below the smallest subnormal: rounds to 0 either way
  std::uint64_t mask = (std::uint64_t{1} << extra) - 1;
  std::uint64_t half = std::uint64_t{1} << (extra - 1);
  if ((u & mask) != half) return static_cast<float>(r.s);
  // On a midpoint: move s one double ulp towards the exact value, off the midpoint.
  bool away = (r.err > 0.0) == (r.s > 0.0);
  u = away ? u + 1 : u - 1;
  return static_cast<float>(f64_from_bits(u));
}

// The same function by round-to-odd (Boldo and Melquiond, IEEE TC 2008): s = p + c rounded
// to 53 bits is made odd when inexact (moved one ulp towards the exact sum if its last bit is
// even), and rounding an odd-rounded value of at least 26 bits once more to nearest float is
// correctly rounded. No midpoint test: one branch on the error, which vectorises (f64x2).
RUNG_HD float fma_f32_odd(float a, float b, float c) {
  F32ProductSum r = f32_product_sum(a, b, c);
  if (r.special) return static_cast<float>(r.s);
  std::uint64_t u = bits_of(r.s);
  if (r.err != 0.0 && (u & 1) == 0) u = (r.err > 0.0) == (r.s > 0.0) ? u + 1 : u - 1;
  return static_cast<float>(f64_from_bits(u));
}

RUNG_HD float fma_f32(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#elif defined(__wasm__)
  return fma_f32_soft(a, b, c);  // WebAssembly has no fma instruction
#else
  return __builtin_fmaf(a, b, c);
#endif
}

RUNG_HD double fma_f64(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(a, b, c);
#elif defined(__wasm__)
  return fma_f64_soft(a, b, c);
#else
  return __builtin_fma(a, b, c);
#endif
}

RUNG_HD float sqrt_f32(float x) {
#if defined(__CUDA_ARCH__)
  return __fsqrt_rn(x);
#else
  return __builtin_sqrtf(x);
#endif
}

RUNG_HD double sqrt_f64(double x) {
#if defined(__CUDA_ARCH__)
  return __dsqrt_rn(x);
#else
  return __builtin_sqrt(x);
#endif
}

}  // namespace rung::num
