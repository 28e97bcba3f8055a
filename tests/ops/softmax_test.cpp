// softmax and log_softmax: the composite definition bit for bit, property (rows sum to 1
// within the tight class), stability for large inputs, -inf and NaN rows, any axis.
#include <cmath>
#include <random>

#include "op_test_util.h"
#include "ops/compare.h"
#include "ops/numerics/exp_log.h"
#include "ops/numerics/reduce_tree.h"

namespace rung::ops::testing {
namespace {

TEST(Softmax, FollowsTheCompositeDefinition) {
  std::vector<float> x = {1.0f, 2.0f, 3.0f, -4.5f};
  HostTensor y = eval1("softmax", {f32({4}, x)});
  HostTensor ly = eval1("log_softmax", {f32({4}, x)});
  float m = 3.0f;
  std::vector<float> e;
  for (float v : x) e.push_back(num::exp_f32(v - m));
  float s = num::canonical_sum<float>(4, [&](std::uint64_t i) { return e[i]; });
  for (int i = 0; i < 4; ++i) {
    EXPECT_SAME_BITS(y.load_f32(i), e[i] / s);
    EXPECT_SAME_BITS(ly.load_f32(i), (x[i] - m) - num::log_f32(s));
  }
}

TEST(Softmax, RowsSumToOneWithinTheTightClass) {
  std::mt19937 rng(5);
  std::normal_distribution<float> d(0.0f, 8.0f);
  const std::size_t rows = 64, n = 777;
  std::vector<float> x(rows * n);
  for (auto& v : x) v = d(rng);
  HostTensor y = eval1("softmax", {f32({rows, n}, x)});
  HostTensor sums = eval1("sum", {y}, {{"axes", std::vector<std::int64_t>{1}}});
  HostTensor ones = f32({rows}, std::vector<float>(rows, 1.0f));
  // Each sum has n roundings of the divisions plus the tree: a few ulps of 1 at most.
  Verdict v = compare(sums, ones, TolClass::default_, Tier::debug);
  EXPECT_TRUE(v.pass) << v.summary();
  EXPECT_LE(v.max_ulp, 16);
}

TEST(Softmax, LargeInputsDoNotOverflow) {
  HostTensor y = eval1("softmax", {f32({3}, {1000.0f, 1000.0f, -1000.0f})});
  EXPECT_EQ(values_f32(y), (std::vector<float>{0.5f, 0.5f, 0.0f}));
  HostTensor ly = eval1("log_softmax", {f32({2}, {1e30f, 0.0f})});
  EXPECT_EQ(ly.load_f32(0), 0.0f);
  EXPECT_EQ(ly.load_f32(1), -1e30f);
}

TEST(Softmax, InfinitiesAndNans) {
  EXPECT_EQ(values_f32(eval1("softmax", {f32({3}, {-inff(), 0.0f, -inff()})})), (std::vector<float>{0, 1, 0}));
  for (float v : values_f32(eval1("softmax", {f32({2}, {-inff(), -inff()})}))) EXPECT_TRUE(std::isnan(v));
  for (float v : values_f32(eval1("softmax", {f32({2}, {nanf(), 1.0f})}))) EXPECT_TRUE(std::isnan(v));
  EXPECT_EQ(eval1("log_softmax", {f32({2}, {-inff(), 0.0f})}).load_f32(0), -inff());
}

TEST(Softmax, AnyAxisAndEmptyRows) {
  HostTensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor y0 = eval1("softmax", {x}, {{"axis", std::int64_t{0}}});
  HostTensor col = eval1("softmax", {f32({2}, {2, 5})});
  EXPECT_SAME_BITS(y0.load_f32(1), col.load_f32(0));
  EXPECT_SAME_BITS(y0.load_f32(4), col.load_f32(1));
  EXPECT_EQ(eval1("softmax", {f32({2, 0}, {})}).shape(), (Extents{2, 0}));
  EXPECT_EQ(eval_codes("softmax", {x}, {{"axis", std::int64_t{2}}}), (std::vector<std::string>{"N0011"}));
  EXPECT_EQ(eval_codes("softmax", {scalar(1.0f)}), (std::vector<std::string>{"N0011"}));
}

TEST(Softmax, Bf16ComputesInF32) {
  HostTensor x = HostTensor::from_f32({3}, std::vector<float>{0.5f, 1.5f, -2.0f}, DType::bf16);
  HostTensor y = eval1("softmax", {x});
  HostTensor y32 = eval1("softmax", {f32({3}, {0.5f, 1.5f, -2.0f})});
  for (int i = 0; i < 3; ++i) EXPECT_EQ(y.raw<std::uint16_t>(i), num::bf16_from_f32(y32.load_f32(i)));
}

}  // namespace
}  // namespace rung::ops::testing
