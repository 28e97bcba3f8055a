// NN family, part 1: layer_norm, rms_norm, rope, embedding, cross_entropy, mse. Hand-computed
// cases, agreement with the registry ops each composite is made of (bit for bit), and
// properties (unit RMS, rotation invariants, relative positions).
#include <cmath>

#include "op_test_util.h"
#include "ops/numerics/exp_log.h"
#include "ops/numerics/half.h"
#include "ops/numerics/trig.h"

namespace rung::ops::testing {
namespace {

using V = std::vector<std::int64_t>;

std::vector<float> noise(std::size_t n, std::uint32_t seed, float scale = 1.0f) {
  std::vector<float> v(n);
  std::uint32_t s = seed;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = (static_cast<float>(s >> 8) / 16777216.0f * 2.0f - 1.0f) * scale;
  }
  return v;
}

// ---- layer_norm / rms_norm

TEST(LayerNorm, HandComputed) {
  HostTensor y = eval1("layer_norm", {f32({1, 4}, {1, 2, 3, 4})}, {{"eps", 0.0}});
  // mean 2.5, var 1.25, r = 1 / sqrt(1.25)
  float r = 1.0f / std::sqrt(1.25f);
  EXPECT_EQ(values_f32(y), (std::vector<float>{-1.5f * r, -0.5f * r, 0.5f * r, 1.5f * r}));
  HostTensor z = eval1("layer_norm", {f32({1, 4}, {1, 2, 3, 4}), f32({4}, {1, 2, 0, -1}), f32({4}, {0, 1, 5, 0})},
                       {{"eps", 0.0}});
  EXPECT_EQ(values_f32(z), (std::vector<float>{-1.5f * r, -0.5f * r * 2 + 1, 5, -1.5f * r}));
}

// layer_norm is mean, variance (the registry's reductions) and elementwise steps.
TEST(LayerNorm, EqualsTheMeanAndVarianceOps) {
  HostTensor x = f32({3, 2, 5}, noise(30, 1, 4.0f));
  HostTensor g = f32({2, 5}, noise(10, 2)), b = f32({2, 5}, noise(10, 3));
  AttrMap over{{"axes", V{1, 2}}, {"keepdims", true}};
  HostTensor mean = eval1("mean", {x}, over), var = eval1("variance", {x}, over);
  HostTensor y = eval1("layer_norm", {x, g, b}, {{"axis", -2}, {"eps", 1e-3}});
  for (std::uint64_t i = 0; i < 30; ++i) {
    std::uint64_t row = i / 10, k = i % 10;
    float r = 1.0f / std::sqrt(var.load_f32(row) + 1e-3f);
    EXPECT_SAME_BITS(y.load_f32(i), ((x.load_f32(i) - mean.load_f32(row)) * r) * g.load_f32(k) + b.load_f32(k));
  }
}

TEST(LayerNorm, EdgeCases) {
  // A constant row normalises to 0; a NaN poisons only its own row.
  HostTensor y = eval1("layer_norm", {f32({2, 3}, {7, 7, 7, 1, nanf(), 2})});
  auto v = values_f32(y);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(bits(v[i]), 0u);
  for (int i = 3; i < 6; ++i) EXPECT_TRUE(std::isnan(v[i]));
  EXPECT_EQ(eval1("layer_norm", {f32({0, 4}, {})}).shape(), (Extents{0, 4}));
  EXPECT_EQ(eval1("layer_norm", {f32({2, 0}, {})}).shape(), (Extents{2, 0}));
  EXPECT_EQ(eval_codes("layer_norm", {f32({2, 3}, noise(6, 1)), f32({2}, {1, 1})}), std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval_codes("layer_norm", {scalar(1.0f)}), std::vector<std::string>{"N0011"});
}

TEST(RmsNorm, HandComputedAndHalfStorage) {
  // mean square of (3, 4) = 12.5
  HostTensor y = eval1("rms_norm", {f32({2}, {3, 4}), f32({2}, {1, 0.5f})}, {{"eps", 0.0}});
  float r = 1.0f / std::sqrt(12.5f);
  EXPECT_EQ(values_f32(y), (std::vector<float>{3 * r, (4 * r) * 0.5f}));
  // f16 storage: computed in f32 from the exactly widened input, rounded once.
  HostTensor x16 = HostTensor::from_f32({4, 8}, noise(32, 9, 3.0f), DType::f16);
  HostTensor x32 = f32({4, 8}, values_f32(x16));
  HostTensor y16 = eval1("rms_norm", {x16}), y32 = eval1("rms_norm", {x32});
  for (std::uint64_t i = 0; i < 32; ++i) EXPECT_EQ(y16.raw<std::uint16_t>(i), num::f16_from_f32(y32.load_f32(i)));
}

TEST(RmsNorm, OutputHasUnitRms) {
  for (std::uint32_t seed = 1; seed <= 10; ++seed) {
    float scale = std::ldexp(1.0f, static_cast<int>(seed) * 3 - 15);
    HostTensor y = eval1("rms_norm", {f32({3, 64}, noise(192, seed, scale))}, {{"eps", 1e-30}});
    for (std::uint64_t r = 0; r < 3; ++r) {
      double ss = 0;
      for (std::uint64_t i = 0; i < 64; ++i) ss += static_cast<double>(y.load_f32(r * 64 + i)) * y.load_f32(r * 64 + i);
      EXPECT_NEAR(std::sqrt(ss / 64), 1.0, 1e-6) << "scale " << scale;
    }
  }
}

// ---- rope

TEST(Rope, HandComputed) {
  // D = 2: one pair, inv = base^0 = 1, theta = pos.
  HostTensor x = f32({2, 2}, {1, 2, 3, 4});
  HostTensor y = eval1("rope", {x});
  auto v = values_f32(y);
  EXPECT_EQ(v[0], 1.0f);  // pos 0: cos 0 = 1, sin 0 = 0 exactly
  EXPECT_EQ(v[1], 2.0f);
  float c = num::cos_f32(1.0f), s = num::sin_f32(1.0f);
  EXPECT_NEAR(c, std::cos(1.0), 1e-7);
  EXPECT_SAME_BITS(v[2], 3 * c - 4 * s);
  EXPECT_SAME_BITS(v[3], 3 * s + 4 * c);
  // D = 4, base 100: pair 1 turns by pos * 100^(-1/2) = pos / 10.
  HostTensor z = eval1("rope", {f32({1, 4}, {1, 0, 0, 1}), i64({1}, {5})}, {{"base", 100.0}});
  auto w = values_f32(z);
  EXPECT_NEAR(w[1], -std::sin(0.5), 2e-7);  // pair 1 = (x[1], x[3]) = (0, 1)
  EXPECT_NEAR(w[3], std::cos(0.5), 2e-7);
  EXPECT_NEAR(w[0], std::cos(5.0), 2e-7);
  EXPECT_NEAR(w[2], std::sin(5.0), 2e-7);
}

// The interleaved layout is the half layout with each pair's elements moved next to each other.
TEST(Rope, LayoutsAgreeUnderThePairPermutation) {
  const std::uint64_t S = 5, D = 8;
  HostTensor x = f32({2, S, D}, noise(2 * S * D, 4));
  std::vector<float> xi(x.numel());
  for (std::uint64_t r = 0; r < 2 * S; ++r)
    for (std::uint64_t p = 0; p < D / 2; ++p) {
      xi[r * D + 2 * p] = x.load_f32(r * D + p);
      xi[r * D + 2 * p + 1] = x.load_f32(r * D + p + D / 2);
    }
  HostTensor yh = eval1("rope", {x}), yi = eval1("rope", {f32({2, S, D}, xi)}, {{"layout", "interleaved"}});
  for (std::uint64_t r = 0; r < 2 * S; ++r)
    for (std::uint64_t p = 0; p < D / 2; ++p) {
      EXPECT_SAME_BITS(yi.load_f32(r * D + 2 * p), yh.load_f32(r * D + p));
      EXPECT_SAME_BITS(yi.load_f32(r * D + 2 * p + 1), yh.load_f32(r * D + p + D / 2));
    }
}

TEST(Rope, RotationInvariants) {
  const std::uint64_t S = 16, D = 16;
  HostTensor q = f32({S, D}, noise(S * D, 5)), k = f32({S, D}, noise(S * D, 6));
  HostTensor rq = eval1("rope", {q}), rk = eval1("rope", {k});
  // Norm of every pair is kept.
  for (std::uint64_t r = 0; r < S; ++r)
    for (std::uint64_t p = 0; p < D / 2; ++p) {
      double a = q.load_f32(r * D + p), b = q.load_f32(r * D + p + D / 2);
      double a2 = rq.load_f32(r * D + p), b2 = rq.load_f32(r * D + p + D / 2);
      EXPECT_NEAR(a2 * a2 + b2 * b2, a * a + b * b, 1e-6);
    }
  // <rope(q, m), rope(k, n)> depends on m - n only: rows 5/2 and 13/10 with the same q, k.
  auto rot = [&](const std::vector<float>& v, std::int64_t pos) {
    return values_f32(eval1("rope", {f32({1, D}, v), i64({1}, {pos})}));
  };
  std::vector<float> qv = noise(D, 7), kv = noise(D, 8);
  auto dot = [](const std::vector<float>& a, const std::vector<float>& b) {
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += static_cast<double>(a[i]) * b[i];
    return s;
  };
  EXPECT_NEAR(dot(rot(qv, 5), rot(kv, 2)), dot(rot(qv, 13), rot(kv, 10)), 1e-5);
  EXPECT_GT(std::fabs(dot(rot(qv, 5), rot(kv, 2)) - dot(rot(qv, 5), rot(kv, 3))), 1e-3);
}

TEST(Rope, ExplicitPositionsMatchDefaultRows) {
  HostTensor x = f32({4, 6}, noise(24, 10));
  HostTensor all = eval1("rope", {x});
  std::vector<float> row3(x.numel() / 4);
  for (std::uint64_t i = 0; i < 6; ++i) row3[i] = x.load_f32(18 + i);
  for (DType pt : {DType::i32, DType::u64, DType::u8}) {
    HostTensor one = eval1("rope", {f32({1, 6}, row3), i64({1}, {3}, pt)});
    for (std::uint64_t i = 0; i < 6; ++i) EXPECT_SAME_BITS(one.load_f32(i), all.load_f32(18 + i)) << dtype_name(pt);
  }
  EXPECT_EQ(eval_codes("rope", {f32({2, 3}, noise(6, 1))}), std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval_codes("rope", {x, i64({3}, {0, 1, 2})}), std::vector<std::string>{"N0011"});
}

// ---- embedding

TEST(Embedding, LooksUpRows) {
  HostTensor table = f32({3, 2}, {0, 1, 10, 11, 20, 21});
  HostTensor y = eval1("embedding", {table, i64({2, 2}, {2, 0, 1, 2}, DType::i32)});
  EXPECT_EQ(y.shape(), (Extents{2, 2, 2}));
  EXPECT_EQ(values_f32(y), (std::vector<float>{20, 21, 0, 1, 10, 11, 20, 21}));
  EXPECT_EQ(eval_codes("embedding", {table, i64({1}, {3})}), std::vector<std::string>{"N0012"});
  EXPECT_EQ(eval_codes("embedding", {f32({3}, {1, 2, 3}), i64({1}, {0})}), std::vector<std::string>{"N0011"});
}

// ---- cross_entropy / mse

TEST(CrossEntropy, HandComputed) {
  // Two equal logits: loss = log 2.
  HostTensor y = eval1("cross_entropy", {f32({1, 2}, {0, 0}), i64({1}, {0})});
  EXPECT_EQ(y.shape(), (Extents{}));
  EXPECT_SAME_BITS(y.load_f32(0), num::log_f32(2.0f));
  HostTensor n = eval1("cross_entropy", {f32({2, 3}, {0, 0, 0, 1, 2, 3}), i64({2}, {1, 2})}, {{"reduction", "none"}});
  EXPECT_SAME_BITS(n.load_f32(0), num::log_f32(3.0f));
  // The canonical tree on three values: lane 0 meets lane 2 first, then lane 1.
  float s = (num::exp_f32(-2.0f) + num::exp_f32(0.0f)) + num::exp_f32(-1.0f);
  EXPECT_SAME_BITS(n.load_f32(1), -((3.0f - 3.0f) - num::log_f32(s)));
}

TEST(CrossEntropy, EqualsMinusLogSoftmaxAtTheTarget) {
  HostTensor x = f32({4, 3, 7}, noise(84, 12, 6.0f));
  V t(12);
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = static_cast<std::int64_t>((i * 5) % 7);
  HostTensor ls = eval1("log_softmax", {x});
  HostTensor n = eval1("cross_entropy", {x, i64({4, 3}, t)}, {{"reduction", "none"}});
  ASSERT_EQ(n.shape(), (Extents{4, 3}));
  for (std::uint64_t r = 0; r < 12; ++r) EXPECT_SAME_BITS(n.load_f32(r), -ls.load_f32(r * 7 + static_cast<std::uint64_t>(t[r])));
  // sum: the canonical sum of the row losses; mean: that sum / 12.
  HostTensor sum = eval1("cross_entropy", {x, i64({4, 3}, t)}, {{"reduction", "sum"}});
  HostTensor mean = eval1("cross_entropy", {x, i64({4, 3}, t)});
  EXPECT_SAME_BITS(sum.load_f32(0), eval1("sum", {n}).load_f32(0));
  EXPECT_SAME_BITS(mean.load_f32(0), sum.load_f32(0) / 12.0f);
}

TEST(CrossEntropy, IgnoreIndexAndErrors) {
  HostTensor x = f32({3, 2}, {0, 0, 5, -5, 1, 2});
  HostTensor n = eval1("cross_entropy", {x, i64({3}, {0, -100, 1})}, {{"reduction", "none"}, {"ignore_index", -100}});
  EXPECT_EQ(bits(n.load_f32(1)), 0u);
  HostTensor m = eval1("cross_entropy", {x, i64({3}, {0, -100, 1})}, {{"ignore_index", -100}});
  EXPECT_SAME_BITS(m.load_f32(0), (n.load_f32(0) + n.load_f32(2)) / 2.0f);
  HostTensor none = eval1("cross_entropy", {x, i64({3}, {7, 7, 7})}, {{"ignore_index", 7}});
  EXPECT_TRUE(std::isnan(none.load_f32(0)));  // 0 / 0 rows counted
  EXPECT_EQ(eval_codes("cross_entropy", {x, i64({3}, {0, 2, 1})}), std::vector<std::string>{"N0012"});
  EXPECT_EQ(eval_codes("cross_entropy", {x, i64({2}, {0, 1})}), std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval_codes("cross_entropy", {f32({2, 0}, {}), i64({2}, {0, 0})}), std::vector<std::string>{"N0011"});
  HostTensor inf = eval1("cross_entropy", {f32({1, 2}, {inff(), 0}), i64({1}, {0})});
  EXPECT_TRUE(std::isnan(inf.load_f32(0)));  // inf - inf, as log_softmax gives
}

TEST(Mse, Reductions) {
  HostTensor a = f32({3}, {1, 2, 3}), b = f32({3}, {1, 0, 0});
  EXPECT_EQ(values_f32(eval1("mse", {a, b}, {{"reduction", "none"}})), (std::vector<float>{0, 4, 9}));
  EXPECT_EQ(values_f32(eval1("mse", {a, b}, {{"reduction", "sum"}})), (std::vector<float>{13}));
  EXPECT_SAME_BITS(eval1("mse", {a, b}).load_f32(0), 13.0f / 3.0f);
  EXPECT_TRUE(std::isnan(eval1("mse", {f32({0}, {}), f32({0}, {})}).load_f32(0)));
  EXPECT_EQ(eval_codes("mse", {a, f32({1}, {1})}), std::vector<std::string>{"N0011"});
  HostTensor x = f32({5000}, noise(5000, 3)), y = f32({5000}, noise(5000, 4));
  EXPECT_TRUE(eval1("mse", {x, y}).identical(eval1("mse", {x, y})));
}

}  // namespace
}  // namespace rung::ops::testing
