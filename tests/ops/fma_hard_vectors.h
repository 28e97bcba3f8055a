// Operands on which a binary32 fma built from other arithmetic goes wrong if it is wrong at
// all: half-way cases (the sum of the exact product and c lands on a float midpoint in binary64
// while the exact value does not), subnormal results and operands, overflow, signed zeros,
// infinities and NaN. Bit patterns, so a test in any language can read them; the expected
// results are computed where the test runs (MPFR natively, the native build's for wasm).
#pragma once

#include <cstdint>

namespace rung::testing {

struct FmaOperands {
  std::uint32_t a, b, c;
};

inline constexpr FmaOperands kFmaHardVectors[] = {
    // fmaf(1+2^-23, 2^-24 (1-2^-23), 1): musl's fmaf gives 0x3f800001, the correct one 0x3f800000.
    {0x3f800001, 0x337ffffe, 0x3f800000}, {0xbf800001, 0x337ffffe, 0xbf800000}, {0x3f800001, 0x337fffff, 0x3f800000},
    // The same sums next to an odd c, where a binary64 sum rounded again to float (ties to
    // even) is wrong: below the midpoint above c, and above the midpoint below it.
    {0x3f800001, 0x337ffffe, 0x3f800001}, {0xbf800001, 0x337ffffe, 0xbf800001}, {0xbf800001, 0x337ffffe, 0x3f800003},
    {0x3f800001, 0x337ffffe, 0xbf800003}, {0x3f800011, 0x3f7fffde, 0x4c000001}, {0x3f800002, 0x2b7ffff8, 0x33800001},
    // Midpoint of 1 and 1+2^-23 plus or minus a remainder far below binary64's last bit.
    {0x3f800001, 0x33800000, 0x3f800000}, {0x3f7fffff, 0x33800001, 0x3f800000}, {0x3fffffff, 0x33ffffff, 0x3f800000},
    {0x3f800003, 0x337ffffd, 0x3f800000}, {0x4b000001, 0x3effffff, 0x4b000000},
    // Subnormal results: 2^-150 ties to 0 (even), a hair above rounds up to 2^-149.
    {0x1a000000, 0x1a000000, 0x00000000}, {0x1a000001, 0x1a000000, 0x00000000}, {0x00000001, 0x3f000000, 0x00000000},
    {0x00000001, 0x3f000001, 0x00000000}, {0x00800001, 0x3f7fffff, 0x80000001}, {0x00800000, 0x3f000000, 0x00000001},
    {0x00000003, 0x3f000000, 0x80000000}, {0x007fffff, 0x3f800001, 0x00000000}, {0x80000001, 0x3fc00000, 0x00000000},
    // Subnormal operands with normal results, and products far below the smallest subnormal.
    {0x00000001, 0x4b000000, 0x3f800000}, {0x00000001, 0x00000001, 0x3f800000}, {0x00000001, 0x00000001, 0x80000000},
    {0x00000001, 0x00000001, 0x00000001}, {0x00400000, 0x7f000000, 0x00000000},
    // Overflow and the largest finite values.
    {0x7f7fffff, 0x40000000, 0x00000000}, {0x7f7fffff, 0x3f800000, 0x73800000}, {0x7f7fffff, 0x3f800000, 0x73000000},
    {0x7f7fffff, 0x7f7fffff, 0xff800000}, {0x7f7fffff, 0xbf800000, 0x7f7fffff}, {0xff7fffff, 0x3f800001, 0x7f7fffff},
    // Signed zeros: the sign of an exact zero sum follows IEEE (+0 in round to nearest unless both are -0).
    {0x00000000, 0xbf800000, 0x00000000}, {0x80000000, 0x3f800000, 0x80000000}, {0x3f800000, 0x80000000, 0x00000000},
    {0x3f800000, 0x3f800000, 0xbf800000}, {0xbf800000, 0x3f800000, 0x3f800000}, {0x00000001, 0x80000001, 0x00000000},
    {0x00000001, 0x80000001, 0x80000000},
    // Infinities and NaN.
    {0x7f800000, 0x00000000, 0x3f800000}, {0x7f800000, 0x3f800000, 0xff800000}, {0x7f800000, 0x3f800000, 0x3f800000},
    {0x3f800000, 0x3f800000, 0x7f800000}, {0x7fc00000, 0x3f800000, 0x3f800000}, {0x3f800000, 0x3f800000, 0x7fc00001},
    {0xffc00000, 0x00000000, 0x7f800000},
};

}  // namespace rung::testing
