// rung's sin and cos (docs/semantics.md). Like exp/log: a binary64 evaluation with plain
// double operations, rounded once to f32.
//
// Argument reduction x = k*pi/2 + r, |r| <= pi/4 (a little more near the switch-over):
//  * |x| < 2^19: Cody-Waite in binary64 with pi/2 = P1 + P2 + P3 (P1, P2 have 33 significant
//    bits, so k*P1 and k*P2 are exact for k < 2^20); r = ((|x| - k P1) - k P2) - k P3.
//  * otherwise Payne-Hanek in integer arithmetic: |x| = M * 2^E (M < 2^24), and the 128 bits
//    of 2/pi that matter for E give (|x| * 2/pi) mod 4 as a fixed-point number: the top two
//    bits are the quadrant, the next 96 the fraction f, and r = f * pi/2.
// Then sin/cos of r by Taylor polynomials (degree 15 and 16) and the quadrant's symmetry.
#pragma once

#include "ops/numerics/portable.h"

namespace rung::num {

namespace trig_const {
inline constexpr double kTwoOverPi = 0x1.45f306dc9c883p-1;
inline constexpr double kPio2 = 0x1.921fb54442d18p+0;
inline constexpr double kPio2_1 = 0x1.921fb544p+0;          // pi/2 to 33 bits
inline constexpr double kPio2_2 = 0x1.0b4611a6p-34;         // the next 33 bits
inline constexpr double kPio2_3 = 0x1.3198a2e037073p-69;    // the rest, rounded
}  // namespace trig_const

// 32 bits of 2/pi starting at fraction bit `pos` (bit 1 is the first after the point); bits
// before the point (pos < 1) are 0.
RUNG_HD std::uint32_t two_over_pi_bits32(int pos) {
  // The first 288 fraction bits of 2/pi, most significant first. A local table: CUDA device
  // code cannot read namespace-scope arrays.
  constexpr std::uint32_t kTwoOverPiBits[9] = {0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u,
                                               0x3c439041u, 0xfe5163abu, 0xdebbc561u, 0xb7246e3au};
  std::uint32_t out = 0;
  for (int b = 0; b < 32; ++b) {
    int p = pos + b;  // 1-based fraction bit
    std::uint32_t bit = 0;
    if (p >= 1) bit = (kTwoOverPiBits[(p - 1) / 32] >> (31 - (p - 1) % 32)) & 1u;
    out = (out << 1) | bit;
  }
  return out;
}

struct Reduced {
  double r;  // |r| <= ~pi/4
  int quadrant;  // k mod 4
};

// Reduces a non-negative finite float given as a double.
RUNG_HD Reduced reduce_pio2(double ax) {
  using namespace trig_const;
  if (ax < 0x1p19) {
    double k = round_even_f64(ax * kTwoOverPi);
    double r = ((ax - k * kPio2_1) - k * kPio2_2) - k * kPio2_3;
    return {r, static_cast<int>(static_cast<std::int64_t>(k) & 3)};
  }
  // Payne-Hanek. ax = M * 2^E with M the 24-bit significand of the float.
  std::uint64_t u = bits_of(ax);
  int E = static_cast<int>((u >> 52) & 0x7FF) - 1023 - 23;
  std::uint64_t M = ((u & 0x000FFFFFFFFFFFFFull) | 0x0010000000000000ull) >> 29;  // exact: a float has 24 bits
  // Bits i of 2/pi contribute M * 2^(E - i); those with E - i >= 2 are multiples of 4 and
  // drop out mod 4. The window holds bits E-1 .. E+126 as W, so the sum is M*W*2^(2-128)
  // and (M*W mod 2^128) is (ax*2/pi mod 4) in fixed point with 126 fraction bits; the bits
  // beyond the window change it by less than M units of 2^-126.
  std::uint32_t w[4];  // w[0] most significant
  for (int j = 0; j < 4; ++j) w[j] = two_over_pi_bits32(E - 1 + 32 * j);
  std::uint32_t p[4];
  std::uint64_t carry = 0;
  for (int j = 3; j >= 0; --j) {
    std::uint64_t t = M * w[j] + carry;
    p[j] = static_cast<std::uint32_t>(t);
    carry = t >> 32;
  }
  int quadrant = static_cast<int>(p[0] >> 30);
  // The 96 bits after the quadrant bits: f = hi/2^64 + lo/2^96.
  std::uint64_t hi = (static_cast<std::uint64_t>((p[0] << 2) | (p[1] >> 30)) << 32) | ((p[1] << 2) | (p[2] >> 30));
  std::uint32_t lo = (p[2] << 2) | (p[3] >> 30);
  bool negative = (hi >> 63) != 0;  // f >= 1/2: use f - 1 and the next quadrant
  if (negative) {
    // (hi, lo) <- 2^96 - (hi, lo): the magnitude of f - 1.
    lo = ~lo + 1u;
    hi = ~hi + (lo == 0 ? 1u : 0u);
    quadrant = (quadrant + 1) & 3;
  }
  double f = static_cast<double>(hi) * 0x1p-64 + static_cast<double>(lo) * 0x1p-96;
  double r = f * kPio2;
  return {negative ? -r : r, quadrant};
}

// sin(r), |r| <= ~0.8: r + r^3 (-1/3! + r^2 (1/5! - ...)), Taylor through r^15.
RUNG_HD double sin_poly(double r) {
  double z = r * r;
  double p = -0x1.ae7f3e733b81fp-41;   // -1/15!
  p = p * z + 0x1.6124613a86d09p-33;   //  1/13!
  p = p * z + -0x1.ae64567f544e4p-26;  // -1/11!
  p = p * z + 0x1.71de3a556c734p-19;   //  1/9!
  p = p * z + -0x1.a01a01a01a01ap-13;  // -1/7!
  p = p * z + 0x1.1111111111111p-7;    //  1/5!
  p = p * z + -0x1.5555555555555p-3;   // -1/3!
  return r + (r * z) * p;
}

// cos(r), |r| <= ~0.8: 1 + z (-1/2 + z (1/4! - ...)), Taylor through r^16.
RUNG_HD double cos_poly(double r) {
  double z = r * r;
  double p = 0x1.ae7f3e733b81fp-45;    //  1/16!
  p = p * z + -0x1.93974a8c07c9dp-37;  // -1/14!
  p = p * z + 0x1.1eed8eff8d898p-29;   //  1/12!
  p = p * z + -0x1.27e4fb7789f5cp-22;  // -1/10!
  p = p * z + 0x1.a01a01a01a01ap-16;   //  1/8!
  p = p * z + -0x1.6c16c16c16c17p-10;  // -1/6!
  p = p * z + 0x1.5555555555555p-5;    //  1/4!
  p = p * z + -0.5;
  return 1.0 + z * p;
}

RUNG_HD float sin_f32(float x) {
  if (is_nan(x) || is_inf(x)) return nan_f32();
  double ax = abs_f64(static_cast<double>(x));
  Reduced red = reduce_pio2(ax);
  double s;
  switch (red.quadrant) {
    case 0: s = sin_poly(red.r); break;
    case 1: s = cos_poly(red.r); break;
    case 2: s = -sin_poly(red.r); break;
    default: s = -cos_poly(red.r); break;
  }
  float y = static_cast<float>(s);
  return sign_bit(x) ? -y : y;  // sin is odd; keeps sin(-0) = -0
}

RUNG_HD float cos_f32(float x) {
  if (is_nan(x) || is_inf(x)) return nan_f32();
  double ax = abs_f64(static_cast<double>(x));
  Reduced red = reduce_pio2(ax);
  double c;
  switch (red.quadrant) {
    case 0: c = cos_poly(red.r); break;
    case 1: c = -sin_poly(red.r); break;
    case 2: c = -cos_poly(red.r); break;
    default: c = sin_poly(red.r); break;
  }
  return static_cast<float>(c);
}

}  // namespace rung::num
