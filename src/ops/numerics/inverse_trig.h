// rung's atan, asin and acos (docs/semantics.md). Like sin/cos: a binary64 evaluation with
// plain double +, -, *, / and a correctly rounded sqrt (no fma, no libm), rounded once to f32.
//
// All three go through one kernel, the angle of the point (d, n) with n, d >= 0:
//   atan_ratio(n, d) = atan(n / d), taken as pi/2 - atan(d / n) when n > d,
// so the ratio u handed to atan_unit is in [0, 1]. Above tan(pi/8) it is reduced by
// atan(u) = pi/4 + atan(t), t = (u - 1) / (u + 1), |t| <= tan(pi/8); then the Taylor series
// of atan through t^41 (truncation below 2^-58 relative). pi/4, pi/2 and pi are added as
// hi + lo pairs. asin(x) = atan_ratio(|x|, s) and acos(x) = atan_ratio(s, |x|) (pi minus it
// for x < 0) with s = sqrt(1 - x*x): x*x is exact in binary64 and 1 - x*x is exact for
// |x| >= 1/2, so s carries one rounding.
#pragma once

#include "ops/numerics/ieee.h"
#include "ops/numerics/portable.h"

namespace rung::num {

namespace inverse_trig_const {
inline constexpr double kTanPio8 = 0x1.a827999fcef32p-2;
inline constexpr double kPiHi = 0x1.921fb54442d18p+1;
inline constexpr double kPiLo = 0x1.1a62633145c07p-53;  // pi - kPiHi
inline constexpr double kPio2Hi = 0x1.921fb54442d18p+0;
inline constexpr double kPio2Lo = 0x1.1a62633145c07p-54;
inline constexpr double kPio4Hi = 0x1.921fb54442d18p-1;
inline constexpr double kPio4Lo = 0x1.1a62633145c07p-55;
}  // namespace inverse_trig_const

// atan(t) for |t| <= tan(pi/8): t + t z P(z), z = t^2, P's coefficients (-1)^j / (2j + 1)
// rounded to double, j = 1..20, Horner from j = 20.
RUNG_HD double atan_series(double t) {
  double z = t * t;
  double p = 0x1.8f9c18f9c18fap-6;    //  1/41
  p = p * z + -0x1.a41a41a41a41ap-6;  // -1/39
  p = p * z + 0x1.bacf914c1bad0p-6;   //  1/37
  p = p * z + -0x1.d41d41d41d41dp-6;  // -1/35
  p = p * z + 0x1.f07c1f07c1f08p-6;   //  1/33
  p = p * z + -0x1.0842108421084p-5;  // -1/31
  p = p * z + 0x1.1a7b9611a7b96p-5;   //  1/29
  p = p * z + -0x1.2f684bda12f68p-5;  // -1/27
  p = p * z + 0x1.47ae147ae147bp-5;   //  1/25
  p = p * z + -0x1.642c8590b2164p-5;  // -1/23
  p = p * z + 0x1.8618618618618p-5;   //  1/21
  p = p * z + -0x1.af286bca1af28p-5;  // -1/19
  p = p * z + 0x1.e1e1e1e1e1e1ep-5;   //  1/17
  p = p * z + -0x1.1111111111111p-4;  // -1/15
  p = p * z + 0x1.3b13b13b13b14p-4;   //  1/13
  p = p * z + -0x1.745d1745d1746p-4;  // -1/11
  p = p * z + 0x1.c71c71c71c71cp-4;   //  1/9
  p = p * z + -0x1.2492492492492p-3;  // -1/7
  p = p * z + 0x1.999999999999ap-3;   //  1/5
  p = p * z + -0x1.5555555555555p-2;  // -1/3
  return t + (t * z) * p;
}

// atan(u) for 0 <= u <= 1.
RUNG_HD double atan_unit(double u) {
  using namespace inverse_trig_const;
  if (u <= kTanPio8) return atan_series(u);
  double t = (u - 1.0) / (u + 1.0);
  return kPio4Hi + (atan_series(t) + kPio4Lo);
}

// atan(n / d) in [0, pi/2] for finite or infinite n, d >= 0, not both 0.
RUNG_HD double atan_ratio(double n, double d) {
  using namespace inverse_trig_const;
  if (n <= d) return atan_unit(n / d);
  return (kPio2Hi - atan_unit(d / n)) + kPio2Lo;
}

RUNG_HD float atan_f32(float x) {
  if (is_nan(x)) return nan_f32();
  float y = static_cast<float>(atan_ratio(abs_f64(static_cast<double>(x)), 1.0));
  return sign_bit(x) ? -y : y;  // odd; atan(-0) = -0, atan(±inf) = ±pi/2 rounded
}

// sqrt(1 - a^2) for 0 <= a <= 1.
RUNG_HD double cosine_of_sine(double a) { return sqrt_f64(1.0 - a * a); }

RUNG_HD float asin_f32(float x) {
  double a = abs_f64(static_cast<double>(x));
  if (is_nan(x) || a > 1.0) return nan_f32();
  float y = static_cast<float>(atan_ratio(a, cosine_of_sine(a)));
  return sign_bit(x) ? -y : y;  // odd; asin(-0) = -0
}

RUNG_HD float acos_f32(float x) {
  using namespace inverse_trig_const;
  double a = abs_f64(static_cast<double>(x));
  if (is_nan(x) || a > 1.0) return nan_f32();
  double r = atan_ratio(cosine_of_sine(a), a);
  if (x < 0.0f) r = (kPiHi - r) + kPiLo;  // acos(-a) = pi - acos(a)
  return static_cast<float>(r);
}

}  // namespace rung::num
