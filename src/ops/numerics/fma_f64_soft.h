// fma(a, b, c) for binary64 in integer arithmetic, for targets with no fma instruction
// (WebAssembly). libm is no substitute there: musl's fma returns a*b + c when c is zero, which
// gives +0 where the correctly rounded result is -0 (a negative product that underflows to
// -0, plus +0). ieee.h takes this under __wasm__; natively it is tested against the hardware.
#pragma once

#include <cstdint>

#include "ops/numerics/portable.h"

namespace rung::num {

namespace fma_f64_detail {

// An unsigned 128-bit integer from two 64-bit halves: freestanding wasm modules have no
// compiler runtime for __int128 (__multi3, __ashlti3), so only what the fma needs.
struct U128 {
  std::uint64_t hi, lo;
};

RUNG_HD U128 mul_64x64(std::uint64_t a, std::uint64_t b) {
  std::uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
  std::uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  std::uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
  return {p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32), (mid << 32) | (p00 & 0xFFFFFFFFu)};
}
RUNG_HD bool is_zero(U128 v) { return (v.hi | v.lo) == 0; }
RUNG_HD bool less(U128 a, U128 b) { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo); }
RUNG_HD U128 add(U128 a, U128 b) {
  std::uint64_t lo = a.lo + b.lo;
  return {a.hi + b.hi + (lo < a.lo ? 1 : 0), lo};
}
RUNG_HD U128 sub(U128 a, U128 b) {  // a >= b
  return {a.hi - b.hi - (a.lo < b.lo ? 1 : 0), a.lo - b.lo};
}
RUNG_HD U128 shl(U128 v, int d) {  // 0 <= d < 128
  if (d == 0) return v;
  if (d >= 64) return {v.lo << (d - 64), 0};
  return {(v.hi << d) | (v.lo >> (64 - d)), v.lo << d};
}
RUNG_HD U128 shr(U128 v, int d) {  // 0 <= d < 128
  if (d == 0) return v;
  if (d >= 64) return {0, v.hi >> (d - 64)};
  return {v.hi >> d, (v.lo >> d) | (v.hi << (64 - d))};
}
RUNG_HD U128 low_bits(U128 v, int d) {  // v mod 2^d, 0 <= d < 128
  if (d >= 64) return {d == 64 ? 0 : v.hi & ((std::uint64_t{1} << (d - 64)) - 1), v.lo};
  return {0, d == 0 ? 0 : v.lo & ((std::uint64_t{1} << d) - 1)};
}
RUNG_HD int top_bit(U128 v) {  // v != 0
  if (v.hi != 0) return 127 - __builtin_clzll(v.hi);
  return 63 - __builtin_clzll(v.lo);
}

// A finite nonzero double as m * 2^e with m an integer (53 bits at most).
struct Scaled {
  std::uint64_t m;
  int e;
  bool negative;
};

RUNG_HD Scaled scaled(double x) {
  std::uint64_t u = bits_of(x);
  int biased = static_cast<int>((u >> 52) & 0x7FF);
  std::uint64_t frac = u & ((std::uint64_t{1} << 52) - 1);
  if (biased == 0) return {frac, -1074, (u >> 63) != 0};
  return {frac | (std::uint64_t{1} << 52), biased - 1075, (u >> 63) != 0};
}

// Shifted left so the top bit is bit 125: two bits of headroom for the sum, and at least 72
// bits below a 53-bit result for its rounding.
RUNG_HD void normalize(U128& v, int& e) {
  int shift = 125 - top_bit(v);
  v = shl(v, shift);
  e -= shift;
}

// v >> d, with bit 0 set when a nonzero bit was shifted out. The value is then odd exactly
// when it is inexact, and every rounding boundary below (a multiple of 2^70 or more) lies on
// the same side of it as of the exact value.
RUNG_HD U128 shift_right_sticky(U128 v, int d) {
  if (d >= 128) return {0, is_zero(v) ? 0u : 1u};
  U128 kept = shr(v, d);
  kept.lo |= is_zero(low_bits(v, d)) ? 0 : 1;
  return kept;
}

// Rounds s * 2^e (s != 0) to the nearest double, ties to even, subnormals kept.
RUNG_HD double round_to_double(U128 s, int e, bool negative) {
  int top = e + top_bit(s);            // s * 2^e lies in [2^top, 2^(top+1))
  int quantum = top - 52 > -1074 ? top - 52 : -1074;
  int shift = quantum - e;
  std::uint64_t m;
  if (shift <= 0) {
    m = shl(s, -shift).lo;  // exact
  } else if (shift >= 128) {
    m = 0;  // below half the smallest subnormal
  } else {
    U128 rest = low_bits(s, shift);
    U128 half = shl(U128{0, 1}, shift - 1);
    m = shr(s, shift).lo;
    if (less(half, rest) || (!less(rest, half) && (m & 1) != 0)) ++m;
  }
  if (m == (std::uint64_t{1} << 53)) {  // rounded up to the next binade
    m >>= 1;
    ++quantum;
  }
  std::uint64_t sign = negative ? std::uint64_t{1} << 63 : 0;
  if (m < (std::uint64_t{1} << 52)) return f64_from_bits(sign | m);  // subnormal or zero
  int biased = quantum + 52 + 1023;
  if (biased >= 2047) return f64_from_bits(sign | (std::uint64_t{0x7FF} << 52));  // overflow
  return f64_from_bits(sign | (static_cast<std::uint64_t>(biased) << 52) | (m - (std::uint64_t{1} << 52)));
}

}  // namespace fma_f64_detail

RUNG_HD double fma_f64_soft(double a, double b, double c) {
  using namespace fma_f64_detail;
  // Where the product is exact in binary64 (zero, infinite or NaN), IEEE mul and add are fma.
  if (is_nan(a) || is_nan(b) || is_nan(c) || is_inf(a) || is_inf(b) || a == 0 || b == 0) return a * b + c;
  if (is_inf(c)) return c;  // a finite product cannot cancel it (a*b might overflow to inf)
  if (c == 0) return a * b;  // one rounding of the product; its zero keeps the product's sign

  Scaled x = scaled(a), y = scaled(b), z = scaled(c);
  U128 p = mul_64x64(x.m, y.m);
  int pe = x.e + y.e;
  bool pneg = x.negative != y.negative;
  U128 q{0, z.m};
  int qe = z.e;
  normalize(p, pe);
  normalize(q, qe);
  if (pe < qe || (pe == qe && less(p, q))) {  // the larger magnitude first
    U128 t = p;
    p = q;
    q = t;
    int te = pe;
    pe = qe;
    qe = te;
    bool tn = pneg;
    pneg = z.negative;
    z.negative = tn;
  }
  q = shift_right_sticky(q, pe - qe);
  U128 s = pneg == z.negative ? add(p, q) : sub(p, q);
  if (is_zero(s)) return 0.0;  // exact cancellation: +0 in round to nearest
  return round_to_double(s, pe, pneg);
}

}  // namespace rung::num
