// The FTZ/DAZ guard, tensor literals and the portable fma (.npy files: tests/runtime/npy_test.cpp).
#include <cmath>
#include <random>

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "op_test_util.h"
#include "ops/fp_env.h"
#include "ops/numerics/ieee.h"
#include "ops/tensor_literal.h"

namespace rung::ops::testing {
namespace {

#if defined(__x86_64__)
TEST(FpEnv, FlushToZeroRefusesTheExactTier) {
  EXPECT_TRUE(read_fp_env().ok());
  unsigned saved = _mm_getcsr();
  _mm_setcsr(saved | 0x8040u);  // what a careless library does: FTZ and DAZ on
  FpEnv e = read_fp_env();
  EXPECT_TRUE(e.flush_to_zero);
  EXPECT_TRUE(e.denormals_are_zero);
  DiagnosticSink d;
  EvalOptions debug;
  auto out = evaluate("add", std::vector<HostTensor>{f32({1}, {1e-45f}), f32({1}, {1e-45f})}, {}, d, debug);
  EvalOptions prod;
  prod.tier = Tier::prod;
  DiagnosticSink d2;
  auto out2 = evaluate("add", std::vector<HostTensor>{f32({1}, {1}), f32({1}, {2})}, {}, d2, prod);
  _mm_setcsr(saved);
  EXPECT_FALSE(out.has_value());
  EXPECT_TRUE(d.contains("N0001"));
  EXPECT_TRUE(out2.has_value());  // other tiers run (their tolerance class covers it)
  EXPECT_TRUE(read_fp_env().ok());
}
#endif

HostTensor lit(std::string_view s, DType d = DType::f32) {
  LiteralError e;
  auto t = parse_tensor_literal(s, e, d);
  if (!t) ADD_FAILURE() << s << ": " << e.message;
  return t ? *t : HostTensor();
}

std::string lit_error(std::string_view s, std::size_t* offset = nullptr) {
  LiteralError e;
  auto t = parse_tensor_literal(s, e);
  if (t) return "(parsed)";
  if (offset) *offset = e.offset;
  return e.message;
}

TEST(TensorLiteral, ShapesDtypesAndSpecials) {
  EXPECT_EQ(lit("[[1, 2], [3, 4]]").shape(), (Extents{2, 2}));
  EXPECT_EQ(lit("2.5").shape(), Extents{});
  EXPECT_EQ(lit("[]").shape(), (Extents{0}));
  EXPECT_EQ(lit("[[], []]").shape(), (Extents{2, 0}));
  HostTensor h = lit("f16:[nan, -inf, -0, 0x1p-24, 65520]");
  EXPECT_EQ(h.dtype(), DType::f16);
  EXPECT_EQ(h.raw<std::uint16_t>(0), 0x7E00);
  EXPECT_EQ(h.raw<std::uint16_t>(1), 0xFC00);
  EXPECT_EQ(h.raw<std::uint16_t>(2), 0x8000);
  EXPECT_EQ(h.raw<std::uint16_t>(3), 0x0001);
  EXPECT_EQ(h.raw<std::uint16_t>(4), 0x7C00);
  EXPECT_EQ(values_i64(lit("i8:[-128, 127]")), (std::vector<std::int64_t>{-128, 127}));
  EXPECT_EQ(values_i64(lit("bool:[true, 0]")), (std::vector<std::int64_t>{1, 0}));
  EXPECT_EQ(values_f32(lit("f32[2, 2]:1.5")), (std::vector<float>{1.5f, 1.5f, 1.5f, 1.5f}));
  EXPECT_EQ(values_i64(lit("i32[2, 2]:iota")), (std::vector<std::int64_t>{0, 1, 2, 3}));
  // f32 literals round once from the decimal: this string is just above a tie between floats.
  EXPECT_SAME_BITS(lit("1.00000005960464477539062500001").load_f32(0), 1.0f + 0x1p-23f);
}

TEST(TensorLiteral, ErrorsNameTheSpot) {
  std::size_t off = 0;
  EXPECT_EQ(lit_error("[1, [2]]", &off), "a list where a number was expected (ragged nesting)");
  EXPECT_EQ(off, 4u);
  EXPECT_NE(lit_error("[[1, 2], [3]]").find("ragged"), std::string::npos);
  EXPECT_NE(lit_error("[[1], 2]").find("ragged"), std::string::npos);
  EXPECT_EQ(lit_error("[1, 2", &off), "unclosed '['");
  EXPECT_EQ(lit_error("[1 2]", &off), "expected ',' or ']'");
  EXPECT_EQ(off, 3u);
  EXPECT_NE(lit_error("i8:[300]").find("does not fit in i8"), std::string::npos);
  EXPECT_NE(lit_error("u8:[-1]").find("non-negative"), std::string::npos);
  EXPECT_NE(lit_error("f33:[1]").find("unknown dtype"), std::string::npos);
  EXPECT_NE(lit_error("[abc]").find("not a number"), std::string::npos);
  EXPECT_NE(lit_error("f32[1000000, 1000000]:0").find("too large"), std::string::npos);
  EXPECT_NE(lit_error("q8_0:[1]").find("quantize"), std::string::npos);
  EXPECT_NE(lit_error("[1] x").find("unexpected text"), std::string::npos);
}

TEST(SoftFma, MatchesTheHardwareFmaIncludingMidpointCases) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<std::uint32_t> any;
  auto check = [](float a, float b, float c) {
    float hw = num::fma_f32(a, b, c), sw = num::fma_f32_soft(a, b, c);
    if (std::isnan(hw)) EXPECT_TRUE(std::isnan(sw));
    else EXPECT_SAME_BITS(sw, hw) << " fma(" << std::hexfloat << a << ", " << b << ", " << c << ")";
  };
  for (int i = 0; i < 200000; ++i) check(from_bits(any(rng)), from_bits(any(rng)), from_bits(any(rng)));
  // Products whose double sum lands on a float midpoint with a tiny lost remainder.
  for (int i = 0; i < 200000; ++i) {
    float a = 1.0f + static_cast<float>(any(rng) >> 9) * 0x1p-23f;
    float b = 1.0f + static_cast<float>(any(rng) >> 9) * 0x1p-23f;
    double p = static_cast<double>(a) * b;
    float c = static_cast<float>(-p);  // cancels the leading bits
    check(a, b, c);
    check(a, b, from_bits(bits(c) + 1));
    check(a, b, 0x1p-30f);
    check(a, b, -0x1p-70f);
  }
  check(1e-45f, 0.5f, 0.0f);
  check(0x1.000002p-126f, 0x1.fffffep-1f, -0x1p-149f);
}

}  // namespace
}  // namespace rung::ops::testing
