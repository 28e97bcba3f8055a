// Reductions: the canonical tree against an independent transcription of its definition,
// schedule independence (chunks on two threads), axes/keepdims/empty handling, and the
// edge cases of max/min/argmax/variance/logsumexp.
#include <cmath>
#include <random>
#include <thread>

#include "op_test_util.h"
#include "ops/numerics/exp_log.h"
#include "ops/numerics/reduce_tree.h"

namespace rung::ops::testing {
namespace {

// The definition in docs/semantics.md written out level by level with vectors.
float tree_by_levels(std::vector<float> level) {
  bool first = true;
  while (first || level.size() > 1) {
    first = false;
    std::vector<float> next;
    for (std::size_t c = 0; c < level.size(); c += 4096) {
      float lane[32];
      for (float& l : lane) l = 0.0f;
      for (std::size_t i = c; i < std::min(level.size(), c + 4096); ++i) lane[(i - c) % 32] += level[i];
      for (int s = 16; s >= 1; s /= 2)
        for (int l = 0; l < s; ++l) lane[l] += lane[l + s];
      next.push_back(lane[0]);
    }
    if (next.empty()) next.push_back(0.0f);
    level = std::move(next);
  }
  return level[0];
}

std::vector<float> wild(std::size_t n, unsigned seed) {  // wide dynamic range: order matters
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::uniform_int_distribution<int> e(-20, 20);
  std::vector<float> v(n);
  for (auto& x : v) x = std::ldexp(u(rng), e(rng));
  return v;
}

TEST(CanonicalTree, MatchesTheWrittenDefinition) {
  for (std::size_t n : {0u, 1u, 2u, 31u, 32u, 33u, 1000u, 4095u, 4096u, 4097u, 8192u, 100000u, 4096u * 4096u + 7u}) {
    auto v = wild(n, static_cast<unsigned>(n));
    float got = num::canonical_sum<float>(n, [&](std::uint64_t i) { return v[i]; });
    EXPECT_SAME_BITS(got, tree_by_levels(v)) << " n = " << n;
  }
}

TEST(CanonicalTree, DiffersFromASequentialLoop) {  // so the tests above can fail
  auto v = wild(100000, 7);
  float seq = 0;
  for (float x : v) seq += x;
  EXPECT_NE(bits(seq), bits(num::canonical_sum<float>(v.size(), [&](std::uint64_t i) { return v[i]; })));
}

TEST(CanonicalTree, TwoThreadScheduleGivesTheSameBits) {
  const std::size_t n = 3 * 4096 * 4096 / 2 + 123;  // two levels of chunks
  auto v = wild(n, 99);
  std::size_t chunks = (n + 4095) / 4096;
  std::vector<float> partial(chunks);
  auto work = [&](std::size_t from, std::size_t to) {
    for (std::size_t c = from; c < to; ++c) {
      std::size_t lo = c * 4096, len = std::min<std::size_t>(4096, n - lo);
      partial[c] = num::canonical_sum<float>(len, [&](std::uint64_t i) { return v[lo + i]; });
    }
  };
  std::thread t1(work, chunks / 2, chunks);  // the second half first, on another thread
  work(0, chunks / 2);
  t1.join();
  float combined = num::canonical_sum<float>(chunks, [&](std::uint64_t i) { return partial[i]; });
  EXPECT_SAME_BITS(combined, num::canonical_sum<float>(n, [&](std::uint64_t i) { return v[i]; }));
}

TEST(Reduce, AxesKeepdimsAndRowMajorOrderOfReducedAxes) {
  auto v = wild(2 * 3 * 4, 3);
  HostTensor x = f32({2, 3, 4}, v);
  HostTensor y = eval1("sum", {x}, {{"axes", std::vector<std::int64_t>{0, -1}}, {"keepdims", true}});
  EXPECT_EQ(y.shape(), (Extents{1, 3, 1}));
  for (std::uint64_t j = 0; j < 3; ++j) {  // reduced elements: (i, k) in row-major order
    std::vector<float> seq;
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 4; ++k) seq.push_back(v[i * 12 + j * 4 + k]);
    EXPECT_SAME_BITS(y.load_f32(j), tree_by_levels(seq));
  }
  EXPECT_EQ(eval1("sum", {x}).shape(), Extents{});
}

TEST(Reduce, EmptyReductionsAndIdentities) {
  HostTensor e = f32({2, 0}, {});
  AttrMap last{{"axes", std::vector<std::int64_t>{1}}};
  EXPECT_EQ(values_f32(eval1("sum", {e}, last)), (std::vector<float>{0, 0}));
  EXPECT_EQ(values_f32(eval1("prod", {e}, last)), (std::vector<float>{1, 1}));
  EXPECT_TRUE(std::isnan(eval1("mean", {e}, last).load_f32(0)));
  EXPECT_EQ(values_f32(eval1("logsumexp", {e}, last))[0], -inff());
  EXPECT_EQ(eval_codes("max", {e}, last), (std::vector<std::string>{"N0011"}));
  EXPECT_EQ(eval_codes("argmax", {e}), (std::vector<std::string>{"N0011"}));
  EXPECT_EQ(eval1("sum", {e}, {{"axes", std::vector<std::int64_t>{0}}}).shape(), (Extents{0}));
}

TEST(Reduce, SignedZeroAndSpecials) {
  EXPECT_SAME_BITS(eval1("sum", {f32({2}, {-0.0f, -0.0f})}).load_f32(0), 0.0f);  // identity +0
  EXPECT_TRUE(std::isnan(eval1("sum", {f32({2}, {inff(), -inff()})}).load_f32(0)));
  EXPECT_SAME_BITS(eval1("max", {f32({2}, {-0.0f, 0.0f})}).load_f32(0), 0.0f);
  EXPECT_SAME_BITS(eval1("min", {f32({2}, {0.0f, -0.0f})}).load_f32(0), -0.0f);
  EXPECT_TRUE(std::isnan(eval1("max", {f32({3}, {1, nanf(), 2})}).load_f32(0)));
  EXPECT_SAME_BITS(eval1("sum", {f32({2}, {1e-45f, 1e-45f})}).load_f32(0), 0x1p-148f);  // subnormals kept
}

TEST(Reduce, ArgmaxFirstIndexAndNan) {
  AttrMap a{{"axis", std::int64_t{1}}};
  HostTensor x = f32({3, 4}, {1, 5, 5, 2, -1, nanf(), 3, nanf(), -inff(), -inff(), -inff(), -inff()});
  EXPECT_EQ(values_i64(eval1("argmax", {x}, a)), (std::vector<std::int64_t>{1, 1, 0}));
  EXPECT_EQ(values_i64(eval1("argmin", {x}, a)), (std::vector<std::int64_t>{0, 1, 0}));
  HostTensor k = eval1("argmax", {x}, {{"axis", std::int64_t{0}}, {"keepdims", true}});
  EXPECT_EQ(k.shape(), (Extents{1, 4}));
  EXPECT_EQ(values_i64(k), (std::vector<std::int64_t>{0, 1, 0, 1}));
}

TEST(Reduce, IntegerSumsWrapAndAreExact) {
  HostTensor x = i64({3}, {100, 100, 100}, DType::i8);
  EXPECT_EQ(values_i64(eval1("sum", {x})), (std::vector<std::int64_t>{44}));  // 300 mod 256
  HostTensor big = i64({3}, {INT64_MAX, 1, -1});
  EXPECT_EQ(values_i64(eval1("sum", {big})), (std::vector<std::int64_t>{INT64_MAX}));
  EXPECT_EQ(values_i64(eval1("prod", {i64({4}, {2, 3, 4, 5}, DType::i32)})), (std::vector<std::int64_t>{120}));
}

TEST(Reduce, HalfAccumulatesInF32) {
  HostTensor ones = HostTensor::from_f32({3000}, std::vector<float>(3000, 1.0f), DType::f16);
  // An f16 accumulator would stall at 2048; f32 accumulation gives 3000, exact in f16.
  EXPECT_EQ(eval1("sum", {ones}).load_f32(0), 3000.0f);
}

TEST(Reduce, MeanVarianceLogsumexp) {
  HostTensor x = f32({4}, {1, 2, 3, 4});
  EXPECT_EQ(eval1("mean", {x}).load_f32(0), 2.5f);
  EXPECT_EQ(eval1("variance", {x}).load_f32(0), 1.25f);
  EXPECT_SAME_BITS(eval1("variance", {x}, {{"correction", std::int64_t{1}}}).load_f32(0), 5.0f / 3.0f);
  EXPECT_TRUE(std::isnan(eval1("variance", {f32({1}, {3})}, {{"correction", std::int64_t{1}}}).load_f32(0)));  // 0/0
  EXPECT_SAME_BITS(eval1("logsumexp", {f32({2}, {0, 0})}).load_f32(0), 0x1.62e430p-1f);  // ln 2
  EXPECT_SAME_BITS(eval1("logsumexp", {f32({2}, {1000, 1000})}).load_f32(0), 1000.0f + 0x1.62e430p-1f);  // no overflow
  EXPECT_EQ(eval1("logsumexp", {f32({2}, {-inff(), -inff()})}).load_f32(0), -inff());
  EXPECT_EQ(eval1("logsumexp", {f32({2}, {inff(), 1})}).load_f32(0), inff());
  EXPECT_TRUE(std::isnan(eval1("logsumexp", {f32({2}, {nanf(), 1})}).load_f32(0)));
}

// f64 logsumexp: max, then rung's exp_f64 / log_f64 in binary64 (no f32 rounding on the way).
TEST(Reduce, LogsumexpF64) {
  HostTensor y = eval1("logsumexp", {f64({2}, {0, 0})});
  EXPECT_EQ(y.dtype(), DType::f64);
  EXPECT_EQ(num::bits_of(y.load_f64(0)), num::bits_of(0x1.62e42fefa39efp-1));  // ln 2, correctly rounded
  EXPECT_EQ(num::bits_of(eval1("logsumexp", {f64({2}, {1e300, 1e300})}).load_f64(0)), num::bits_of(1e300 + 0x1.62e42fefa39efp-1));
  EXPECT_EQ(eval1("logsumexp", {f64({2}, {-INFINITY, -INFINITY})}).load_f64(0), -INFINITY);
  EXPECT_EQ(eval1("logsumexp", {f64({2}, {INFINITY, 1})}).load_f64(0), INFINITY);
  EXPECT_TRUE(std::isnan(eval1("logsumexp", {f64({2}, {NAN, 1})}).load_f64(0)));
  std::vector<double> v = {0.25, -3.5, 7.0, 1e-3};
  double m = 7.0, s;
  HostTensor e = eval1("exp", {f64({4}, {0.25 - m, -3.5 - m, 7.0 - m, 1e-3 - m})});
  s = (e.load_f64(0) + e.load_f64(2)) + (e.load_f64(1) + e.load_f64(3));  // the canonical tree of 4 values
  EXPECT_EQ(num::bits_of(eval1("logsumexp", {f64({4}, v)}).load_f64(0)), num::bits_of(m + num::log_f64(s)));
}

TEST(Reduce, F64SumUsesTheSameTree) {
  std::vector<double> v;
  for (int i = 0; i < 5000; ++i) v.push_back(std::ldexp(1.0 + i * 1e-3, (i * 37) % 90 - 45));
  double want = num::canonical_sum<double>(v.size(), [&](std::uint64_t i) { return v[i]; });
  EXPECT_EQ(eval1("sum", {f64({5000}, v)}).raw<double>(0), want);
}

}  // namespace
}  // namespace rung::ops::testing
