// Conv family: conv, max_pool, avg_pool. Hand-computed cases, the defined operation order
// (conv's single fma chain from the bias, avg_pool's canonical sum), max_pool's NaN / ±0 /
// first-maximum rules, the window geometry (ceil_mode, same_pads) and the shape rules' errors.
#include <cmath>

#include "op_test_util.h"
#include "ops/numerics/ieee.h"
#include "ops/numerics/reduce_tree.h"
#include "ops/typing.h"
#include "ops/window_geometry.h"

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

std::string infer(std::string_view op, std::vector<TensorType> in, const AttrMap& attrs) {
  std::vector<std::string> errs;
  auto t = infer_types(*op_registry().find(op), in, attrs, errs);
  if (!t) return "error: " + (errs.empty() ? std::string("?") : errs.front());
  std::string s;
  for (const auto& r : t->results) s += (s.empty() ? "" : " ") + r.to_string();
  return s;
}

TensorType f32t(Shape s) { return TensorType{DType::f32, std::move(s)}; }
Dim d(std::uint64_t e) { return Dim::fixed(e); }

// ---- conv

TEST(Conv, OneDimensionalHandComputed) {
  // x = [1 2 3 4], w = [1 -1], pads 1 before: y[o] = xp[o] - xp[o+1] over xp = [0 1 2 3 4]
  HostTensor y =
      eval1("conv", {f32({1, 1, 4}, {1, 2, 3, 4}), f32({1, 1, 2}, {1, -1}), f32({1}, {10})}, {{"pads", V{1, 0}}});
  EXPECT_EQ(values_f32(y), (std::vector<float>{9, 9, 9, 9}));
  HostTensor s = eval1("conv", {f32({1, 1, 5}, {1, 2, 3, 4, 5}), f32({1, 1, 2}, {1, 1})},
                       {{"strides", V{2}}, {"dilations", V{2}}});
  EXPECT_EQ(values_f32(s), (std::vector<float>{4, 8}));  // taps (0, 2), (2, 4)
}

TEST(Conv, TwoDimensionalGroups) {
  // Two groups of one channel each: channel 0 sums its 2x2 windows, channel 1 negates its taps.
  std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20, 30, 40, 50, 60, 70, 80, 90};
  HostTensor y = eval1("conv", {f32({1, 2, 3, 3}, x), f32({2, 1, 2, 2}, {1, 1, 1, 1, -1, 0, 0, 0})},
                       {{"groups", std::int64_t{2}}});
  EXPECT_EQ(y.shape(), (Extents{1, 2, 2, 2}));
  EXPECT_EQ(values_f32(y), (std::vector<float>{12, 16, 24, 28, -10, -20, -40, -50}));
}

// The definition: one fma chain over (c, kh, kw) starting from the bias, the padding's +0
// taps included; checked with values whose rounding depends on the order.
TEST(Conv, IsOneFmaChainFromTheBias) {
  const std::uint64_t C = 3, H = 4, W = 5, K = 3;
  auto xv = noise(C * H * W, 7, 1e4f), wv = noise(2 * C * K * K, 9, 1.0f);
  HostTensor y = eval1("conv", {f32({1, C, H, W}, xv), f32({2, C, K, K}, wv), f32({2}, {0.1f, -1e3f})},
                       {{"pads", V{1, 1, 0, 2}}, {"strides", V{1, 2}}});
  const std::uint64_t OH = 4, OW = 3;  // (4 + 2 - 3) + 1, (5 + 2 - 3) / 2 + 1
  ASSERT_EQ(y.shape(), (Extents{1, 2, OH, OW}));
  for (std::uint64_t m = 0; m < 2; ++m)
    for (std::uint64_t oh = 0; oh < OH; ++oh)
      for (std::uint64_t ow = 0; ow < OW; ++ow) {
        float acc = m == 0 ? 0.1f : -1e3f;
        for (std::uint64_t c = 0; c < C; ++c)
          for (std::uint64_t kh = 0; kh < K; ++kh)
            for (std::uint64_t kw = 0; kw < K; ++kw) {
              std::int64_t ih = static_cast<std::int64_t>(oh + kh) - 1, iw = static_cast<std::int64_t>(ow * 2 + kw);
              float xval = ih >= 0 && ih < static_cast<std::int64_t>(H) && iw < static_cast<std::int64_t>(W)
                               ? xv[(c * H + static_cast<std::uint64_t>(ih)) * W + static_cast<std::uint64_t>(iw)]
                               : 0.0f;
              acc = std::fma(xval, wv[((m * C + c) * K + kh) * K + kw], acc);
            }
        EXPECT_EQ(bits(values_f32(y)[(m * OH + oh) * OW + ow]), bits(acc)) << m << " " << oh << " " << ow;
      }
}

// A padding tap is fma(+0, w, acc): with an infinite weight it is NaN, as for a zero-padded input.
TEST(Conv, PaddingTapsAreZerosOfTheChain) {
  HostTensor y = eval1("conv", {f32({1, 1, 2}, {1, 2}), f32({1, 1, 2}, {inff(), 1})}, {{"pads", V{1, 0}}});
  EXPECT_TRUE(std::isnan(values_f32(y)[0]));
  EXPECT_EQ(values_f32(y)[1], inff());
}

TEST(Conv, F64AndF16) {
  HostTensor y = eval1("conv", {f64({1, 1, 3}, {1, 2, 3}), f64({1, 1, 2}, {0.5, 0.25})});
  EXPECT_EQ(y.dtype(), DType::f64);
  EXPECT_EQ(y.raw<double>(0), 1.0);
  HostTensor x16(DType::f16, {1, 1, 3}), w16(DType::f16, {1, 1, 2});
  for (int i = 0; i < 3; ++i) x16.store_f32(i, 2049.0f + static_cast<float>(i));  // rounds in f16 storage
  w16.store_f32(0, 1), w16.store_f32(1, 1);
  HostTensor z = eval1("conv", {x16, w16});
  EXPECT_EQ(z.load_f32(0), num::f32_from_f16(num::f16_from_f32(x16.load_f32(0) + x16.load_f32(1))));
}

TEST(Conv, ShapeRule) {
  EXPECT_EQ(infer("conv", {f32t({Dim::symbol("N"), d(3), d(32), d(32)}), f32t({d(8), d(3), d(3), d(3)}), f32t({d(8)})},
                  {{"pads", V{1, 1, 1, 1}}, {"strides", V{2, 2}}}),
            "f32[N, 8, 16, 16]");
  EXPECT_EQ(infer("conv", {f32t({d(1), d(4), d(10)}), f32t({d(6), d(2), d(3)})},
                  {{"groups", std::int64_t{2}}, {"dilations", V{3}}}),
            "f32[1, 6, 4]");
  auto err = [&](std::vector<TensorType> in, AttrMap a) { return infer("conv", std::move(in), std::move(a)); };
  EXPECT_NE(err({f32t({d(1), d(3), d(4), d(4)}), f32t({d(2), d(2), d(3), d(3)})}, {}).find("w's dim 1 is 2"),
            std::string::npos);
  EXPECT_NE(
      err({f32t({d(1), d(3), d(4)}), f32t({d(2), d(3), d(3)})}, {{"groups", std::int64_t{2}}}).find("must divide"),
      std::string::npos);
  EXPECT_NE(err({f32t({d(1), d(3), d(4)}), f32t({d(2), d(3), d(3)})}, {{"pads", V{1}}}).find("`pads` needs 2 values"),
            std::string::npos);
  EXPECT_NE(err({f32t({d(1), d(3), d(4)}), f32t({d(2), d(3), d(3)})}, {{"strides", V{0}}}).find("`strides`[0] is 0"),
            std::string::npos);
  EXPECT_NE(err({f32t({d(1), d(3), d(2)}), f32t({d(2), d(3), d(3)})}, {}).find("does not fit the padded input"),
            std::string::npos);
  EXPECT_NE(
      err({f32t({d(1), d(3), d(4)}), f32t({d(2), d(3), d(3)}), f32t({d(3)})}, {}).find("bias must have shape [2]"),
      std::string::npos);
  EXPECT_NE(err({f32t({d(1), d(3), d(4), d(4), d(4)}), f32t({d(2), d(3), d(3), d(3), d(3)})}, {}).find("1-D"),
            std::string::npos);
  EXPECT_NE(err({f32t({d(1), d(3), Dim::symbol("L")}), f32t({d(2), d(3), d(3)})}, {}).find("must be static"),
            std::string::npos);
  EXPECT_EQ(eval_codes("conv", {f32({1, 1, 2}, {1, 2}), f32({1, 1, 3}, {1, 1, 1})}),
            (std::vector<std::string>{"N0011"}));
}

// ---- conv_transpose

TEST(ConvTranspose, OneDimensionalHandComputed) {
  // x = [1 2], w = [1 10 100], stride 2: y = [1 10 102 20 200] (taps meeting no input are +0).
  HostTensor y = eval1("conv_transpose", {f32({1, 1, 2}, {1, 2}), f32({1, 1, 3}, {1, 10, 100})}, {{"strides", V{2}}});
  EXPECT_EQ(values_f32(y), (std::vector<float>{1, 10, 102, 20, 200}));
  HostTensor p = eval1("conv_transpose", {f32({1, 1, 2}, {1, 2}), f32({1, 1, 3}, {1, 10, 100}), f32({1}, {0.5f})},
                       {{"strides", V{2}}, {"pads", V{1, 2}}, {"output_padding", V{1}}});
  EXPECT_EQ(values_f32(p), (std::vector<float>{10.5f, 102.5f, 20.5f}));  // 6 outputs, 1 cut before, 2 after
}

// conv_transpose is conv's adjoint: <conv(x, w), y> = <x, conv_transpose(y, w)> (in f64,
// where both sides are exact sums of exactly representable products).
TEST(ConvTranspose, IsTheAdjointOfConv) {
  auto ints = [](std::size_t n, std::uint32_t seed) {
    std::vector<double> v(n);
    std::uint32_t s = seed;
    for (auto& x : v) s = s * 1664525u + 1013904223u, x = static_cast<double>(static_cast<int>(s >> 27) - 16);
    return v;
  };
  AttrMap a = {{"strides", V{2, 3}}, {"pads", V{1, 2, 0, 1}}, {"dilations", V{1, 2}}, {"groups", std::int64_t{2}}};
  HostTensor x = f64({2, 4, 7, 9}, ints(2 * 4 * 7 * 9, 1)), w = f64({6, 2, 3, 2}, ints(6 * 2 * 3 * 2, 2));
  HostTensor y = eval1("conv", {x, w}, a);
  HostTensor gy = f64(y.shape(), ints(y.numel(), 3));
  // x's extents are reached again with output_padding = (in + pads - span) mod stride.
  AttrMap t = a;
  t.insert_or_assign("output_padding", V{(7 + 3 - 3) % 2, (9 + 1 - 3) % 3});
  HostTensor gx = eval1("conv_transpose", {gy, w}, t);
  ASSERT_EQ(gx.shape(), x.shape());
  double lhs = 0, rhs = 0;
  for (std::uint64_t i = 0; i < y.numel(); ++i) lhs += y.raw<double>(i) * gy.raw<double>(i);
  for (std::uint64_t i = 0; i < x.numel(); ++i) rhs += x.raw<double>(i) * gx.raw<double>(i);
  EXPECT_EQ(lhs, rhs);
}

TEST(ConvTranspose, ShapeRule) {
  EXPECT_EQ(infer("conv_transpose", {f32t({Dim::symbol("N"), d(8), d(7), d(7)}), f32t({d(8), d(3), d(4), d(4)}), f32t({d(6)})},
                  {{"strides", V{2, 2}}, {"pads", V{1, 1, 1, 1}}, {"groups", std::int64_t{2}}}),
            "f32[N, 6, 14, 14]");
  EXPECT_NE(infer("conv_transpose", {f32t({d(1), d(3), d(4)}), f32t({d(2), d(3), d(3)})}, {}).find("w's dim 0 is 2"),
            std::string::npos);
  EXPECT_NE(infer("conv_transpose", {f32t({d(1), d(3), d(4)}), f32t({d(3), d(3), d(3)})}, {{"output_padding", V{1}}})
                .find("smaller than the stride"),
            std::string::npos);
  EXPECT_NE(infer("conv_transpose", {f32t({d(1), d(3), d(1)}), f32t({d(3), d(3), d(1)})}, {{"pads", V{1, 0}}})
                .find("leave no output"),
            std::string::npos);
}

// ---- window geometry

TEST(Window, CeilModeDropsAWindowStartingInThePadding) {
  std::string err;
  WindowAxis a{4, 3, 2, 1, 0, 0, 0};
  EXPECT_EQ(*window_out_extent(a, false, err), 1u);
  EXPECT_EQ(*window_out_extent(a, true, err), 2u);
  WindowAxis b{5, 2, 2, 1, 0, 1, 0};  // padded 6: floor 3, ceil 3; a 4th would start at 6 >= 5
  EXPECT_EQ(*window_out_extent(b, true, err), 3u);
  WindowAxis c{4, 2, 3, 1, 0, 1, 0};  // padded 5, room 3: ceil gives 2 windows, the 2nd starts at 3 < 4
  EXPECT_EQ(*window_out_extent(c, true, err), 2u);
  WindowAxis e{2, 2, 2, 1, 0, 1, 0};  // room 1: ceil gives 2, the 2nd starts at 2 >= 2: dropped
  EXPECT_EQ(*window_out_extent(e, true, err), 1u);
}

TEST(Window, SamePadsAsOnnxResolvesAutoPad) {
  // in 5, k 3, stride 2: out 3, total pad (3-1)*2 + 3 - 5 = 2.
  EXPECT_EQ(same_pads(5, 3, 2, 1, true), (std::pair<std::uint64_t, std::uint64_t>{1, 1}));
  // in 4, k 2, stride 1: total 1; SAME_UPPER puts it after, SAME_LOWER before.
  EXPECT_EQ(same_pads(4, 2, 1, 1, true), (std::pair<std::uint64_t, std::uint64_t>{0, 1}));
  EXPECT_EQ(same_pads(4, 2, 1, 1, false), (std::pair<std::uint64_t, std::uint64_t>{1, 0}));
  EXPECT_EQ(same_pads(7, 3, 1, 2, true), (std::pair<std::uint64_t, std::uint64_t>{2, 2}));  // span 5
  EXPECT_EQ(same_pads(10, 1, 4, 1, true), (std::pair<std::uint64_t, std::uint64_t>{0, 0}));
  // The resolved pads give ceil(in / stride) outputs.
  for (std::uint64_t in : {1, 5, 8, 13})
    for (std::uint64_t k : {1, 2, 3, 5})
      for (std::uint64_t s : {1, 2, 3})
        for (bool up : {true, false}) {
          auto [b, a] = same_pads(in, k, s, 1, up);
          std::string err;
          auto out = window_out_extent(WindowAxis{in, k, s, 1, b, a, 0}, false, err);
          ASSERT_TRUE(out) << err;
          EXPECT_EQ(*out, (in + s - 1) / s) << in << " " << k << " " << s;
        }
}

// ---- max_pool

TEST(MaxPool, HandComputedWithIndices) {
  auto r = [](std::vector<HostTensor> in, AttrMap a) {
    DiagnosticSink dg;
    return *evaluate("max_pool", in, a, dg);
  };
  auto out =
      r({f32({1, 1, 3, 4}, {1, 5, 2, 0, 3, 4, 9, 8, 7, 6, 2, 1})}, {{"kernel_shape", V{2, 2}}, {"strides", V{1, 2}}});
  EXPECT_EQ(values_f32(out[0]), (std::vector<float>{5, 9, 7, 9}));
  EXPECT_EQ(values_i64(out[1]), (std::vector<std::int64_t>{1, 6, 8, 6}));
  // Padding never wins, even over -inf; indices are flat over (n, c, h, w).
  auto neg = r({f32({2, 1, 2}, {-inff(), -inff(), -3, -4})}, {{"kernel_shape", V{2}}, {"pads", V{1, 1}}});
  EXPECT_EQ(values_f32(neg[0]), (std::vector<float>{-inff(), -inff(), -inff(), -3, -3, -4}));
  EXPECT_EQ(values_i64(neg[1]), (std::vector<std::int64_t>{0, 0, 1, 2, 2, 3}));
}

TEST(MaxPool, NanWinsAndPositiveZeroBeatsNegative) {
  DiagnosticSink dg;
  std::vector<HostTensor> in = {f32({1, 1, 8}, {1, nanf(), 5, nanf(), -0.0f, 0.0f, 0.0f, -0.0f})};
  auto out = *evaluate("max_pool", in, {{"kernel_shape", V{4}}, {"strides", V{4}}}, dg);
  EXPECT_TRUE(std::isnan(values_f32(out[0])[0]));
  EXPECT_EQ(values_i64(out[1])[0], 1);  // the first NaN
  EXPECT_EQ(bits(values_f32(out[0])[1]), bits(0.0f));
  EXPECT_EQ(values_i64(out[1])[1], 5);  // +0 replaces -0; the later +0 and -0 do not replace it
}

TEST(MaxPool, ShapeRule) {
  EXPECT_EQ(infer("max_pool", {f32t({Dim::symbol("N"), Dim::symbol("C"), d(7), d(7)})},
                  {{"kernel_shape", V{3, 3}}, {"strides", V{2, 2}}, {"ceil_mode", true}}),
            "f32[N, C, 3, 3] i64[N, C, 3, 3]");
  EXPECT_NE(
      infer("max_pool", {f32t({d(1), d(1), d(4)})}, {{"kernel_shape", V{2, 2}}}).find("`kernel_shape` needs 1 values"),
      std::string::npos);
  EXPECT_NE(infer("max_pool", {f32t({d(1), d(1), d(4)})}, {{"kernel_shape", V{2}}, {"pads", V{2, 0}}})
                .find("entirely in the padding"),
            std::string::npos);
  EXPECT_NE(infer("max_pool", {f32t({d(1), d(1), d(4)})}, {{"kernel_shape", V{0}}}).find("must be >= 1"),
            std::string::npos);
  EXPECT_EQ(eval_codes("max_pool", {f32({1, 1, 4}, {1, 2, 3, 4})}, {}),
            (std::vector<std::string>{"N0011"}));  // kernel_shape required
}

// ---- avg_pool

TEST(AvgPool, CountIncludePadBothWays) {
  HostTensor x = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  AttrMap a = {{"kernel_shape", V{2, 2}}, {"pads", V{1, 0, 1, 0}}};
  EXPECT_EQ(values_f32(eval1("avg_pool", {x}, a)), (std::vector<float>{1, 1.5f, 2, 2.5f}));
  a.insert_or_assign("count_include_pad", true);
  EXPECT_EQ(values_f32(eval1("avg_pool", {x}, a)), (std::vector<float>{0.25f, 0.75f, 1, 2.5f}));
}

// ceil_mode's overhang is not padding: count_include_pad does not count it.
TEST(AvgPool, CeilOverhangNeverCounts) {
  AttrMap a = {{"kernel_shape", V{2}}, {"strides", V{2}}, {"ceil_mode", true}, {"count_include_pad", true}};
  EXPECT_EQ(values_f32(eval1("avg_pool", {f32({1, 1, 5}, {1, 2, 3, 4, 5})}, a)), (std::vector<float>{1.5f, 3.5f, 5}));
}

// The sum is the canonical tree over the k taps (outside taps +0), then one division.
TEST(AvgPool, CanonicalSumThenOneDivision) {
  auto xv = noise(49, 3, 1e5f);
  xv[0] = 1e-3f;
  HostTensor y = eval1("avg_pool", {f32({1, 1, 7, 7}, xv)}, {{"kernel_shape", V{7, 7}}});
  float s = num::canonical_sum<float>(49, [&](std::uint64_t i) { return xv[i]; });
  EXPECT_EQ(bits(values_f32(y)[0]), bits(s / 49.0f));
  // Equal to the mean reduction over the whole plane.
  HostTensor m = eval1("mean", {f32({49}, xv)}, {{"axes", V{0}}});
  EXPECT_EQ(bits(values_f32(y)[0]), bits(values_f32(m)[0]));
}

TEST(AvgPool, RepeatedEvaluationIsBitIdentical) {
  HostTensor x = f32({2, 3, 9, 8}, noise(2 * 3 * 9 * 8, 11, 3.0f));
  AttrMap a = {{"kernel_shape", V{3, 2}}, {"strides", V{2, 1}}, {"pads", V{1, 1, 0, 1}}, {"ceil_mode", true}};
  EXPECT_TRUE(eval1("avg_pool", {x}, a).identical(eval1("avg_pool", {x}, a)));
}

}  // namespace
}  // namespace rung::ops::testing
