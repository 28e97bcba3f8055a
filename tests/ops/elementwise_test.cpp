// Elementwise ops: hand-computed values, IEEE edge cases (NaN, ±inf, ±0, subnormals),
// broadcasting (size-1 and empty dims), integer wrap-around, and f16/bf16 storage.
#include <cmath>

#include "op_test_util.h"
#include "ops/numerics/exp_log.h"

namespace rung::ops::testing {
namespace {

const float kNan = nanf();
const float kInf = inff();
const float kDen = 1e-45f;  // the smallest subnormal

std::vector<float> un(std::string_view op, std::vector<float> x, const AttrMap& attrs = {}) {
  auto n = x.size();
  return values_f32(eval1(op, {f32({n}, x)}, attrs));
}
std::vector<float> bin(std::string_view op, std::vector<float> a, std::vector<float> b) {
  auto n = a.size();
  return values_f32(eval1(op, {f32({n}, a), f32({n}, b)}));
}
void expect_bits(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_SAME_BITS(got[i], want[i]) << " at " << i;
}

TEST(Elementwise, ArithmeticIeeeEdgeCases) {
  expect_bits(bin("add", {-0.0f, -0.0f, kInf, kDen, 1.0f, kNan}, {-0.0f, 0.0f, -kInf, kDen, 0x1p-24f, 1.0f}),
              {-0.0f, 0.0f, kNan, 0x1p-148f, 1.0f, kNan});  // 1 + 2^-24 is a tie: rounds to even (1)
  expect_bits(bin("sub", {0.0f, kInf, 1.0f}, {0.0f, kInf, 1.0f + 0x1p-23f}), {0.0f, kNan, -0x1p-23f});
  expect_bits(bin("mul", {-0.0f, 0.0f, kInf, 0x1p-100f, 3.0f}, {5.0f, kInf, -2.0f, 0x1p-100f, 1.0f / 3.0f}),
              {-0.0f, kNan, -kInf, 0.0f, 1.0f});  // 2^-200 underflows to +0
  expect_bits(bin("div", {1.0f, -1.0f, 0.0f, kInf, 1.0f}, {0.0f, 0.0f, 0.0f, kInf, 3.0f}),
              {kInf, -kInf, kNan, kNan, 0x1.555556p-2f});
}

TEST(Elementwise, NanResultsAreCanonical) {
  HostTensor y = eval1("add", {f32({2}, {from_bits(0xFFC01234u), kInf}), f32({2}, {1.0f, -kInf})});
  EXPECT_EQ(bits(y.load_f32(0)), 0x7FC00000u);
  EXPECT_EQ(bits(y.load_f32(1)), 0x7FC00000u);
  EXPECT_EQ(bits(un("abs", {from_bits(0xFF800001u)})[0]), 0x7FC00000u);
}

TEST(Elementwise, SignAndMagnitudeOps) {
  expect_bits(un("neg", {0.0f, -0.0f, 1.5f, kInf}), {-0.0f, 0.0f, -1.5f, -kInf});
  expect_bits(un("abs", {-0.0f, -kDen, -kInf, 2.0f}), {0.0f, kDen, kInf, 2.0f});
  expect_bits(un("square", {-3.0f, 0x1p-75f, -0.0f, 0x1p64f}), {9.0f, 0.0f, 0.0f, kInf});
  expect_bits(un("relu", {-0.0f, -1.0f, 2.0f, kNan, kDen, -kInf}), {0.0f, 0.0f, 2.0f, kNan, kDen, 0.0f});
}

TEST(Elementwise, MaximumMinimumNanAndZeros) {
  expect_bits(bin("maximum", {-0.0f, 0.0f, kNan, 1.0f, -kInf}, {0.0f, -0.0f, 1.0f, kNan, -5.0f}),
              {0.0f, 0.0f, kNan, kNan, -5.0f});
  expect_bits(bin("minimum", {-0.0f, 0.0f, kNan, 1.0f, kInf}, {0.0f, -0.0f, 1.0f, kNan, 5.0f}),
              {-0.0f, -0.0f, kNan, kNan, 5.0f});
}

TEST(Elementwise, SqrtRsqrtReciprocal) {
  expect_bits(un("sqrt", {4.0f, 2.0f, -0.0f, -1.0f, kInf, kDen}), {2.0f, 0x1.6a09e6p+0f, -0.0f, kNan, kInf, 0x1.6a09e6p-75f});
  // rsqrt is two correctly rounded steps, never an estimate: 1/sqrt(2) rounds twice here.
  expect_bits(un("rsqrt", {4.0f, 0.0f, -0.0f, kInf, 2.0f}), {0.5f, kInf, -kInf, 0.0f, 1.0f / 0x1.6a09e6p+0f});
  expect_bits(un("reciprocal", {4.0f, -0.0f, kInf, 3.0f}), {0.25f, -kInf, 0.0f, 0x1.555556p-2f});
}

TEST(Elementwise, ClampOrderAndNan) {
  AttrMap a{{"min", -1.0}, {"max", 2.0}};
  expect_bits(un("clamp", {-5.0f, 0.5f, 7.0f, kNan, -0.0f}, a), {-1.0f, 0.5f, 2.0f, kNan, -0.0f});
  AttrMap inverted{{"min", 3.0}, {"max", 1.0}};  // min > max: the definition's order gives max
  expect_bits(un("clamp", {0.0f, 5.0f}, inverted), {1.0f, 1.0f});
  EXPECT_EQ(eval_codes("clamp", {f32({1}, {0})}, {{"min", std::int64_t{1}}}), (std::vector<std::string>{"N0011"}));
}

TEST(Elementwise, TranscendentalSpecialValues) {
  expect_bits(un("exp", {-kInf, kInf, kNan, 0.0f, -0.0f, 88.8f, -104.0f, 89.0f}),
              {0.0f, kInf, kNan, 1.0f, 1.0f, kInf, 0.0f, kInf});
  expect_bits(un("log", {0.0f, -0.0f, -1.0f, 1.0f, kInf, kDen}), {-kInf, -kInf, kNan, 0.0f, kInf, -0x1.9d1da0p+6f});
  expect_bits(un("sin", {-0.0f, kInf, kNan, 0x1p-140f}), {-0.0f, kNan, kNan, 0x1p-140f});
  expect_bits(un("cos", {0.0f, -kInf, -0.0f}), {1.0f, kNan, 1.0f});
  expect_bits(un("tanh", {-0.0f, kInf, -kInf, 20.0f, kDen}), {-0.0f, 1.0f, -1.0f, 1.0f, kDen});
  expect_bits(un("sigmoid", {0.0f, kInf, -kInf, kNan}), {0.5f, 1.0f, 0.0f, kNan});
  expect_bits(un("silu", {0.0f, -0.0f, kInf, -kInf}), {0.0f, -0.0f, kInf, -0.0f});
  expect_bits(un("erf", {-0.0f, kInf, -kInf, 5.0f}), {-0.0f, 1.0f, -1.0f, 1.0f});
  expect_bits(un("gelu", {-0.0f, kInf, -kInf, 0.0f}), {-0.0f, kInf, -0.0f, 0.0f});
  expect_bits(un("gelu", {-0.0f, kInf, -kInf, 0.0f}, {{"approximate", "tanh"}}), {-0.0f, kInf, -0.0f, 0.0f});
  EXPECT_EQ(eval_codes("gelu", {f32({1}, {0})}, {{"approximate", "fast"}}), (std::vector<std::string>{"N0011"}));
}

TEST(Elementwise, FloorCeilRoundExactWithTheSignOfX) {
  const std::vector<float> x = {-0.0f, 0.0f, -0.5f, 0.5f, 1.5f, 2.5f, -2.5f, -0.7f, 0.7f, kDen, -kDen,
                                0x1.fffffep22f, 0x1p23f + 1.0f, kInf, -kInf, kNan, 0x1.000002p0f, -3.0f};
  expect_bits(un("floor", x), {-0.0f, 0.0f, -1.0f, 0.0f, 1.0f, 2.0f, -3.0f, -1.0f, 0.0f, 0.0f, -1.0f, 0x1.fffffcp22f,
                               0x1p23f + 1.0f, kInf, -kInf, kNan, 1.0f, -3.0f});
  expect_bits(un("ceil", x), {-0.0f, 0.0f, -0.0f, 1.0f, 2.0f, 3.0f, -2.0f, -0.0f, 1.0f, 1.0f, -0.0f, 0x1p23f,
                              0x1p23f + 1.0f, kInf, -kInf, kNan, 2.0f, -3.0f});
  // Halves go to even: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2; 0x1.fffffep22 is 8388607.5 -> 8388608.
  expect_bits(un("round", x), {-0.0f, 0.0f, -0.0f, 0.0f, 2.0f, 2.0f, -2.0f, -1.0f, 1.0f, 0.0f, -0.0f, 0x1p23f,
                               0x1p23f + 1.0f, kInf, -kInf, kNan, 1.0f, -3.0f});
  // f64: halves and values near 2^52, where a double has no fraction bits left.
  HostTensor d = eval1("round", {f64({4}, {0x1p52 - 0.5, -0x1p51 - 0.5, 0x1p53, -0.5})});
  EXPECT_EQ(d.load_f64(0), 0x1p52);
  EXPECT_EQ(d.load_f64(1), -0x1p51);
  EXPECT_EQ(d.load_f64(2), 0x1p53);
  EXPECT_TRUE(std::signbit(d.load_f64(3)) && d.load_f64(3) == 0.0);
  HostTensor f = eval1("floor", {f64({2}, {-0x1p52 + 0.5, 0x1p-1074})});
  EXPECT_EQ(f.load_f64(0), -0x1p52 + 0.0);
  EXPECT_EQ(f.load_f64(1), 0.0);
  EXPECT_EQ(eval_codes("floor", {i64({1}, {3}, DType::i32)}), (std::vector<std::string>{"N0011"}));  // floats only
}

TEST(Elementwise, InverseTrigSpecialValues) {
  const float pio2 = 0x1.921fb6p+0f, pi = 0x1.921fb6p+1f;  // pi/2 and pi rounded to f32
  expect_bits(un("atan", {-0.0f, 0.0f, kInf, -kInf, kNan, kDen, 1.0f, -1.0f}),
              {-0.0f, 0.0f, pio2, -pio2, kNan, kDen, 0x1.921fb6p-1f, -0x1.921fb6p-1f});
  expect_bits(un("asin", {-0.0f, 1.0f, -1.0f, 1.0000001f, -kInf, kNan, kDen}), {-0.0f, pio2, -pio2, kNan, kNan, kNan, kDen});
  expect_bits(un("acos", {1.0f, -1.0f, 0.0f, -0.0f, 2.0f, kNan}), {0.0f, pi, pio2, pio2, kNan, kNan});
  // Correctly rounded values (MPFR): asin(0.5) = pi/6, acos(0.5) = pi/3, atan(1e10) ~ pi/2 - 1e-10.
  expect_bits(un("asin", {0.5f}), {0x1.0c1524p-1f});
  expect_bits(un("acos", {0.5f, -0.5f}), {0x1.0c1524p+0f, 0x1.0c1524p+1f});
  expect_bits(un("atan", {1e10f, 0.25f}), {pio2, 0x1.f5b760p-3f});
}

TEST(Elementwise, BitShiftDropsBitsAndGivesZeroFromTheWidthOn) {
  auto shift = [](std::vector<std::uint64_t> x, std::vector<std::uint64_t> y, DType dt, const char* dir) {
    HostTensor a(dt, {x.size()}), b(dt, {y.size()});
    for (std::size_t i = 0; i < x.size(); ++i) a.store_int(i, x[i]);
    for (std::size_t i = 0; i < y.size(); ++i) b.store_int(i, y[i]);
    HostTensor z = eval1("bit_shift", {a, b}, {{"direction", std::string(dir)}});
    std::vector<std::uint64_t> out;
    for (std::uint64_t i = 0; i < z.numel(); ++i) out.push_back(z.load_u64(i));
    return out;
  };
  using V = std::vector<std::uint64_t>;
  EXPECT_EQ(shift({0x81, 1, 0xff, 7}, {1, 7, 8, 200}, DType::u8, "left"), (V{0x02, 0x80, 0, 0}));
  EXPECT_EQ(shift({0x81, 0x80, 0xff, 7}, {1, 7, 8, 0}, DType::u8, "right"), (V{0x40, 1, 0, 7}));
  EXPECT_EQ(shift({1, 0xffffffffu}, {31, 32}, DType::u32, "left"), (V{0x80000000u, 0}));
  EXPECT_EQ(shift({0x8000000000000000ull, 5}, {63, 64}, DType::u64, "right"), (V{1, 0}));
  EXPECT_EQ(shift({0xabcd}, {4}, DType::u16, "left"), (V{0xbcd0}));
  EXPECT_EQ(eval_codes("bit_shift", {i64({1}, {1}, DType::i32), i64({1}, {1}, DType::i32)}), (std::vector<std::string>{"N0011"}));  // unsigned only
  EXPECT_EQ(eval_codes("bit_shift", {HostTensor(DType::u8, {1}), HostTensor(DType::u8, {1})}, {{"direction", std::string("up")}}),
            (std::vector<std::string>{"N0011"}));
}

TEST(Elementwise, TranscendentalValuesAgainstKnownDigits) {
  // Correctly rounded f32 values of the exact results (checked with MPFR).
  expect_bits(un("sin", {1.0f, 1e10f, 3.14159274f}), {0x1.aed548p-1f, -0x1.f334c8p-2f, -0x1.777a5cp-24f});
  expect_bits(un("cos", {1.0f, 1e10f}), {0x1.14a280p-1f, 0x1.bf098ap-1f});
  expect_bits(un("tanh", {0.5f}), {0x1.d9353ep-2f});
  expect_bits(un("erf", {0.5f}), {0x1.0a7ef6p-1f});
  expect_bits(un("gelu", {1.0f}), {0x1.aec4bep-1f});  // 0.5 (1 + erf(1/sqrt 2)) = 0.8413447...
}

TEST(Elementwise, PowSpecialCasesMatchC99) {
  const std::vector<float> vals = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 2.0f, -2.0f, 3.0f, -3.0f, 2.5f, -2.5f,
                                   kInf, -kInf, kNan, 1e-30f, 1e30f, kDen};
  for (float x : vals)
    for (float y : vals) {
      float got = bin("pow", {x}, {y})[0];
      float want = std::pow(x, y);  // glibc's powf follows C99 Annex F exactly on these
      if (std::isnan(want)) EXPECT_TRUE(std::isnan(got)) << x << "^" << y;
      else EXPECT_SAME_BITS(got, want) << " for " << x << "^" << y;
    }
}

TEST(Elementwise, BroadcastingShapes) {
  HostTensor y = eval1("mul", {f32({2, 1, 3}, {1, 2, 3, 4, 5, 6}), f32({4, 1}, {1, 10, 100, 1000})});
  EXPECT_EQ(y.shape(), (Extents{2, 4, 3}));
  EXPECT_EQ(values_f32(y)[3 * 3 + 2], 3000.0f);       // [0, 3, 2] = 3 * 1000
  EXPECT_EQ(values_f32(y)[12 + 1 * 3 + 0], 40.0f);     // [1, 1, 0] = 4 * 10
  HostTensor e = eval1("add", {f32({0, 3}, {}), f32({3}, {1, 2, 3})});
  EXPECT_EQ(e.shape(), (Extents{0, 3}));
  HostTensor s = eval1("add", {scalar(1.0f), f32({2}, {1, 2})});
  EXPECT_EQ(values_f32(s), (std::vector<float>{2, 3}));
  EXPECT_EQ(eval_codes("add", {f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({2}, {1, 2})}), (std::vector<std::string>{"N0011"}));
}

TEST(Elementwise, IntegersWrapAndDivideTowardZero) {
  auto i8 = [](std::vector<std::int64_t> v) { auto n = v.size(); return i64({n}, v, DType::i8); };
  EXPECT_EQ(values_i64(eval1("add", {i8({127, -128}), i8({1, -1})})), (std::vector<std::int64_t>{-128, 127}));
  EXPECT_EQ(values_i64(eval1("mul", {i8({64, -128}), i8({2, -1})})), (std::vector<std::int64_t>{-128, -128}));
  EXPECT_EQ(values_i64(eval1("neg", {i8({-128, 5})})), (std::vector<std::int64_t>{-128, -5}));
  EXPECT_EQ(values_i64(eval1("abs", {i8({-128, -5})})), (std::vector<std::int64_t>{-128, 5}));
  auto q = eval1("div", {i64({5}, {7, -7, 7, 5, INT64_MIN}), i64({5}, {2, 2, -2, 0, -1})});
  EXPECT_EQ(values_i64(q), (std::vector<std::int64_t>{3, -3, -3, 0, INT64_MIN}));
  auto u = eval1("sub", {i64({1}, {0}, DType::u16), i64({1}, {1}, DType::u16)});
  EXPECT_EQ(values_i64(u), (std::vector<std::int64_t>{65535}));
  auto m = eval1("mul", {i64({1}, {65535}, DType::u16), i64({1}, {65535}, DType::u16)});
  EXPECT_EQ(values_i64(m), (std::vector<std::int64_t>{1}));  // 65535^2 mod 2^16
}

TEST(Elementwise, HalfStorageRoundsTheF32Result) {
  // f16: 1 + 2^-11 is a tie between 1 and 1 + 2^-10: rounds to even.
  HostTensor a = HostTensor::from_f32({3}, std::vector<float>{1.0f, 1.0f + 0x1p-10f, 65504.0f}, DType::f16);
  HostTensor b = HostTensor::from_f32({3}, std::vector<float>{0x1p-11f, 0x1p-11f, 16.0f}, DType::f16);
  HostTensor y = eval1("add", {a, b});
  EXPECT_EQ(y.dtype(), DType::f16);
  // 65504 + 16 = 65520 is the tie between 65504 (odd significand) and 2^16: RNE overflows to inf.
  EXPECT_EQ(values_f32(y), (std::vector<float>{1.0f, 1.0f + 0x1p-9f, kInf}));
  // Exhaustive-ish: f16 add equals the correctly rounded _Float16 sum.
  for (std::uint32_t i = 0; i < 4000; ++i) {
    std::uint16_t ha = static_cast<std::uint16_t>(i * 40503u), hb = static_cast<std::uint16_t>(i * 9973u + 17u);
    HostTensor x(DType::f16, {1}), z(DType::f16, {1});
    x.set_raw<std::uint16_t>(0, ha);
    z.set_raw<std::uint16_t>(0, hb);
    HostTensor s = eval1("add", {x, z});
    _Float16 fa, fb;
    std::memcpy(&fa, &ha, 2);
    std::memcpy(&fb, &hb, 2);
    _Float16 want = static_cast<_Float16>(fa + fb);
    std::uint16_t wbits;
    std::memcpy(&wbits, &want, 2);
    if (std::isnan(static_cast<float>(want))) EXPECT_TRUE(std::isnan(s.load_f32(0)));
    else EXPECT_EQ(s.raw<std::uint16_t>(0), wbits) << std::hex << ha << " + " << hb;
  }
}

TEST(Elementwise, TranscendentalOnBf16RoundsOnce) {
  HostTensor x = HostTensor::from_f32({2}, std::vector<float>{1.0f, -2.0f}, DType::bf16);
  HostTensor y = eval1("exp", {x});
  EXPECT_EQ(y.dtype(), DType::bf16);
  EXPECT_EQ(y.raw<std::uint16_t>(0), num::bf16_from_f32(num::exp_f32(1.0f)));
  EXPECT_EQ(y.raw<std::uint16_t>(1), num::bf16_from_f32(num::exp_f32(-2.0f)));
}

TEST(Elementwise, RepeatedEvaluationIsBitIdentical) {
  std::vector<float> v;
  for (int i = 0; i < 1000; ++i) v.push_back(static_cast<float>(i) * 0.37f - 150.0f);
  for (const char* op : {"exp", "log", "sin", "cos", "tanh", "sigmoid", "silu", "erf", "gelu"}) {
    HostTensor first = eval1(op, {f32({1000}, v)});
    for (int r = 0; r < 3; ++r) EXPECT_TRUE(eval1(op, {f32({1000}, v)}).identical(first)) << op;
  }
}

}  // namespace
}  // namespace rung::ops::testing
