// NN family, part 2: attention and the feed-forward blocks. Hand-computed cases, the causal
// mask never reading the future, agreement with the chain of registry ops it is defined by
// (matmul, mul, softmax, linear, silu, gelu), masks and batch broadcasting.
#include <cmath>

#include "op_test_util.h"

namespace rung::ops::testing {
namespace {

std::vector<float> noise(std::size_t n, std::uint32_t seed, float scale = 1.0f) {
  std::vector<float> v(n);
  std::uint32_t s = seed;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = (static_cast<float>(s >> 8) / 16777216.0f * 2.0f - 1.0f) * scale;
  }
  return v;
}

AttrMap non_causal() { return {{"causal", false}}; }

TEST(Attention, HandComputed) {
  // Equal keys: query 0 sees key 0 only (p = 1), query 1 sees both with p = 1/2.
  HostTensor q = f32({2, 1}, {1, 1}), k = f32({2, 1}, {3, 3}), v = f32({2, 2}, {2, 4, 6, 10});
  HostTensor y = eval1("attention", {q, k, v});
  EXPECT_EQ(y.shape(), (Extents{2, 2}));
  EXPECT_EQ(values_f32(y), (std::vector<float>{2, 4, 4, 7}));
  // Non-causal: both rows average.
  EXPECT_EQ(values_f32(eval1("attention", {q, k, v}, non_causal())), (std::vector<float>{4, 7, 4, 7}));
}

// Non-causal attention without a mask is matmul -> mul(scale) -> softmax -> matmul.
TEST(Attention, EqualsTheChainOfRegistryOps) {
  HostTensor q = f32({2, 5, 8}, noise(80, 1, 2.0f)), k = f32({2, 7, 8}, noise(112, 2, 2.0f));
  HostTensor v = f32({2, 7, 3}, noise(42, 3));
  float scale = 1.0f / std::sqrt(8.0f);
  HostTensor s = eval1("mul", {eval1("matmul", {q, k}, {{"transpose_b", true}}), scalar(scale)});
  HostTensor want = eval1("matmul", {eval1("softmax", {s}), v});
  EXPECT_TRUE(eval1("attention", {q, k, v}, non_causal()).identical(want));
  // An explicit scale attribute replaces 1/sqrt(D).
  HostTensor s2 = eval1("mul", {eval1("matmul", {q, k}, {{"transpose_b", true}}), scalar(0.3f)});
  HostTensor want2 = eval1("matmul", {eval1("softmax", {s2}), v});
  EXPECT_TRUE(eval1("attention", {q, k, v}, {{"causal", false}, {"scale", 0.3}}).identical(want2));
}

// Query i must not depend on keys or values at positions j > i: poisoning them with NaN and
// huge values leaves row i's bits unchanged.
TEST(Attention, CausalNeverReadsTheFuture) {
  const std::uint64_t S = 6, D = 4;
  HostTensor q = f32({S, D}, noise(S * D, 4)), k = f32({S, D}, noise(S * D, 5)), v = f32({S, D}, noise(S * D, 6));
  HostTensor base = eval1("attention", {q, k, v});
  for (std::uint64_t i = 0; i + 1 < S; ++i) {
    std::vector<float> kf = values_f32(k), vf = values_f32(v);
    for (std::uint64_t j = i + 1; j < S; ++j)
      for (std::uint64_t d = 0; d < D; ++d) {
        kf[j * D + d] = j % 2 ? nanf() : 1e30f;
        vf[j * D + d] = j % 2 ? inff() : nanf();
      }
    HostTensor y = eval1("attention", {q, f32({S, D}, kf), f32({S, D}, vf)});
    for (std::uint64_t r = 0; r <= i; ++r)
      for (std::uint64_t d = 0; d < D; ++d)
        EXPECT_EQ(bits(y.load_f32(r * D + d)), bits(base.load_f32(r * D + d))) << "row " << r << " cut " << i;
  }
  // ... while the last row does read everything.
  std::vector<float> kf = values_f32(k);
  kf[(S - 1) * D] += 0.5f;
  EXPECT_NE(bits(eval1("attention", {q, f32({S, D}, kf), v}).load_f32((S - 1) * D)), bits(base.load_f32((S - 1) * D)));
}

TEST(Attention, MasksAgree) {
  const std::uint64_t S = 5, D = 4;
  HostTensor q = f32({S, D}, noise(S * D, 7)), k = f32({S, D}, noise(S * D, 8)), v = f32({S, D}, noise(S * D, 9));
  std::vector<std::int64_t> tri(S * S);
  std::vector<float> additive(S * S);
  for (std::uint64_t i = 0; i < S; ++i)
    for (std::uint64_t j = 0; j < S; ++j) {
      tri[i * S + j] = j <= i;
      additive[i * S + j] = j <= i ? 0.0f : -inff();
    }
  HostTensor causal = eval1("attention", {q, k, v});
  HostTensor boolean = eval1("attention", {q, k, v, i64({S, S}, tri, DType::boolean)}, non_causal());
  HostTensor add = eval1("attention", {q, k, v, f32({S, S}, additive)}, non_causal());
  EXPECT_TRUE(causal.identical(boolean));
  EXPECT_TRUE(causal.identical(add));
  // A key-padding mask [Sk] broadcasts over the queries; a fully masked row gives +0.
  HostTensor pad = eval1("attention", {q, k, v, i64({S}, {1, 1, 0, 1, 0}, DType::boolean)}, non_causal());
  HostTensor none = eval1("attention", {q, k, v, i64({S}, {0, 0, 0, 0, 0}, DType::boolean)}, non_causal());
  for (std::uint64_t i = 0; i < S * D; ++i) EXPECT_EQ(bits(none.load_f32(i)), 0u);
  std::vector<float> kf = values_f32(k);
  for (std::uint64_t d = 0; d < D; ++d) kf[2 * D + d] = nanf();  // masked key: never read
  EXPECT_TRUE(pad.identical(eval1("attention", {q, f32({S, D}, kf), v, i64({S}, {1, 1, 0, 1, 0}, DType::boolean)},
                                  non_causal())));
}

TEST(Attention, CausalOffsetWhenQueriesAndKeysDiffer) {
  const std::uint64_t Sk = 4, D = 3;
  HostTensor k = f32({Sk, D}, noise(Sk * D, 10)), v = f32({Sk, D}, noise(Sk * D, 11));
  // One new query after three cached keys sees all four keys (decoding).
  HostTensor q1 = f32({1, D}, noise(D, 12));
  EXPECT_TRUE(eval1("attention", {q1, k, v}).identical(eval1("attention", {q1, k, v}, non_causal())));
  // Sq > Sk: the first Sq - Sk queries see no key and give +0.
  HostTensor q6 = f32({6, D}, noise(6 * D, 13));
  HostTensor y = eval1("attention", {q6, k, v});
  for (std::uint64_t i = 0; i < 2 * D; ++i) EXPECT_EQ(bits(y.load_f32(i)), 0u);
  EXPECT_NE(y.load_f32(2 * D), 0.0f);
}

TEST(Attention, BatchDimsBroadcast) {
  // k and v shared by both batch entries of q (as in multi-query attention).
  HostTensor q = f32({2, 3, 4}, noise(24, 14)), k = f32({1, 3, 4}, noise(12, 15)), v = f32({1, 3, 2}, noise(6, 16));
  HostTensor y = eval1("attention", {q, k, v});
  ASSERT_EQ(y.shape(), (Extents{2, 3, 2}));
  std::vector<float> qv = values_f32(q);
  for (std::uint64_t b = 0; b < 2; ++b) {
    HostTensor one = eval1("attention", {f32({3, 4}, std::vector<float>(qv.begin() + b * 12, qv.begin() + b * 12 + 12)),
                                         f32({3, 4}, values_f32(k)), f32({3, 2}, values_f32(v))});
    for (std::uint64_t i = 0; i < 6; ++i) EXPECT_SAME_BITS(y.load_f32(b * 6 + i), one.load_f32(i));
  }
  EXPECT_TRUE(y.identical(eval1("attention", {q, k, v})));
}

TEST(Attention, ShapeErrors) {
  HostTensor q = f32({3, 4}, noise(12, 1)), k = f32({3, 4}, noise(12, 2)), v = f32({3, 2}, noise(6, 3));
  EXPECT_EQ(eval_codes("attention", {q, f32({3, 5}, noise(15, 1)), v}), std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval_codes("attention", {q, k, f32({2, 2}, noise(4, 1))}), std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval_codes("attention", {q, k, v, f32({2, 3}, noise(6, 1))}), std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval_codes("attention", {f32({4}, noise(4, 1)), k, v}), std::vector<std::string>{"N0011"});
}

// ---- feed-forward

TEST(FeedForward, SwigluEqualsTheChainOfRegistryOps) {
  HostTensor x = f32({2, 3, 8}, noise(48, 20, 2.0f));
  HostTensor wg = f32({5, 8}, noise(40, 21)), wu = f32({5, 8}, noise(40, 22)), wd = f32({4, 5}, noise(20, 23));
  HostTensor h = eval1("mul", {eval1("silu", {eval1("linear", {x, wg})}), eval1("linear", {x, wu})});
  HostTensor want = eval1("linear", {h, wd});
  HostTensor y = eval1("ffn_swiglu", {x, wg, wu, wd});
  ASSERT_EQ(y.shape(), (Extents{2, 3, 4}));
  EXPECT_TRUE(y.identical(want));
}

TEST(FeedForward, GeluEqualsTheChainOfRegistryOps) {
  HostTensor x = f32({3, 6}, noise(18, 30, 3.0f));
  HostTensor w1 = f32({7, 6}, noise(42, 31)), b1 = f32({7}, noise(7, 32)), w2 = f32({2, 7}, noise(14, 33));
  HostTensor b2 = f32({2}, noise(2, 34));
  for (std::string form : {"none", "tanh"}) {
    HostTensor h = eval1("gelu", {eval1("linear", {x, w1, b1})}, {{"approximate", form}});
    EXPECT_TRUE(eval1("ffn_gelu", {x, w1, w2, b1, b2}, {{"approximate", form}}).identical(eval1("linear", {h, w2, b2})))
        << form;
  }
  HostTensor h = eval1("gelu", {eval1("linear", {x, w1})});
  EXPECT_TRUE(eval1("ffn_gelu", {x, w1, w2}).identical(eval1("linear", {h, w2})));
}

TEST(FeedForward, ShapeErrors) {
  HostTensor x = f32({2, 4}, noise(8, 1)), w = f32({3, 4}, noise(12, 2)), wd = f32({4, 3}, noise(12, 3));
  EXPECT_EQ(eval_codes("ffn_swiglu", {x, w, f32({2, 4}, noise(8, 4)), wd}), std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval_codes("ffn_swiglu", {x, w, w, f32({4, 2}, noise(8, 4))}), std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval_codes("ffn_gelu", {x, w, wd, f32({4}, noise(4, 5))}), std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval1("ffn_swiglu", {f32({0, 4}, {}), w, w, wd}).shape(), (Extents{0, 4}));
}

}  // namespace
}  // namespace rung::ops::testing
