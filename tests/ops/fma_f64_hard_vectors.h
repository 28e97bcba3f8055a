// Operands on which a binary64 fma built from other arithmetic goes wrong if it is wrong at all:
// the zero sign musl's fma gets wrong, sums on and next to a midpoint, cancellation, sticky
// bits far below the result, subnormal results, overflow, signed zeros, infinities and NaN.
// Bit patterns, so a test in any language can read them; the expected results are computed
// where the test runs (MPFR natively, the native build's for wasm).
#pragma once

#include <cstdint>

namespace rung::testing {

struct Fma64Operands {
  std::uint64_t a, b, c;
};

inline constexpr Fma64Operands kFma64HardVectors[] = {
    // musl: fma(2^-1074, -0x1.b1d8729d3089cp-3, +0) is -0 (the product underflows), musl gives +0.
    {0x0000000000000001, 0xbfcb1d8729d3089c, 0x0000000000000000}, {0x8000000000000001, 0x0000000000000001, 0x0000000000000000},
    {0x8000000000000001, 0x0000000000000001, 0x8000000000000000}, {0x8000000000000001, 0x3fe0000000000000, 0x0000000000000000},
    // 2^-1075 ties to 0 (even); a hair above rounds up to 2^-1074.
    {0x0000000000000001, 0x3fe0000000000000, 0x0000000000000000}, {0x0000000000000001, 0x3fe0000000000001, 0x0000000000000000},
    {0x0000000000000003, 0x3fe0000000000000, 0x8000000000000000},
    // 2^-1022 (1 - 2^-53): a subnormal-quantum midpoint that rounds to the smallest normal.
    {0x0010000000000000, 0x3fefffffffffffff, 0x0000000000000000}, {0x0010000000000000, 0x3fefffffffffffff, 0x8000000000000001},
    // Exact midpoints (1 + 2^-53 ties to 1; next to an odd c, to the even neighbour above).
    {0x3ca0000000000000, 0x3ff0000000000000, 0x3ff0000000000000}, {0x3ca0000000000000, 0x3ff0000000000000, 0x3ff0000000000001},
    {0xbca0000000000000, 0x3ff0000000000000, 0xbff0000000000001},
    // Next to a midpoint by 2^-105 above and 2^-157 below: one rounding in 53 bits is wrong.
    {0x3ff0000000000001, 0x3ca0000000000000, 0x3ff0000000000000}, {0x3ff0000000000001, 0x3c9fffffffffffff, 0x3ff0000000000000},
    {0xbff0000000000001, 0x3ca0000000000000, 0xbff0000000000000},
    // c's bits far below the product's (the sticky bit), added and subtracted.
    {0x3ff0000000000000, 0x3ff0000000000000, 0x3c90000000000001}, {0x3ff0000000000000, 0x3ff0000000000000, 0xbc90000000000001},
    {0x3ff0000000000000, 0x3ff0000000000000, 0xb370000000000000}, {0x3ff0000000000000, 0x3ff0000000000000, 0x8000000000000001},
    {0x7fe0000000000000, 0x3ff0000000000000, 0x0000000000000001}, {0x0000000000000001, 0x0000000000000001, 0x3ff0000000000000},
    // A product 2^-105 below a midpoint plus c = 2^-105 (1 + 2^-52), and one 2^-103 above a
    // midpoint minus c = 2^-103 (1 + 2^-52): c's last bit lies far below the 53 kept bits, but
    // without it the sum lands exactly on the midpoint and ties the wrong way.
    {0x3fefffffffffffff, 0x3ff0000000000001, 0x3960000000000001}, {0xbfefffffffffffff, 0x3ff0000000000001, 0xb960000000000001},
    {0x3ff0000000000001, 0x3ff8000000000002, 0xb980000000000001}, {0xbff0000000000001, 0x3ff8000000000002, 0x3980000000000001},
    // Cancellation: (1 + 2^-52)^2 - (1 + 2^-51) = 2^-104 exactly; a product that cancels c to 0.
    {0x3ff0000000000001, 0x3ff0000000000001, 0xbff0000000000002}, {0x4008000000000000, 0x3fd5555555555555, 0xbff0000000000000},
    {0x3ff8000000000000, 0x4000000000000000, 0xc008000000000000}, {0xbff8000000000000, 0x4000000000000000, 0x4008000000000000},
    // Overflow: DBL_MAX (odd) + half its ulp ties up to inf; a quarter ulp stays; products far out.
    {0x7fefffffffffffff, 0x3ff0000000000000, 0x7c90000000000000}, {0x7fefffffffffffff, 0x3ff0000000000000, 0x7c80000000000000},
    {0x7fefffffffffffff, 0x4000000000000000, 0x0000000000000000}, {0x7fefffffffffffff, 0x4000000000000000, 0xffefffffffffffff},
    {0x7fefffffffffffff, 0x7fefffffffffffff, 0xfff0000000000000}, {0xffefffffffffffff, 0x3ff0000000000001, 0x7fefffffffffffff},
    // Subnormal operands with normal results, and products far below the smallest subnormal.
    {0x0000000000000001, 0x4330000000000000, 0x3ff0000000000000}, {0x000fffffffffffff, 0x4340000000000000, 0x0000000000000000},
    {0x0000000000000001, 0x0000000000000001, 0x8000000000000001},
    // Signed zeros: an exact zero sum is +0 in round to nearest unless both are -0.
    {0x0000000000000000, 0xbff0000000000000, 0x0000000000000000}, {0x8000000000000000, 0x3ff0000000000000, 0x8000000000000000},
    {0x3ff0000000000000, 0x3ff0000000000000, 0xbff0000000000000}, {0xbff0000000000000, 0x3ff0000000000000, 0x3ff0000000000000},
    // Infinities and NaN.
    {0x7ff0000000000000, 0x0000000000000000, 0x3ff0000000000000}, {0x7ff0000000000000, 0x3ff0000000000000, 0xfff0000000000000},
    {0x7ff0000000000000, 0x3ff0000000000000, 0x3ff0000000000000}, {0x3ff0000000000000, 0x3ff0000000000000, 0x7ff0000000000000},
    {0x7ff8000000000000, 0x3ff0000000000000, 0x3ff0000000000000}, {0x3ff0000000000000, 0x3ff0000000000000, 0x7ff8000000000001},
    {0x3ff0000000000000, 0x7fefffffffffffff, 0xfff0000000000000},
};

}  // namespace rung::testing
