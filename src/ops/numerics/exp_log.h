// rung's exp and log (docs/semantics.md §"Transcendentals"). Each f32 function evaluates a
// binary64 approximation with plain double +, -, *, / (no fma, no libm, so every backend
// that has IEEE doubles computes the same bits, WebAssembly included) and rounds it once to
// f32. The binary64 approximation is accurate to about 2^-46 relative, so the f32 result is
// within 0.5 + 2^-22 ulp of the exact value: faithful, and correctly rounded except when the
// exact value lies within 2^-22 ulp of a midpoint (the sweeps count those cases).
//
// The f64 functions (exp_f64, log_f64) are binary64 algorithms of their own, again with plain
// double +, -, *, / in a fixed order (no fma, no libm): Cody-Waite reduction and a Remez
// rational form for exp, the atanh-series split of fdlibm's e_log.c for log (the constants
// are fdlibm's, below in hex). Both stay within 1 ulp of the exact value (the MPFR sweep in
// tests/ops/transcendental_test.cpp measures 0.83 and 0.76 ulp at most), and, being plain
// IEEE arithmetic, give the same bits on every backend that has binary64.
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

// ---- f64 -----------------------------------------------------------------------------

namespace exp_log_f64_const {
inline constexpr double kLn2Hi = 0x1.62e42feep-1;             // ln 2, first 32 bits: k * kLn2Hi exact for |k| < 2^21
inline constexpr double kLn2Lo = 0x1.a39ef35793c76p-33;       // ln 2 - kLn2Hi
inline constexpr double kInvLn2 = 0x1.71547652b82fep+0;
// exp: r (e^r + 1) / (e^r - 1) = 2 + P1 r^2 + P2 r^4 + ... + P5 r^10 on |r| <= ln2 / 2 (a
// Remez fit, error < 2^-59); with c = r - (that - 2), e^r = 1 + r + r*c / (2 - c).
inline constexpr double kP1 = 0x1.555555555553ep-3;
inline constexpr double kP2 = -0x1.6c16c16bebd93p-9;
inline constexpr double kP3 = 0x1.1566aaf25de2cp-14;
inline constexpr double kP4 = -0x1.bbd41c5d26bf1p-20;
inline constexpr double kP5 = 0x1.6376972bea4d0p-25;
// log: R(z) ~ Lg1 z + Lg2 z^2 + ... + Lg7 z^7 for 2 atanh(s) = 2s + s * R(s^2), |s| <= 0.1716.
inline constexpr double kLg1 = 0x1.5555555555593p-1;
inline constexpr double kLg2 = 0x1.999999997fa04p-2;
inline constexpr double kLg3 = 0x1.2492494229359p-2;
inline constexpr double kLg4 = 0x1.c71c51d8e78afp-3;
inline constexpr double kLg5 = 0x1.7466496cb03dep-3;
inline constexpr double kLg6 = 0x1.39a09d078c69fp-3;
inline constexpr double kLg7 = 0x1.2f112df3e5244p-3;
inline constexpr double kExpOverflow = 0x1.62e42fefa39efp+9;    // 709.78...: e^x > DBL_MAX above
inline constexpr double kExpUnderflow = -0x1.74910d52d3051p+9;  // -745.13...: e^x < 2^-1075 below
}  // namespace exp_log_f64_const

// e^x in binary64. NaN -> NaN; x > 709.78 -> +inf; x < -745.13 -> +0. Otherwise
// k = rne(x / ln2), hi = x - k*kLn2Hi (exact), lo = k*kLn2Lo, r = hi - lo (|r| <= 0.35),
// t = r*r, c = r - t*(P1 + t*(P2 + t*(P3 + t*(P4 + t*P5)))), y = 1 - ((lo - (r*c)/(2 - c)) - hi),
// and the result y * 2^k1 * 2^(k - k1), k1 = k/2 toward zero (each factor a normal double;
// a subnormal result is rounded once, by the last product).
RUNG_HD double exp_f64(double x) {
  using namespace exp_log_f64_const;
  if (is_nan(x)) return nan_f64();
  if (x > kExpOverflow) return inf_f64();
  if (x < kExpUnderflow) return 0.0;
  double k = round_even_f64(x * kInvLn2);
  double hi = x - k * kLn2Hi, lo = k * kLn2Lo;
  double r = hi - lo;
  double t = r * r;
  double c = r - t * (kP1 + t * (kP2 + t * (kP3 + t * (kP4 + t * kP5))));
  double y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
  int ki = static_cast<int>(k);
  int k1 = ki / 2;
  return y * pow2_f64(k1) * pow2_f64(ki - k1);
}

// ln x in binary64. NaN or x < 0 -> NaN; ±0 -> -inf; +inf -> +inf. Otherwise x = m * 2^e
// (binary64 fields, subnormals scaled by 2^54 first; m in [1, 2), halved with e + 1 when
// m > sqrt2), f = m - 1 (exact), s = f / (2 + f), z = s*s, w = z*z,
// R = z*(Lg1 + w*(Lg3 + w*(Lg5 + w*Lg7))) + w*(Lg2 + w*(Lg4 + w*Lg6)), h = 0.5*f*f, and
// ln x = e*kLn2Hi - ((h - (s*(h + R) + e*kLn2Lo)) - f).
RUNG_HD double log_f64(double x) {
  using namespace exp_log_f64_const;
  if (is_nan(x) || x < 0.0) return nan_f64();
  if (x == 0.0) return -inf_f64();
  if (is_inf(x)) return x;
  int bias_fix = 0;
  if (x < 0x1p-1022) { x *= 0x1p54; bias_fix = -54; }  // subnormal: make it normal (exact)
  std::uint64_t u = bits_of(x);
  int e = static_cast<int>((u >> 52) & 0x7FF) - 1023 + bias_fix;
  double m = f64_from_bits((u & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull);  // [1, 2)
  if (m > exp_log_const::kSqrt2) { m *= 0.5; ++e; }
  double f = m - 1.0;
  double s = f / (2.0 + f), z = s * s, w = z * z;
  double R = z * (kLg1 + w * (kLg3 + w * (kLg5 + w * kLg7))) + w * (kLg2 + w * (kLg4 + w * kLg6));
  double h = 0.5 * f * f, dk = static_cast<double>(e);
  return dk * kLn2Hi - ((h - (s * (h + R) + dk * kLn2Lo)) - f);
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
