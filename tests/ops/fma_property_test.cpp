// The binary32 fma that targets without a fused instruction use (WebAssembly, SSE4, scalar):
// both of rung's forms, the midpoint one (num::fma_f32_soft) and round-to-odd
// (num::fma_f32_odd), must equal a correctly rounded fma on every input. MPFR decides the
// hard vectors and a million random cases; 10^8 more are held to the hardware fma (checked
// against MPFR first), in families where a wrong implementation would show: uniform bit
// patterns, near-cancellation, products whose binary64 sum lands on a float midpoint, and
// subnormal results.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <cmath>
#include <cstdint>

#include "ops/fma_hard_vectors.h"
#include "ops/split_mix.h"
#include "ops/numerics/ieee.h"

namespace rung::testing {
namespace {

float f(std::uint32_t u) { return num::f32_from_bits(u); }
std::uint32_t u(float x) { return num::bits_of(x); }

// Correctly rounded binary32 fma by MPFR: exact product and sum at 24 bits, then subnormals
// (mpfr_subnormalize) within float's exponent range.
float fma_mpfr(float a, float b, float c) {
  if (std::isnan(a) || std::isnan(b) || std::isnan(c)) return NAN;
  mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
  mpfr_set_emin(-148);
  mpfr_set_emax(128);
  mpfr_t x, y, z, r;
  mpfr_inits2(24, x, y, z, r, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_flt(x, a, MPFR_RNDN);
  mpfr_set_flt(y, b, MPFR_RNDN);
  mpfr_set_flt(z, c, MPFR_RNDN);
  int t = mpfr_fma(r, x, y, z, MPFR_RNDN);
  mpfr_subnormalize(r, t, MPFR_RNDN);
  float out = mpfr_get_flt(r, MPFR_RNDN);
  mpfr_clears(x, y, z, r, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);
  return out;
}

// NaN equals NaN (payloads are not part of the contract); otherwise the same bits.
bool same(float x, float y) { return (std::isnan(x) && std::isnan(y)) || u(x) == u(y); }

// One of the families, drawn from `g`.
void draw(SplitMix& g, int family, float& a, float& b, float& c) {
  switch (family) {
    case 0:  // any bit patterns
      a = f(g.word()), b = f(g.word()), c = f(g.word());
      return;
    case 1: {  // c cancels the product's leading bits
      a = f((g.word() & 0x807fffff) | 0x3f800000), b = f((g.word() & 0x807fffff) | 0x3f800000);
      float p = static_cast<float>(static_cast<double>(a) * b);
      c = f(u(-p) + (g.word() % 5) - 2);
      return;
    }
    case 2: {  // (1 + u)(1 - u) 2^(e-24) + c, u = k 2^-23: the exact sum lies k^2 2^-70 (relative) off the
               // midpoint next to c, which its binary64 rounding lands on
      int k = 1 + static_cast<int>(g.word() % 255), e = static_cast<int>(g.word() % 200) - 100;
      a = 1.0f + static_cast<float>(k) * 0x1p-23f;
      b = std::ldexp(1.0f - static_cast<float>(k) * 0x1p-23f, e - 24);
      c = std::ldexp(f(0x3f800000 | (g.word() & 0x7fffff)), e);
      std::uint32_t signs = g.word();
      if (signs & 1) a = -a, c = -c;
      if (signs & 2) c = -c;
      return;
    }
    default: {  // subnormal results: small operands of both signs
      std::uint32_t ea = 0x0d000000 + (g.word() % 0x0a000000), eb = 0x3d000000 + (g.word() % 0x04000000);
      a = f((ea & 0x7f800000) | (g.word() & 0x807fffff));
      b = f((eb & 0x7f800000) | (g.word() & 0x807fffff));
      c = f(g.word() & 0x80ffffff);
      return;
    }
  }
}

TEST(FmaProperty, HardVectorsAreCorrectlyRounded) {
  for (const FmaOperands& v : kFmaHardVectors) {
    float a = f(v.a), b = f(v.b), c = f(v.c), want = fma_mpfr(a, b, c);
    EXPECT_TRUE(same(num::fma_f32_soft(a, b, c), want)) << std::hex << v.a << " " << v.b << " " << v.c << ": midpoint form "
                                                        << u(num::fma_f32_soft(a, b, c)) << ", want " << u(want);
    EXPECT_TRUE(same(num::fma_f32_odd(a, b, c), want)) << std::hex << v.a << " " << v.b << " " << v.c << ": round-to-odd "
                                                       << u(num::fma_f32_odd(a, b, c)) << ", want " << u(want);
    EXPECT_TRUE(same(num::fma_f32(a, b, c), want)) << std::hex << v.a << " " << v.b << " " << v.c << ": the target's fma";
  }
  // Double rounding fails on some of them: they do reach the cases the two forms exist for.
  int double_rounding_wrong = 0;
  for (const FmaOperands& v : kFmaHardVectors)
    double_rounding_wrong += !same(static_cast<float>(static_cast<double>(f(v.a)) * f(v.b) + f(v.c)), fma_mpfr(f(v.a), f(v.b), f(v.c)));
  EXPECT_GE(double_rounding_wrong, 4);
  // The case musl's fmaf gets wrong, spelled out.
  EXPECT_EQ(u(num::fma_f32_odd(f(0x3f800001), f(0x337ffffe), 1.0f)), 0x3f800000u);
  EXPECT_EQ(u(num::fma_f32_soft(f(0x3f800001), f(0x337ffffe), 1.0f)), 0x3f800000u);
}

// Plain double rounding (binary64 sum, then float) is wrong on the midpoint family: the test
// families do reach the cases the two forms exist for.
TEST(FmaProperty, TheMidpointFamilyCatchesDoubleRounding) {
  SplitMix g{7};
  int wrong = 0;
  for (int i = 0; i < 1000000; ++i) {
    float a, b, c;
    draw(g, 2, a, b, c);
    wrong += !same(static_cast<float>(static_cast<double>(a) * b + c), fma_mpfr(a, b, c));
  }
  EXPECT_GT(wrong, 100000);  // about a quarter: an odd c with the sum on c's side of the midpoint
}

TEST(FmaProperty, AMillionCasesAgainstMpfr) {
  SplitMix g{1};
  for (int i = 0; i < 1000000; ++i) {
    float a, b, c;
    draw(g, i % 4, a, b, c);
    float want = fma_mpfr(a, b, c);
    ASSERT_TRUE(same(num::fma_f32_soft(a, b, c), want) && same(num::fma_f32_odd(a, b, c), want) &&
                same(num::fma_f32(a, b, c), want))
        << std::hex << u(a) << " " << u(b) << " " << u(c) << " family " << i % 4;
  }
}

// 10^8 cases against the target's fma (hardware on x86-64 and aarch64; correct by MPFR above).
TEST(FmaProperty, AHundredMillionCasesAgainstTheHardwareFma) {
  SplitMix g{2};
  std::uint64_t bad = 0;
  for (std::uint64_t i = 0; i < 100000000; ++i) {
    float a, b, c;
    draw(g, static_cast<int>(i & 3), a, b, c);
    float want = num::fma_f32(a, b, c);
    if (!same(num::fma_f32_soft(a, b, c), want) || !same(num::fma_f32_odd(a, b, c), want)) {
      if (++bad <= 5) ADD_FAILURE() << std::hex << u(a) << " " << u(b) << " " << u(c) << " family " << (i & 3);
    }
  }
  EXPECT_EQ(bad, 0u);
}

}  // namespace
}  // namespace rung::testing
