// Conversions between element types (docs/semantics.md §"Casts"):
//   float -> float   one round-to-nearest-even rounding (through a double, which holds every
//                    f32/f16/bf16 exactly), overflow to ±inf, NaN stays NaN
//   int -> float     one RNE rounding of the exact integer (never through a double first:
//                    that would round twice for |v| >= 2^53)
//   float -> int     truncation toward zero, saturating at the type's range, NaN -> 0
//   int -> int       modular (two's complement wrap-around)
//   bool -> number   0 or 1;  number -> bool   x != 0 (NaN -> true, -0 -> false)
#pragma once

#include <cstdint>

#include "ops/numerics/portable.h"

namespace rung::num {

// The integer |v| (sign separate) rounded to `precision` significant bits (RNE), as a
// double. Exact whenever it fits, so a later narrowing to a format of that precision is
// exact and the conversion rounds once.
RUNG_HD double int_to_double_rounded(bool negative, std::uint64_t mag, int precision) {
  int len = 0;
  for (std::uint64_t m = mag; m != 0; m >>= 1) ++len;
  int shift = len - precision;
  double r;
  if (shift <= 0) {
    r = static_cast<double>(mag);  // < 2^precision <= 2^53: exact
  } else {
    std::uint64_t q = mag >> shift;
    std::uint64_t rem = mag & ((std::uint64_t{1} << shift) - 1);
    std::uint64_t half = std::uint64_t{1} << (shift - 1);
    if (rem > half || (rem == half && (q & 1))) ++q;
    r = static_cast<double>(q) * pow2_f64(shift);  // q <= 2^precision: exact
  }
  return negative ? -r : r;
}

// Float (given exactly as a double) to an integer of `bits` width: truncation toward zero,
// saturating, NaN -> 0. Returns the two's complement bit pattern in a uint64.
RUNG_HD std::uint64_t double_to_int_saturating(double v, int bits, bool is_signed) {
  if (is_nan(v)) return 0;
  if (is_signed) {
    double lim = pow2_f64(bits - 1);
    std::int64_t max = static_cast<std::int64_t>((std::uint64_t{1} << (bits - 1)) - 1);
    if (v >= lim) return static_cast<std::uint64_t>(max);
    if (v <= -lim) return static_cast<std::uint64_t>(-max - 1);
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(v));  // in range: C++ truncates
  }
  double lim = pow2_f64(bits);
  if (v < 0.0 || is_nan(v)) return 0;
  if (v >= lim) return bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
  return static_cast<std::uint64_t>(v);
}

}  // namespace rung::num
