// The 16-bit storage formats f16 (IEEE binary16) and bf16 (bfloat16): exact widening, and
// narrowing with round-to-nearest-even, overflow to infinity and subnormals kept. Narrowing
// starts from a double so that f32 -> f16 and f64 -> f16 are both a single rounding (every
// f32 is exact in a double; rounding through f32 first would round twice).
#pragma once

#include "ops/numerics/portable.h"

namespace rung::num {

namespace detail {
// Rounds |x| (finite, non-negative) to a binary format with `frac` fraction bits, minimum
// normal exponent `emin` and `ebits` exponent bits; returns the encoding without sign.
// Overflow (beyond the largest finite value after rounding) gives the infinity encoding.
RUNG_HD std::uint32_t round_to_small_format(double a, int frac, int emin, int ebits) {
  const std::uint32_t inf_code = ((1u << ebits) - 1u) << frac;
  if (a == 0.0) return 0;
  int e = static_cast<int>((bits_of(a) >> 52) & 0x7FF) - 1023;  // a is a normal double here
  if (e < emin) {
    // Subnormal (or rounds up to the smallest normal): count in units of 2^(emin - frac).
    // Both scalings are by powers of two and exact; the integer rounding is RNE.
    double units = a * pow2_f64(frac - emin);
    return static_cast<std::uint32_t>(round_even_f64(units));  // 2^frac lands on the smallest normal
  }
  if (e > (1 << (ebits - 1))) return inf_code;  // far beyond the range: avoid huge scalings
  // Significand in units of the last place: [2^frac, 2^(frac+1)).
  double sig = a * pow2_f64(frac - e);
  std::uint32_t m = static_cast<std::uint32_t>(round_even_f64(sig));
  if (m == (2u << frac)) { m = 1u << frac; ++e; }  // rounding carried into the next binade
  int biased = e - emin + 1;
  if (biased >= (1 << ebits) - 1) return inf_code;
  return (static_cast<std::uint32_t>(biased) << frac) | (m - (1u << frac));
}
}  // namespace detail

RUNG_HD std::uint16_t f16_from_f64(double x) {
  if (is_nan(x)) return kCanonicalNanF16;
  std::uint16_t sign = sign_bit(x) ? 0x8000 : 0;
  if (is_inf(x)) return sign | 0x7C00;
  return sign | static_cast<std::uint16_t>(detail::round_to_small_format(abs_f64(x), 10, -14, 5));
}

RUNG_HD std::uint16_t bf16_from_f64(double x) {
  if (is_nan(x)) return kCanonicalNanBF16;
  std::uint16_t sign = sign_bit(x) ? 0x8000 : 0;
  if (is_inf(x)) return sign | 0x7F80;
  return sign | static_cast<std::uint16_t>(detail::round_to_small_format(abs_f64(x), 7, -126, 8));
}

RUNG_HD std::uint16_t f16_from_f32(float x) { return f16_from_f64(static_cast<double>(x)); }
RUNG_HD std::uint16_t bf16_from_f32(float x) { return bf16_from_f64(static_cast<double>(x)); }

// Widening is exact.
RUNG_HD float f32_from_f16(std::uint16_t h) {
  std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000) << 16;
  std::uint32_t e = (h >> 10) & 0x1F;
  std::uint32_t m = h & 0x3FF;
  if (e == 0x1F) return f32_from_bits(sign | 0x7F800000u | (m << 13));
  if (e == 0) {
    // Zero or subnormal: m * 2^-24, exact in a float.
    float v = static_cast<float>(m) * 5.9604644775390625e-08f;
    return sign ? -v : v;
  }
  return f32_from_bits(sign | ((e + 112) << 23) | (m << 13));
}

RUNG_HD float f32_from_bf16(std::uint16_t h) { return f32_from_bits(static_cast<std::uint32_t>(h) << 16); }

}  // namespace rung::num
