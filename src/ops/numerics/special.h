// rung's erf, tanh, sigmoid, silu, both gelu forms and pow (docs/semantics.md). Each is a
// binary64 evaluation with plain double operations built on exp_f64_approx/log_f64_approx,
// rounded once to f32, with explicit clamps where the f32 result is already decided (the
// clamps also keep every double exponent in range).
#pragma once

#include "ops/numerics/exp_log.h"

namespace rung::num {

namespace special_const {
inline constexpr double kTwoOverSqrtPi = 0x1.20dd750429b6dp+0;
inline constexpr double kOneOverSqrtPi = 0x1.20dd750429b6dp-1;
inline constexpr double kSqrt1_2 = 0x1.6a09e667f3bcdp-1;
inline constexpr double kSqrt2OverPi = 0x1.9884533d43651p-1;
inline constexpr double kGeluCubic = 0.044715;  // the tanh form's constant, rounded to double
inline constexpr int kErfcTerms = 50;
}  // namespace special_const

// erf(z) for 0 <= z < 2 by the all-positive series (no cancellation), Horner in z2 = z^2.
// z2 is passed in so callers can supply it exactly.
RUNG_HD double erf_series(double z, double z2) {
  // c_n = 2^n / (1*3*5*...*(2n+1)), rounded to double; erf(z) = 2/sqrt(pi) z e^-z^2 sum c_n z^2n.
  constexpr double kErfSeries[29] = {  // a local table: device code cannot read namespace arrays
      0x1.0000000000000p+0,  0x1.5555555555555p-1,  0x1.1111111111111p-2,  0x1.3813813813814p-4,
      0x1.1566abc011567p-6,  0x1.937e11175f095p-9,  0x1.f09b28ba4d955p-12, 0x1.08db48ebe51c7p-14,
      0x1.f28db670be53bp-18, 0x1.a3d5a71b92cd3p-21, 0x1.3fdfbc45c52eap-24, 0x1.bd0ac3296b624p-28,
      0x1.1cd3b01a822a6p-31, 0x1.519297d390c9fp-35, 0x1.747e72912d023p-39, 0x1.808286c768445p-43,
      0x1.74dba97b8be52p-47, 0x1.54e6174c62a5ap-51, 0x1.26d4d5e132b8cp-55, 0x1.e3d36c1c38faap-60,
      0x1.799ec4c4db4d0p-64, 0x1.19050980a3336p-68, 0x1.8fac24452c5fdp-73, 0x1.101e0dcd0ddf3p-77,
      0x1.636b2c25f2c57p-82, 0x1.be03fb2a9a10ep-87, 0x1.0d4adb45318cap-91, 0x1.395bc2a44c468p-96,
      0x1.5fd74f512d38cp-101};
  double p = kErfSeries[28];
  for (int n = 27; n >= 0; --n) p = p * z2 + kErfSeries[n];
  return special_const::kTwoOverSqrtPi * z * exp_f64_approx(-z2) * p;
}

// erfc(z) for z >= 2 by Laplace's continued fraction, evaluated bottom-up with 50 terms:
// erfc(z) = e^-z^2 / sqrt(pi) / (z + (1/2)/(z + (2/2)/(z + (3/2)/(z + ...)))).
RUNG_HD double erfc_cf(double z, double z2) {
  if (z2 > 700.0) return 0.0;  // below every f32 result it feeds
  double t = z;
  for (int n = special_const::kErfcTerms; n >= 1; --n) t = z + (0.5 * n) / t;
  return exp_f64_approx(-z2) * special_const::kOneOverSqrtPi / t;
}

// For z >= 0 with z2 = z^2.
RUNG_HD double erf_f64_approx(double z, double z2) { return z < 2.0 ? erf_series(z, z2) : 1.0 - erfc_cf(z, z2); }
RUNG_HD double erfc_f64_approx(double z, double z2) { return z < 2.0 ? 1.0 - erf_series(z, z2) : erfc_cf(z, z2); }

RUNG_HD float erf_f32(float x) {
  if (is_nan(x)) return nan_f32();
  double ax = abs_f64(static_cast<double>(x));
  if (ax >= 4.0) return copysign_f32(1.0f, x);  // erf(3.92) already rounds to 1
  float y = static_cast<float>(erf_f64_approx(ax, ax * ax));  // ax*ax is exact for a float
  return copysign_f32(y, x);
}

// expm1(t) in binary64: Taylor through t^14 for |t| < 1/2, else e^t - 1 (cancellation at
// most 1.6 bits there).
RUNG_HD double expm1_f64_approx(double t) {
  if (abs_f64(t) >= 0.5) return exp_f64_approx(t) - 1.0;
  double p = 0x1.93974a8c07c9dp-37;  // 1/14!
  p = p * t + 0x1.6124613a86d09p-33;  // 1/13!
  p = p * t + 0x1.1eed8eff8d898p-29;  // 1/12!
  p = p * t + 0x1.ae64567f544e4p-26;  // 1/11!
  p = p * t + 0x1.27e4fb7789f5cp-22;  // 1/10!
  p = p * t + 0x1.71de3a556c734p-19;  // 1/9!
  p = p * t + 0x1.a01a01a01a01ap-16;  // 1/8!
  p = p * t + 0x1.a01a01a01a01ap-13;  // 1/7!
  p = p * t + 0x1.6c16c16c16c17p-10;  // 1/6!
  p = p * t + 0x1.1111111111111p-7;   // 1/5!
  p = p * t + 0x1.5555555555555p-5;   // 1/4!
  p = p * t + 0x1.5555555555555p-3;   // 1/3!
  p = p * t + 0.5;
  return t + (t * t) * p;
}

// tanh(x) = e / (e + 2) with e = expm1(2|x|), sign restored; |x| >= 10 gives ±1.
RUNG_HD float tanh_f32(float x) {
  if (is_nan(x)) return nan_f32();
  double ax = abs_f64(static_cast<double>(x));
  if (ax >= 10.0) return copysign_f32(1.0f, x);
  double e = expm1_f64_approx(2.0 * ax);
  return copysign_f32(static_cast<float>(e / (e + 2.0)), x);
}

// sigmoid(x) = 1 / (1 + e^-x).
RUNG_HD float sigmoid_f32(float x) {
  if (is_nan(x)) return nan_f32();
  if (x > 40.0f) return 1.0f;
  if (x < -110.0f) return 0.0f;
  return static_cast<float>(1.0 / (1.0 + exp_f64_approx(-static_cast<double>(x))));
}

namespace detail {
// silu and both gelu forms are x/2 + c x^2 + O(x^3) with c > 0 near 0. For |x| < 2^-60 the
// binary64 evaluation returns exactly x/2, which for an odd subnormal x is an f32 tie that
// the c x^2 term would break upwards: move one binary64 ulp toward +inf before rounding.
RUNG_HD bool tiny_half(float x, float& out) {
  double xd = x;
  if (x == 0.0f || abs_f64(xd) >= 0x1p-60) return false;
  double h = 0.5 * xd;
  std::uint64_t u = bits_of(h);
  out = static_cast<float>(f64_from_bits(h > 0.0 ? u + 1 : u - 1));
  return true;
}
}  // namespace detail

// silu(x) = x / (1 + e^-x).
RUNG_HD float silu_f32(float x) {
  if (is_nan(x)) return nan_f32();
  if (float t; detail::tiny_half(x, t)) return t;
  if (x > 100.0f) return x;
  if (x < -120.0f) return -0.0f;  // |x| e^x < 2^-150
  double xd = x;
  return static_cast<float>(xd / (1.0 + exp_f64_approx(-xd)));
}

// gelu, tanh form: 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3), evaluated as
// x / (1 + e^(-2u)) (the same function, without the cancellation of 1 + tanh(u) for x < 0).
RUNG_HD float gelu_tanh_f32(float x) {
  if (is_nan(x)) return nan_f32();
  if (float t; detail::tiny_half(x, t)) return t;
  if (x > 10.0f) return x;
  if (x < -20.0f) return -0.0f;
  double xd = x;
  double u = special_const::kSqrt2OverPi * (xd + special_const::kGeluCubic * (xd * xd * xd));
  return static_cast<float>(xd / (1.0 + exp_f64_approx(-2.0 * u)));
}

// gelu, erf form: 0.5 x (1 + erf(x / sqrt 2)) = 0.5 x erfc(-x / sqrt 2); for x < 0 erfc is
// evaluated directly so tiny negative outputs keep their relative accuracy.
RUNG_HD float gelu_erf_f32(float x) {
  if (is_nan(x)) return nan_f32();
  if (float t; detail::tiny_half(x, t)) return t;
  if (x < -15.0f) return -0.0f;  // |0.5 x erfc(10.6)| < 2^-150
  double xd = x;
  double ax = abs_f64(xd);
  double z = ax * special_const::kSqrt1_2;
  double z2 = (xd * xd) * 0.5;  // exact: z^2 without the rounding of z
  if (xd >= 0.0) return static_cast<float>(0.5 * xd * (1.0 + erf_f64_approx(z, z2)));
  return static_cast<float>(0.5 * xd * erfc_f64_approx(z, z2));
}

namespace detail {
// For finite y: 0 not an integer, 1 even integer, 2 odd integer.
RUNG_HD int integer_kind(float y) {
  float ay = abs_f32(y);
  if (ay >= 16777216.0f) return 1;  // 2^24 and above: every float is an even integer
  auto i = static_cast<std::int32_t>(ay);
  if (static_cast<float>(i) != ay) return 0;
  return (i & 1) ? 2 : 1;
}
}  // namespace detail

// pow(x, y) with the special cases of C99 Annex F / IEEE 754 pow; otherwise
// |x|^y = e^(y ln|x|) in binary64, negative for x < 0 and odd integer y, NaN for x < 0 and
// non-integer y.
RUNG_HD float pow_f32(float x, float y) {
  if (y == 0.0f) return 1.0f;
  if (x == 1.0f) return 1.0f;
  if (is_nan(x) || is_nan(y)) return nan_f32();
  float ax = abs_f32(x);
  if (is_inf(y)) {
    if (ax == 1.0f) return 1.0f;
    return (ax < 1.0f) == (y < 0.0f) ? inf_f32() : 0.0f;
  }
  int kind = detail::integer_kind(y);
  bool negate = sign_bit(x) && kind == 2;
  if (ax == 0.0f || is_inf(x)) {
    // 0^y and inf^y: ±0 or ±inf, with x's sign only for odd integer y.
    bool big = (ax == 0.0f) == (y < 0.0f);
    float r = big ? inf_f32() : 0.0f;
    return negate ? -r : r;
  }
  if (x < 0.0f && kind == 0) return nan_f32();
  double t = static_cast<double>(y) * log_f64_approx(static_cast<double>(ax));
  float r;
  if (t > 89.0) r = inf_f32();
  else if (t < -104.0) r = 0.0f;  // e^-104 < 2^-150
  else r = static_cast<float>(exp_f64_approx(t));
  return negate ? -r : r;
}

}  // namespace rung::num
