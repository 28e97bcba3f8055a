// rung's exp and log (docs/semantics.md §"Transcendentals"). Each f32 function evaluates a
// binary64 approximation with plain double +, -, *, / (no fma, no libm, so every backend
// that has IEEE doubles computes the same bits, WebAssembly included) and rounds it once to
// f32. The binary64 approximation is accurate to about 2^-46 relative, so the f32 result is
// within 0.5 + 2^-22 ulp of the exact value: faithful, and correctly rounded except when the
// exact value lies within 2^-22 ulp of a midpoint (the sweeps count those cases).
#pragma once

#include "ops/numerics/portable.h"

namespace rung::num {

namespace exp_log_const {
inline constexpr double kLog2e = 0x1.71547652b82fep+0;     // 1/ln 2
inline constexpr double kLn2Hi = 0x1.62e42ffp-1;           // ln 2, first 29 bits: k * kLn2Hi is exact
inline constexpr double kLn2Lo = -0x1.718432a1b0e26p-35;   // ln 2 - kLn2Hi
inline constexpr double kSqrt2 = 0x1.6a09e667f3bcdp+0;
}  // namespace exp_log_const

// e^r for |r| <= 0.35 (a little over ln(2)/2): Taylor polynomial of degree 11, Horner order,
// coefficients 1/n! rounded to double. Truncation error < 6.1e-15 relative.
RUNG_HD double exp_poly(double r) {
  double p = 0x1.ae64567f544e4p-26;  // 1/11!
  p = p * r + 0x1.27e4fb7789f5cp-22;  // 1/10!
  p = p * r + 0x1.71de3a556c734p-19;  // 1/9!
  p = p * r + 0x1.a01a01a01a01ap-16;  // 1/8!
  p = p * r + 0x1.a01a01a01a01ap-13;  // 1/7!
  p = p * r + 0x1.6c16c16c16c17p-10;  // 1/6!
  p = p * r + 0x1.1111111111111p-7;   // 1/5!
  p = p * r + 0x1.5555555555555p-5;   // 1/4!
  p = p * r + 0x1.5555555555555p-3;   // 1/3!
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  return p;
}

// e^x in binary64 for |x| <= 745 (callers clamp): x = k ln2 + r with k = round_even(x / ln2)
// (Cody-Waite: k * kLn2Hi is exact, x - k*kLn2Hi is exact), then e^x = e^r * 2^k. The
// scaling is split in two so that 2^k stays a normal double.
RUNG_HD double exp_f64_approx(double x) {
  using namespace exp_log_const;
  double k = round_even_f64(x * kLog2e);
  double r = (x - k * kLn2Hi) - k * kLn2Lo;
  double p = exp_poly(r);
  int ki = static_cast<int>(k);
  int k1 = ki / 2;
  return p * pow2_f64(k1) * pow2_f64(ki - k1);
}

// ln(m) for m in [sqrt(1/2), sqrt(2)]: with s = (m - 1) / (m + 1), ln m = 2 atanh(s) =
// 2 s (1 + z/3 + z^2/5 + ... + z^10/21), z = s^2, |s| <= 0.1716; Horner in z.
// Truncation error < 3e-17 relative.
RUNG_HD double log_poly(double m) {
  double s = (m - 1.0) / (m + 1.0);
  double z = s * s;
  double p = 2.0 / 21.0;
  p = p * z + 2.0 / 19.0;
  p = p * z + 2.0 / 17.0;
  p = p * z + 2.0 / 15.0;
  p = p * z + 2.0 / 13.0;
  p = p * z + 2.0 / 11.0;
  p = p * z + 2.0 / 9.0;
  p = p * z + 2.0 / 7.0;
  p = p * z + 2.0 / 5.0;
  p = p * z + 2.0 / 3.0;
  p = p * z + 2.0;
  return s * p;
}

// ln(x) in binary64 for finite x > 0 (normal or subnormal double): x = m * 2^e with m in
// [sqrt(1/2), sqrt(2)), ln x = e*kLn2Hi + (ln m + e*kLn2Lo).
RUNG_HD double log_f64_approx(double x) {
  using namespace exp_log_const;
  int bias_fix = 0;
  if (x < 0x1p-1022) { x *= 0x1p54; bias_fix = -54; }  // subnormal double: make it normal (exact)
  std::uint64_t u = bits_of(x);
  int e = static_cast<int>((u >> 52) & 0x7FF) - 1023 + bias_fix;
  double m = f64_from_bits((u & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull);  // [1, 2)
  if (m > kSqrt2) { m *= 0.5; ++e; }
  double ed = static_cast<double>(e);
  return ed * kLn2Hi + (log_poly(m) + ed * kLn2Lo);
}

// ---- f32 entry points: specials first, then one rounding of the binary64 approximation.

RUNG_HD float exp_f32(float x) {
  if (is_nan(x)) return nan_f32();
  if (x > 100.0f) return inf_f32();  // e^88.73 already overflows f32
  if (x < -110.0f) return 0.0f;      // e^-110 < 2^-150: rounds to +0
  return static_cast<float>(exp_f64_approx(static_cast<double>(x)));
}

RUNG_HD float log_f32(float x) {
  if (is_nan(x) || x < 0.0f) return nan_f32();
  if (x == 0.0f) return -inf_f32();
  if (is_inf(x)) return x;
  return static_cast<float>(log_f64_approx(static_cast<double>(x)));
}

}  // namespace rung::num
