// floor, ceil and round (half to even) for binary32 and binary64, without libm: every
// backend must give the same bits, and the results are exact (an integer-valued float is
// representable). The sign of the result is always the sign of x (floor(-0.5) = -1,
// ceil(-0.5) = -0, round(-0.5) = -0, and ±0 stay themselves); NaN and ±inf pass through.
#pragma once

#include "ops/numerics/portable.h"

namespace rung::num {

enum class IntegralMode { floor, ceil, round_even };

// |x| < 2^52: adding 2^52 leaves a double of unit spacing, so the hardware's
// round-to-nearest-even addition rounds |x| to an integer; subtracting 2^52 is exact. (The
// build forbids fast-math, so the compiler may not fold the pair.)
RUNG_HD double integral_f64(double x, IntegralMode m) {
  double a = abs_f64(x);
  if (!(a < 0x1p52)) return x;  // already an integer, ±inf or NaN
  double r = copysign_f64((a + 0x1p52) - 0x1p52, x);  // nearest, ties to even
  if (m == IntegralMode::floor && r > x) r = r - 1.0;
  if (m == IntegralMode::ceil && r < x) r = r + 1.0;
  return copysign_f64(r, x);  // floor(-0.3) = -1 keeps its sign; ceil(-0.7) = -0
}

// A float is a double exactly, and the double's integral value is a float exactly.
RUNG_HD float integral_f32(float x, IntegralMode m) { return static_cast<float>(integral_f64(static_cast<double>(x), m)); }

}  // namespace rung::num
