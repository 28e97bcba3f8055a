// Quantized family: the byte layout of q8_0/q4_0 by hand, round-trip error bounds, the two
// linear_q arithmetics (hand-computed int8 case; float path == linear on dequantized W).
#include <cmath>

#include "op_test_util.h"
#include "ops/numerics/half.h"

namespace rung::ops::testing {
namespace {

// Deterministic pseudo-random floats in [-scale, scale).
std::vector<float> noise(std::size_t n, std::uint32_t seed, float scale) {
  std::vector<float> v(n);
  std::uint32_t s = seed;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = (static_cast<float>(s >> 8) / 16777216.0f * 2.0f - 1.0f) * scale;
  }
  return v;
}

HostTensor quantize(const HostTensor& x, DType to) { return eval1("quantize", {x}, {{"to", to}}); }

TEST(Q8_0, ByteLayoutByHand) {
  std::vector<float> x(32, 0.0f);
  float head[] = {127, -127, 0.5f, 1.5f, 2.5f, -0.5f, -2.5f, 126.6f, -0.0f};
  std::copy(std::begin(head), std::end(head), x.begin());
  x[31] = 3.0f;
  HostTensor q = quantize(f32({32}, x), DType::q8_0);
  ASSERT_EQ(q.bytes().size(), 34u);
  auto b = q.bytes();
  EXPECT_EQ(b[0], 0x00);  // d = 127 / 127 = 1.0 = f16 0x3C00, little-endian
  EXPECT_EQ(b[1], 0x3C);
  std::uint8_t codes[] = {0x7F, 0x81, 0x00, 0x02, 0x02, 0x00, 0xFE, 0x7F, 0x00};  // RNE: 0.5->0, 1.5->2, 2.5->2
  for (int i = 0; i < 9; ++i) EXPECT_EQ(b[2 + i], codes[i]) << i;
  EXPECT_EQ(b[33], 0x03);
}

TEST(Q4_0, ByteLayoutByHand) {
  std::vector<float> x(32, 0.0f);
  x[0] = -8;    // the largest magnitude (first on the tie with x[1]): d = -8 / -8 = 1
  x[1] = 8;     // 8 / 1 clamps to 7 -> u = 15
  x[2] = 3.5f;  // RNE 4 -> u = 12
  x[3] = -0.5f; // RNE -0 -> u = 8
  x[16] = 1;    // u = 9, in the high nibble of byte 0
  x[17] = -3;   // u = 5, high nibble of byte 1
  HostTensor q = quantize(f32({32}, x), DType::q4_0);
  ASSERT_EQ(q.bytes().size(), 18u);
  auto b = q.bytes();
  EXPECT_EQ(b[0], 0x00);
  EXPECT_EQ(b[1], 0x3C);
  EXPECT_EQ(b[2], 0x90);  // u0 = 0 | u16 = 9 << 4
  EXPECT_EQ(b[3], 0x5F);  // u1 = 15 | u17 = 5 << 4
  EXPECT_EQ(b[4], 0x8C);  // u2 = 12 | u18 = 8 << 4
  EXPECT_EQ(b[5], 0x88);
  // A positive extreme gives a negative scale: x = 8 -> d = -1, u = 0.
  x.assign(32, 0.0f);
  x[5] = 8;
  x[6] = -8;  // -8 / -1 = 8 clamps to 7
  HostTensor p = quantize(f32({32}, x), DType::q4_0);
  EXPECT_EQ(p.bytes()[0], 0x00);
  EXPECT_EQ(p.bytes()[1], 0xBC);
  EXPECT_EQ(p.bytes()[2 + 5], 0x80);
  EXPECT_EQ(p.bytes()[2 + 6], 0x8F);
  EXPECT_EQ(values_f32(eval1("dequantize", {p})), ([] {
              std::vector<float> v(32, 0.0f);
              v[5] = 8;
              v[6] = -7;
              return v;
            })());
}

TEST(Quant, ZeroBlocksAndSignedZero) {
  std::vector<float> z(64, 0.0f);
  z[3] = -0.0f;
  for (DType t : {DType::q8_0, DType::q4_0}) {
    HostTensor y = eval1("dequantize", {quantize(f32({2, 32}, z), t)});
    for (float v : values_f32(y)) EXPECT_EQ(bits(v), 0u) << dtype_name(t);  // scale 0: every value +0
  }
}

// |x - dequantize(quantize(x))| <= d / 2 for q8_0 (d the stored scale) and for q4_0, except
// at q4_0's clamped top code 7, where it is <= |d| (1 + 2^-8) (d rounded to f16 may be
// slightly smaller than max / 8). Slack: the f32 division before the integer rounding
// adds at most 127 * 2^-24 units of d, i.e. a factor 1 + 2^-16 on d / 2.
TEST(Quant, RoundTripErrorWithinTheFormatBound) {
  for (DType t : {DType::q8_0, DType::q4_0}) {
    for (std::uint32_t seed = 1; seed <= 20; ++seed) {
      float scale = std::ldexp(1.0f, static_cast<int>(seed % 13) - 6);
      HostTensor x = f32({4, 64}, noise(256, seed, scale));
      HostTensor q = quantize(x, t);
      HostTensor y = eval1("dequantize", {q});
      for (std::uint64_t b = 0; b < 8; ++b) {
        const std::uint8_t* blk = q.bytes().data() + b * (t == DType::q8_0 ? 34 : 18);
        float d = num::f32_from_f16(static_cast<std::uint16_t>(blk[0] | blk[1] << 8));
        ASSERT_NE(d, 0.0f);
        for (std::uint64_t i = b * 32; i < b * 32 + 32; ++i) {
          float err = std::fabs(x.load_f32(i) - y.load_f32(i));
          bool top = t == DType::q4_0 && y.load_f32(i) / d == 7.0f;
          float bound = top ? std::fabs(d) * (1.0f + 0x1p-8f) : std::fabs(d) / 2 * (1.0f + 0x1p-16f);
          EXPECT_LE(err, bound) << dtype_name(t) << " seed " << seed << " i " << i;
        }
      }
    }
  }
}

TEST(Quant, Q8RoundTripKeepsTheBlockMaximum) {
  // amax / 127 exact in f16 -> the maximum maps to +-127 and comes back exactly.
  std::vector<float> x = noise(32, 3, 1.0f);
  x[9] = -2.0f * 127.0f / 128.0f;  // amax = 1.984375, d = 1/64
  HostTensor y = eval1("dequantize", {quantize(f32({32}, x), DType::q8_0)});
  EXPECT_EQ(y.load_f32(9), x[9]);
}

// Tiny blocks: the scale becomes an f16 subnormal (coarse, so the maximum may clamp at 127)
// or rounds to 0 (then every code is 0).
TEST(Quant, SubnormalAndVanishingScales) {
  std::vector<float> x(32, 0.0f);
  x[0] = 1e-4f;  // d = f16(1e-4 / 127) = 13 * 2^-24; 1e-4 / d = 129.0... clamps to 127
  x[1] = -5e-5f;
  HostTensor q = quantize(f32({32}, x), DType::q8_0);
  EXPECT_EQ(q.bytes()[0] | q.bytes()[1] << 8, 13);
  EXPECT_EQ(static_cast<std::int8_t>(q.bytes()[2]), 127);
  HostTensor y = eval1("dequantize", {q});
  EXPECT_EQ(y.load_f32(0), 127.0f * 13.0f * 0x1p-24f);
  x[0] = 1e-9f;  // amax / 127 is far below the smallest f16 subnormal
  x[1] = 0.0f;
  HostTensor z = quantize(f32({32}, x), DType::q8_0);
  for (std::uint8_t b : z.bytes()) EXPECT_EQ(b, 0);
}

TEST(Quant, DequantizeToHalfRoundsOnce) {
  HostTensor q = quantize(f32({32}, noise(32, 8, 3.0f)), DType::q8_0);
  HostTensor f = eval1("dequantize", {q});
  HostTensor h = eval1("dequantize", {q}, {{"to", DType::bf16}});
  for (std::uint64_t i = 0; i < 32; ++i) EXPECT_EQ(h.raw<std::uint16_t>(i), num::bf16_from_f32(f.load_f32(i)));
}

TEST(Quant, NonFiniteAndOverflowAreClearErrors) {
  std::vector<float> x(64, 1.0f);
  x[40] = nanf();
  DiagnosticSink d;
  std::vector<HostTensor> in{f32({2, 32}, x)};
  evaluate("quantize", in, {{"to", DType::q4_0}}, d);
  ASSERT_EQ(d.all().size(), 1u);
  EXPECT_EQ(d.all()[0].message,
            "`quantize` refused its input: block 1 (row 1, elements 0..31) holds an inf or NaN, which q4_0 cannot represent");
  x[40] = 1e7f;
  EXPECT_EQ(eval_codes("quantize", {f32({2, 32}, x)}, {{"to", DType::q8_0}}), std::vector<std::string>{"N0012"});
  x[40] = 1e6f;  // fits q8_0 (d = 7874), overflows q4_0's f16 scale (d = 125000)
  EXPECT_TRUE(eval_codes("quantize", {f32({2, 32}, x)}, {{"to", DType::q8_0}}).empty());
  EXPECT_EQ(eval_codes("quantize", {f32({2, 32}, x)}, {{"to", DType::q4_0}}), std::vector<std::string>{"N0012"});
}

TEST(Quant, ShapeRules) {
  EXPECT_EQ(eval_codes("quantize", {f32({2, 16}, std::vector<float>(32, 1.0f))}), std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval_codes("quantize", {f32({32}, std::vector<float>(32, 1.0f))}, {{"to", DType::i8}}),
            std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval_codes("dequantize", {f32({32}, std::vector<float>(32, 1.0f))}), std::vector<std::string>{"N0011"});
}

TEST(LinearQ, Int8PathByHand) {
  // x has amax 127 per block -> dx = 1 and codes = x; W's blocks have amax 63.5 -> d = 0.5
  // (exact in f16) and codes 2w. y = sum over blocks of (1 * 0.5) * sum(x_i * 2 w_i).
  std::vector<float> x(64), w(64);
  for (int i = 0; i < 64; ++i) {
    x[i] = static_cast<float>((i * 37) % 255 - 127);
    w[i] = static_cast<float>((i * 11) % 127 - 63) - 0.5f * static_cast<float>(i % 2);  // in [-63.5, 63]
  }
  x[0] = 127;
  x[32] = -127;
  w[1] = 63.5f;
  w[33] = -63.5f;
  std::int64_t dot = 0;
  for (int i = 0; i < 64; ++i) dot += static_cast<std::int64_t>(x[i]) * static_cast<std::int64_t>(2 * w[i]);
  HostTensor W = quantize(f32({1, 64}, w), DType::q8_0);
  HostTensor y = eval1("linear_q", {f32({1, 64}, x), W, f32({1}, {0.25f})});
  ASSERT_EQ(y.shape(), (Extents{1, 1}));
  EXPECT_EQ(y.load_f32(0), static_cast<float>(dot) * 0.5f + 0.25f);  // |dot| < 2^22: all exact
}

TEST(LinearQ, FloatPathIsLinearOnDequantizedWeights) {
  for (DType t : {DType::q8_0, DType::q4_0}) {
    HostTensor x = f32({2, 3, 96}, noise(576, 11, 2.0f));
    HostTensor W = quantize(f32({5, 96}, noise(480, 12, 0.3f)), t);
    HostTensor b = f32({5}, noise(5, 13, 1.0f));
    HostTensor want = eval1("linear", {x, eval1("dequantize", {W}), b});
    HostTensor got = eval1("linear_q", {x, W, b}, {{"compute", "float"}});
    EXPECT_TRUE(got.identical(want)) << dtype_name(t);
  }
}

// The int8 path differs from the float path only by the activation rounding:
// |y_int8 - y_float| <= sum_b (dx_b / 2) * sum_{i in b} |w_i| (+ f32 rounding).
TEST(LinearQ, Int8PathWithinActivationQuantizationBound) {
  for (DType t : {DType::q8_0, DType::q4_0}) {
    HostTensor x = f32({4, 128}, noise(512, 21, 1.5f));
    HostTensor W = quantize(f32({6, 128}, noise(768, 22, 0.5f)), t);
    HostTensor wd = eval1("dequantize", {W});
    HostTensor yi = eval1("linear_q", {x, W});
    HostTensor yf = eval1("linear_q", {x, W}, {{"compute", "float"}});
    int differing = 0;
    for (std::uint64_t r = 0; r < 4; ++r)
      for (std::uint64_t n = 0; n < 6; ++n) {
        double bound = 0, mag = 0;
        for (std::uint64_t b = 0; b < 4; ++b) {
          float amax = 0, wsum = 0;
          for (std::uint64_t i = b * 32; i < b * 32 + 32; ++i) {
            amax = std::max(amax, std::fabs(x.load_f32(r * 128 + i)));
            wsum += std::fabs(wd.load_f32(n * 128 + i));
            mag += std::fabs(x.load_f32(r * 128 + i) * wd.load_f32(n * 128 + i));
          }
          bound += amax / 127.0 / 2.0 * wsum;
        }
        double diff = std::fabs(static_cast<double>(yi.load_f32(r * 6 + n)) - yf.load_f32(r * 6 + n));
        EXPECT_LE(diff, bound * 1.001 + mag * 1e-6) << dtype_name(t) << " " << r << "," << n;
        differing += diff > 0.0;
      }
    EXPECT_GT(differing, 0) << "the two paths should differ somewhere in this case";
  }
}

TEST(LinearQ, NonFiniteActivationMakesItsRowNaN) {
  std::vector<float> x = noise(64, 5, 1.0f);
  x[40] = inff();
  HostTensor W = quantize(f32({2, 32}, noise(64, 6, 1.0f)), DType::q8_0);
  HostTensor y = eval1("linear_q", {f32({2, 32}, x), W});
  EXPECT_FALSE(std::isnan(y.load_f32(0)));
  EXPECT_FALSE(std::isnan(y.load_f32(1)));
  EXPECT_TRUE(std::isnan(y.load_f32(2)));
  EXPECT_TRUE(std::isnan(y.load_f32(3)));
}

TEST(LinearQ, ShapeErrorsAndRepeatability) {
  HostTensor W = quantize(f32({2, 32}, noise(64, 6, 1.0f)), DType::q4_0);
  EXPECT_EQ(eval_codes("linear_q", {f32({1, 16}, noise(16, 1, 1.0f)), W}), std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval_codes("linear_q", {f32({1, 32}, noise(32, 1, 1.0f)), f32({2, 32}, noise(64, 1, 1.0f))}),
            std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval_codes("linear_q", {f32({1, 32}, noise(32, 1, 1.0f)), W, f32({3}, {1, 2, 3})}),
            std::vector<std::string>{"N0011"});
  HostTensor x = f32({3, 32}, noise(96, 2, 1.0f));
  EXPECT_TRUE(eval1("linear_q", {x, W}).identical(eval1("linear_q", {x, W})));
}

}  // namespace
}  // namespace rung::ops::testing
