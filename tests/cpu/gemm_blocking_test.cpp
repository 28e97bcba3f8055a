// The exact GEMM driver against the sequential-k fma chain, on shapes that cross every
// blocking boundary (k-blocks, MC row blocks, NC column panels, edge tiles), in the plain and
// transposed forms, on 1 and 2 threads (disjoint row or column blocks, each packing its own B) and
// on every x86 Highway target this CPU has: every element must have the chain's bits.
#include <gtest/gtest.h>
#include <hwy/highway.h>
#include <hwy/targets.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/gemm.h"
#include "backends/cpu/thread_pool.h"

namespace rung::cpu {
namespace {

struct Shape {
  std::uint64_t m, k, n;
};

template <typename T> struct Problem {
  Shape s;
  bool ta = false, tb = false;
  std::vector<T> a, b, want;

  Problem(Shape shape, bool trans_a, bool trans_b, std::uint64_t seed) : s(shape), ta(trans_a), tb(trans_b) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<T> u(-1, 1);
    a.resize(s.m * s.k);
    b.resize(s.k * s.n);
    for (auto& x : a) x = u(rng);
    for (auto& x : b) x = u(rng);
    want.assign(s.m * s.n, T(0));
    for (std::uint64_t i = 0; i < s.m; ++i)
      for (std::uint64_t j = 0; j < s.n; ++j) {
        T c = T(0);
        for (std::uint64_t k = 0; k < s.k; ++k) c = std::fma(a[i * a_rs() + k * a_ks()], b[k * b_ks() + j * b_cs()], c);
        want[i * s.n + j] = c;
      }
  }
  // A is stored M x K (or K x M when transposed), B K x N (or N x K).
  std::uint64_t a_rs() const { return ta ? 1 : s.k; }
  std::uint64_t a_ks() const { return ta ? s.m : 1; }
  std::uint64_t b_ks() const { return tb ? 1 : s.n; }
  std::uint64_t b_cs() const { return tb ? s.k : 1; }

  // Differing elements of rung's product (C poisoned first: every element must be written).
  std::uint64_t differing(unsigned threads) const {
    ThreadPool pool(threads);
    std::vector<T> c(s.m * s.n, std::numeric_limits<T>::quiet_NaN());
    GemmArgs<T> g;
    g.M = s.m, g.N = s.n, g.K = s.k;
    g.a = a.data(), g.a_rs = a_rs(), g.a_ks = a_ks();
    g.b = b.data(), g.b_ks = b_ks(), g.b_cs = b_cs();
    g.c = c.data(), g.ldc = s.n;
    gemm_batch(pool, {g});
    std::uint64_t bad = 0;
    for (std::uint64_t i = 0; i < c.size(); ++i) bad += std::memcmp(&c[i], &want[i], sizeof(T)) != 0;
    return bad;
  }
};

template <typename T> std::vector<Problem<T>> problems(const std::vector<Shape>& shapes) {
  std::vector<Problem<T>> out;
  std::uint64_t seed = 1;
  for (const Shape& s : shapes)
    for (int form = 0; form < 3; ++form) out.emplace_back(s, form == 1, form == 2, seed++);
  return out;
}

// 197 rows: 3 row blocks of 96 with an edge tile; 600 = 2 full k-blocks of 256 + 88; 1100
// columns: 2 column panels at AVX-512 with an edge tile. The smaller shapes cross the same
// boundaries for the narrower targets' panels and keep the slow non-FMA targets quick.
const std::vector<Problem<float>>& large_f32() {
  static const auto p = problems<float>({{197, 600, 1100}});
  return p;
}
const std::vector<Problem<float>>& small_f32() {
  static const auto p = problems<float>({{50, 270, 300}, {13, 5, 37}, {1, 1, 1}});
  return p;
}
const std::vector<Problem<double>>& small_f64() {
  static const auto p = problems<double>({{40, 260, 530}, {7, 3, 9}});
  return p;
}

template <typename T> void expect_exact(const std::vector<Problem<T>>& ps) {
  for (unsigned threads : {1u, 2u})
    for (const auto& p : ps)
      EXPECT_EQ(p.differing(threads), 0u) << p.s.m << "x" << p.s.k << "x" << p.s.n << " ta=" << p.ta << " tb=" << p.tb
                                          << " threads=" << threads << " target=" << simd_target_name();
}

class GemmTarget : public ::testing::TestWithParam<std::int64_t> {
 protected:
  void TearDown() override { hwy::SetSupportedTargetsForTest(0); }
};

TEST_P(GemmTarget, EveryElementIsTheSequentialFmaChain) {
  const std::int64_t target = GetParam();
  if (target != 0) {
    if ((hwy::SupportedTargets() & target) == 0 || (HWY_TARGETS & target) == 0)
      GTEST_SKIP() << "this CPU (or build) lacks " << hwy::TargetName(target);
    hwy::SetSupportedTargetsForTest(target);
  }
  expect_exact(small_f32());
  expect_exact(small_f64());
  if (target != HWY_SSE4) expect_exact(large_f32());  // SSE4 has no fma instruction: slow
}

std::string target_label(const ::testing::TestParamInfo<std::int64_t>& i) {
  return i.param == 0 ? std::string("Native") : std::string(hwy::TargetName(i.param));
}

#if HWY_ARCH_X86
INSTANTIATE_TEST_SUITE_P(Targets, GemmTarget, ::testing::Values(0, HWY_AVX3, HWY_AVX2, HWY_SSE4), target_label);
#else
INSTANTIATE_TEST_SUITE_P(Targets, GemmTarget, ::testing::Values(0), target_label);
#endif

}  // namespace
}  // namespace rung::cpu
