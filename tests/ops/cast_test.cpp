// Conversions: f16/bf16 narrowing against independent references, every cast rule of
// numerics/convert.h (single rounding, saturation, wrap-around, bool), and the op.
#include <cmath>

#include "op_test_util.h"
#include "ops/numerics/convert.h"
#include "ops/numerics/half.h"

namespace rung::ops::testing {
namespace {

std::uint16_t ref_f16(double x) {  // GCC's _Float16 conversion (libgcc, correctly rounded)
  _Float16 h = static_cast<_Float16>(x);
  std::uint16_t u;
  std::memcpy(&u, &h, 2);
  return u;
}

// bf16 reference by brute force: the nearest of the two neighbours, ties to the even one.
std::uint16_t ref_bf16(float x) {
  std::uint32_t u = bits(x);
  if (std::isnan(x)) return 0x7FC0;
  std::uint16_t lo = static_cast<std::uint16_t>(u >> 16), hi = static_cast<std::uint16_t>(lo + 1);
  double v = std::fabs(static_cast<double>(x));
  double a = std::fabs(static_cast<double>(num::f32_from_bf16(lo)));
  double b = (hi & 0x7FFF) >= 0x7F80 ? std::ldexp(1.0, 128) : std::fabs(static_cast<double>(num::f32_from_bf16(hi)));
  if (v - a < b - v) return lo;
  if (v - a > b - v) return hi;
  return (lo & 1) ? hi : lo;
}

TEST(Half, F16WideningIsExactForAllEncodings) {
  for (std::uint32_t h = 0; h < 65536; ++h) {
    float f = num::f32_from_f16(static_cast<std::uint16_t>(h));
    _Float16 g;
    std::uint16_t hh = static_cast<std::uint16_t>(h);
    std::memcpy(&g, &hh, 2);
    if (std::isnan(f)) { EXPECT_TRUE(std::isnan(static_cast<float>(g))); continue; }
    EXPECT_SAME_BITS(f, static_cast<float>(g));
    EXPECT_EQ(num::f16_from_f32(f), hh);  // and narrowing it back is the identity
  }
}

TEST(Half, F16NarrowingMatchesACorrectlyRoundedReference) {
  for (std::uint32_t i = 0; i < (1u << 20); ++i) {
    float x = from_bits(i * 4099u);
    if (std::isnan(x)) continue;
    ASSERT_EQ(num::f16_from_f32(x), ref_f16(x)) << std::hexfloat << x;
  }
  // Every midpoint between adjacent positive f16 values (ties go to even).
  for (std::uint16_t h = 0; h < 0x7BFF; ++h) {
    double mid = (static_cast<double>(num::f32_from_f16(h)) + num::f32_from_f16(static_cast<std::uint16_t>(h + 1))) / 2;
    ASSERT_EQ(num::f16_from_f64(mid), ref_f16(mid)) << h;
  }
}

TEST(Half, F64ToF16RoundsOnce) {
  // Just above the midpoint 1 + 2^-11: one rounding goes up; rounding through f32 first
  // lands exactly on the midpoint and then ties to even (down).
  double x = 1.0 + 0x1p-11 + 0x1p-40;
  EXPECT_EQ(num::f16_from_f64(x), 0x3C01);
  EXPECT_EQ(num::f16_from_f32(static_cast<float>(x)), 0x3C00);
}

TEST(Half, Bf16NarrowingMatchesBruteForce) {
  for (std::uint32_t i = 0; i < (1u << 20); ++i) {
    float x = from_bits(i * 4099u + 0x8000u);
    ASSERT_EQ(num::bf16_from_f32(x), ref_bf16(x)) << std::hexfloat << x;
  }
  EXPECT_EQ(num::bf16_from_f32(3.3961776e38f), 0x7F80);  // rounds up past the largest finite
  EXPECT_EQ(num::bf16_from_f32(1e-45f), 0x0000);         // below half the smallest subnormal
}

HostTensor cast(HostTensor x, DType to) { return eval1("cast", {std::move(x)}, {{"to", to}}); }

TEST(Cast, FloatToIntTruncatesAndSaturates) {
  HostTensor x = f32({9}, {2.9f, -2.9f, -0.9f, 300.0f, -300.0f, nanf(), inff(), -inff(), -0.0f});
  EXPECT_EQ(values_i64(cast(x, DType::i8)), (std::vector<std::int64_t>{2, -2, 0, 127, -128, 0, 127, -128, 0}));
  EXPECT_EQ(values_i64(cast(x, DType::u8)), (std::vector<std::int64_t>{2, 0, 0, 255, 0, 0, 255, 0, 0}));
  HostTensor big = f64({4}, {9.3e18, -9.3e18, 4294967296.0, 1.8e19});
  EXPECT_EQ(values_i64(cast(big, DType::i64)), (std::vector<std::int64_t>{INT64_MAX, INT64_MIN, 4294967296, INT64_MAX}));
  EXPECT_EQ(cast(big, DType::u32).load_i64(2), 4294967295);
  EXPECT_EQ(cast(big, DType::u64).load_u64(3), 18000000000000000000ull);
}

TEST(Cast, IntToFloatRoundsOnce) {
  // 2^63 + 2^55 + 1: through a double it becomes the bf16 tie 2^63 + 2^55 and rounds down;
  // the exact value is above the tie and must round up to 2^63 + 2^56.
  HostTensor x = HostTensor::from_i64({1}, std::vector<std::int64_t>{0}, DType::u64);
  x.set_raw<std::uint64_t>(0, (1ull << 63) + (1ull << 55) + 1);
  EXPECT_EQ(cast(x, DType::bf16).load_f32(0), 0x1.02p+63f);
  HostTensor y = i64({4}, {(1ll << 53) + 1, -(1ll << 53) - 3, INT64_MIN, 16777217});
  HostTensor yf = cast(y, DType::f32);
  EXPECT_EQ(values_f32(yf), (std::vector<float>{0x1p53f, -0x1p53f, -0x1p63f, 16777216.0f}));
  EXPECT_EQ(cast(y, DType::f64).raw<double>(1), -9007199254740996.0);  // ties to even
  HostTensor u = i64({1}, {0}, DType::u64);
  u.set_raw<std::uint64_t>(0, ~0ull);
  EXPECT_EQ(cast(u, DType::f32).load_f32(0), 0x1p64f);
  EXPECT_EQ(cast(i64({2}, {65519, 65520}), DType::f16).load_f32(1), inff());
  EXPECT_EQ(cast(i64({2}, {65519, 65520}), DType::f16).load_f32(0), 65504.0f);
}

TEST(Cast, IntToIntWrapsAndBoolIsZeroOrOne) {
  EXPECT_EQ(values_i64(cast(i64({3}, {300, -1, 128}), DType::u8)), (std::vector<std::int64_t>{44, 255, 128}));
  EXPECT_EQ(values_i64(cast(i64({2}, {-1, 65536}, DType::i32), DType::u16)), (std::vector<std::int64_t>{65535, 0}));
  EXPECT_EQ(values_i64(cast(i64({2}, {255, 128}, DType::u8), DType::i8)), (std::vector<std::int64_t>{-1, -128}));
  HostTensor b = cast(f32({5}, {0.0f, -0.0f, nanf(), 0.5f, -inff()}), DType::boolean);
  EXPECT_EQ(values_i64(b), (std::vector<std::int64_t>{0, 0, 1, 1, 1}));
  EXPECT_EQ(values_f32(cast(b, DType::f32)), (std::vector<float>{0, 0, 1, 1, 1}));
  EXPECT_EQ(values_i64(cast(i64({3}, {0, 7, -3}), DType::boolean)), (std::vector<std::int64_t>{0, 1, 1}));
}

TEST(Cast, FloatToFloat) {
  HostTensor x = f64({4}, {1.0 + 0x1p-24, 1.0 + 0x1p-24 + 0x1p-50, 1e300, -1e-300});
  EXPECT_EQ(values_f32(cast(x, DType::f32)), (std::vector<float>{1.0f, 1.0f + 0x1p-23f, inff(), -0.0f}));
  EXPECT_SAME_BITS(cast(x, DType::f32).load_f32(3), -0.0f);
  HostTensor h = cast(f32({2}, {nanf(), -65520.0f}), DType::f16);
  EXPECT_EQ(h.raw<std::uint16_t>(0), 0x7E00);
  EXPECT_EQ(h.raw<std::uint16_t>(1), 0xFC00);
  EXPECT_EQ(eval_codes("cast", {f32({32}, std::vector<float>(32, 1))}, {{"to", DType::q8_0}}),
            (std::vector<std::string>{"N0011"}));
  EXPECT_EQ(eval_codes("cast", {f32({1}, {1})}), (std::vector<std::string>{"N0011"}));  // `to` is required
}

}  // namespace
}  // namespace rung::ops::testing
