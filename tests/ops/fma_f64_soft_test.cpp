// The binary64 fma WebAssembly builds take (num::fma_f64_soft, integer arithmetic: there is no
// fma instruction and musl's fma gets the sign of zero wrong) must equal a correctly rounded
// fma on every input. MPFR decides the hard vectors and a million random cases; 3 * 10^7 more
// are held to the hardware fma (checked against MPFR first), in families where a wrong
// implementation would show: uniform bit patterns, near-cancellation, sums next to a midpoint,
// subnormal results and products far from c.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <cmath>
#include <cstdint>

#include "ops/fma_f64_hard_vectors.h"
#include "ops/split_mix.h"
#include "ops/numerics/fma_f64_soft.h"
#include "ops/numerics/ieee.h"

namespace rung::testing {
namespace {

double d(std::uint64_t v) { return num::f64_from_bits(v); }
std::uint64_t u(double x) { return num::bits_of(x); }
bool same(double x, double y) { return (std::isnan(x) && std::isnan(y)) || u(x) == u(y); }

// Correctly rounded binary64 fma by MPFR: 53 bits, then subnormals within double's range.
double fma_mpfr(double a, double b, double c) {
  mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
  mpfr_set_emin(-1073);
  mpfr_set_emax(1024);
  mpfr_t x, y, z, r;
  mpfr_inits2(53, x, y, z, r, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_d(x, a, MPFR_RNDN);
  mpfr_set_d(y, b, MPFR_RNDN);
  mpfr_set_d(z, c, MPFR_RNDN);
  int t = mpfr_fma(r, x, y, z, MPFR_RNDN);
  mpfr_subnormalize(r, t, MPFR_RNDN);
  double out = mpfr_get_d(r, MPFR_RNDN);
  mpfr_clears(x, y, z, r, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);
  return out;
}

// A double with random significand and sign, exponent in [lo, lo + span).
double scaled(SplitMix& g, int lo, int span) {
  std::uint64_t w = g.next();
  double m = d((w & 0x800fffffffffffffULL) | 0x3ff0000000000000ULL);
  return std::ldexp(m, lo + static_cast<int>((w >> 52 & 0x7ff) % static_cast<std::uint64_t>(span)));
}

// One of the families, drawn from `g`.
void draw(SplitMix& g, int family, double& a, double& b, double& c) {
  switch (family) {
    case 0:  // any bit patterns
      a = d(g.next()), b = d(g.next()), c = d(g.next());
      return;
    case 1: {  // c cancels the product's leading bits
      a = scaled(g, -60, 120), b = scaled(g, -60, 120);
      c = d(u(-(a * b)) + g.next() % 5 - 2);
      return;
    }
    case 2: {  // c at a multiple of half an ulp of the product: sums on and next to midpoints
      a = scaled(g, -60, 120), b = scaled(g, -60, 120);
      double p = a * b;
      c = std::ldexp(static_cast<double>(static_cast<int>(g.next() % 9) - 4), std::ilogb(p) - 53 - static_cast<int>(g.next() % 3));
      if (g.next() & 1) std::swap(a, c);  // the small one as a factor too
      return;
    }
    case 3:  // subnormal and underflowing results
      a = scaled(g, -560, 300), b = scaled(g, -560, 300), c = (g.next() & 1) ? scaled(g, -1074, 60) : d(g.next() & 0x8000000000000000ULL);
      return;
    default:  // products and c far apart (sticky bits), near overflow
      a = scaled(g, -100, 1100), b = scaled(g, -100, 1100), c = scaled(g, -1000, 2000);
      return;
  }
}

TEST(FmaF64Soft, HardVectorsAreCorrectlyRounded) {
  int plain_wrong = 0;
  for (const Fma64Operands& v : kFma64HardVectors) {
    double a = d(v.a), b = d(v.b), c = d(v.c), want = fma_mpfr(a, b, c);
    EXPECT_TRUE(same(num::fma_f64_soft(a, b, c), want))
        << std::hex << v.a << " " << v.b << " " << v.c << ": soft " << u(num::fma_f64_soft(a, b, c)) << ", want " << u(want);
    EXPECT_TRUE(same(num::fma_f64(a, b, c), want)) << std::hex << v.a << " " << v.b << " " << v.c << ": the target's fma";
    plain_wrong += !same(a * b + c, want);
  }
  EXPECT_GE(plain_wrong, 10);  // the vectors reach what a product rounded before the sum gets wrong
  // The case musl's fma gets wrong, spelled out: -0, not +0.
  EXPECT_EQ(u(num::fma_f64_soft(0x1p-1074, -0x1.b1d8729d3089cp-3, 0.0)), 0x8000000000000000ULL);
}

TEST(FmaF64Soft, AMillionCasesAgainstMpfr) {
  SplitMix g{1};
  for (int i = 0; i < 1000000; ++i) {
    double a, b, c;
    draw(g, i % 5, a, b, c);
    double want = fma_mpfr(a, b, c);
    ASSERT_TRUE(same(num::fma_f64_soft(a, b, c), want) && same(num::fma_f64(a, b, c), want))
        << std::hex << u(a) << " " << u(b) << " " << u(c) << " family " << i % 5;
  }
}

// 3 * 10^7 against the target's fma (hardware on x86-64 and aarch64; correct by MPFR above).
TEST(FmaF64Soft, ThirtyMillionCasesAgainstTheHardwareFma) {
  SplitMix g{2};
  std::uint64_t bad = 0;
  for (std::uint64_t i = 0; i < 30000000; ++i) {
    double a, b, c;
    draw(g, static_cast<int>(i % 5), a, b, c);
    if (!same(num::fma_f64_soft(a, b, c), num::fma_f64(a, b, c)) && ++bad <= 5)
      ADD_FAILURE() << std::hex << u(a) << " " << u(b) << " " << u(c) << " family " << i % 5;
  }
  EXPECT_EQ(bad, 0u);
}

}  // namespace
}  // namespace rung::testing
