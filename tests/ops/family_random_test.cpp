// Random family: Philox4x32-10 known answers (Salmon et al., SC'11 / Random123), the stream
// layout, independence from partitioning, and distribution sanity.
#include <cmath>

#include "op_test_util.h"
#include "ops/numerics/half.h"
#include "ops/numerics/philox.h"

namespace rung::ops::testing {
namespace {

Shape shp(std::uint64_t n) { return Shape{Dim::fixed(n)}; }

AttrMap draw(std::uint64_t n, std::int64_t seed, std::int64_t position = 0, std::int64_t offset = 0) {
  return {{"shape", shp(n)}, {"seed", seed}, {"position", position}, {"offset", offset}};
}

std::vector<std::uint32_t> words(const HostTensor& t) {
  std::vector<std::uint32_t> v;
  for (std::uint64_t i = 0; i < t.numel(); ++i) v.push_back(t.raw<std::uint32_t>(i));
  return v;
}

// The published Philox4x32-10 known-answer vectors (counter, key -> output).
TEST(Philox, KnownAnswerVectors) {
  struct Kat {
    num::Philox4x32 ctr;
    std::uint32_t k0, k1;
    std::uint32_t out[4];
  };
  const Kat kats[] = {
      {{{0, 0, 0, 0}}, 0, 0, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}}, 0xffffffff, 0xffffffff,
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}}, 0xa4093822, 0x299f31d0,
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const Kat& k : kats) {
    num::Philox4x32 o = num::philox4x32_10(k.ctr, k.k0, k.k1);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(o.v[i], k.out[i]) << std::hex << k.ctr.v[0] << " lane " << i;
  }
}

TEST(Philox, StreamLayoutThroughTheOp) {
  // Words 0..3 of stream (seed 0, offset 0) are the block for counter (0, 0, 0, 0).
  HostTensor y = eval1("random_bits", {}, draw(6, 0));
  ASSERT_EQ(y.dtype(), DType::u32);
  auto w = words(y);
  EXPECT_EQ(w[0], 0x6627e8d5u);
  EXPECT_EQ(w[3], 0x9b00dbd8u);
  // Word 5 is lane 1 of counter (1, 0, 0, 0); the offset fills counter words 2 and 3 and
  // the seed is the key (low word first).
  EXPECT_EQ(w[5], num::philox4x32_10({{1, 0, 0, 0}}, 0, 0).v[1]);
  std::int64_t seed = static_cast<std::int64_t>(0x299f31d0a4093822ull);
  std::int64_t offset = static_cast<std::int64_t>(0x0370734413198a2eull);
  HostTensor z = eval1("random_bits", {}, draw(2, seed, 4 * 0x243f6a88ll + 2, offset));
  num::Philox4x32 blk = num::philox4x32_10({{0x243f6a88, 0, 0x13198a2e, 0x03707344}}, 0xa4093822, 0x299f31d0);
  EXPECT_EQ(words(z), (std::vector<std::uint32_t>{blk.v[2], blk.v[3]}));
}

TEST(Philox, SeedsAndOffsetsSelectDifferentStreams) {
  auto a = words(eval1("random_bits", {}, draw(8, 1)));
  EXPECT_NE(a, words(eval1("random_bits", {}, draw(8, 2))));
  EXPECT_NE(a, words(eval1("random_bits", {}, draw(8, 1, 0, 1))));
  EXPECT_EQ(a, words(eval1("random_bits", {}, draw(8, 1))));
}

// Evaluating the output in pieces (each piece at its stream position) gives the same bits.
void expect_partition_independent(std::string_view op, AttrMap extra) {
  const std::uint64_t n = 1001;
  AttrMap whole = draw(n, 12345, 0, 7);
  for (auto& [k, v] : extra) whole.insert_or_assign(k, v);
  HostTensor all = eval1(op, {}, whole);
  for (std::uint64_t cut : {1ull, 301ull, 500ull, 1000ull}) {
    AttrMap a = whole, b = whole;
    a.insert_or_assign("shape", shp(cut));
    b.insert_or_assign("shape", shp(n - cut));
    b.insert_or_assign("position", static_cast<std::int64_t>(cut));
    HostTensor pa = eval1(op, {}, a), pb = eval1(op, {}, b);
    std::size_t w = dtype_info(all.dtype()).block_bytes;
    ASSERT_EQ(pa.bytes().size() + pb.bytes().size(), all.bytes().size());
    EXPECT_TRUE(std::equal(pa.bytes().begin(), pa.bytes().end(), all.bytes().begin())) << op << " cut " << cut;
    EXPECT_TRUE(std::equal(pb.bytes().begin(), pb.bytes().end(), all.bytes().begin() + static_cast<std::ptrdiff_t>(cut * w)))
        << op << " cut " << cut;
  }
}

TEST(Random, StreamIsIndependentOfPartitioning) {
  expect_partition_independent("random_bits", {});
  expect_partition_independent("random_uniform", {{"low", -2.0}, {"high", 3.0}});
  expect_partition_independent("random_normal", {{"mean", 1.0}, {"std", 0.5}});  // cuts split Box-Muller pairs
  expect_partition_independent("random_normal", {{"dtype", DType::bf16}});
}

TEST(Random, UniformIsTheTopBitsOfTheWords) {
  AttrMap a = draw(64, 99);
  auto w = words(eval1("random_bits", {}, a));
  HostTensor u = eval1("random_uniform", {}, a);
  for (std::size_t i = 0; i < w.size(); ++i) EXPECT_EQ(u.load_f32(i), static_cast<float>(w[i] >> 8) / 16777216.0f);
  a.insert_or_assign("low", AttrValue(-1.0));
  a.insert_or_assign("high", AttrValue(1.0));
  HostTensor v = eval1("random_uniform", {}, a);
  for (std::size_t i = 0; i < w.size(); ++i) EXPECT_SAME_BITS(v.load_f32(i), -1.0f + 2.0f * u.load_f32(i));
}

TEST(Random, NormalIsBoxMullerOnWordPairs) {
  AttrMap a = draw(4, 5);
  auto w = words(eval1("random_bits", {}, a));
  HostTensor z = eval1("random_normal", {}, a);
  for (int k = 0; k < 2; ++k) {
    double u1 = ((w[2 * k] >> 8) + 1) / 16777216.0, u2 = (w[2 * k + 1] >> 8) / 16777216.0;
    double r = std::sqrt(-2.0 * std::log(u1)), t = 2.0 * M_PI * u2;
    // rung's f32 steps vs a binary64 evaluation: a few f32 ulps apart at most.
    EXPECT_NEAR(z.load_f32(2 * k), r * std::cos(t), 4e-6 * std::max(1.0, std::fabs(r))) << k;
    EXPECT_NEAR(z.load_f32(2 * k + 1), r * std::sin(t), 4e-6 * std::max(1.0, std::fabs(r))) << k;
  }
}

TEST(Random, DistributionMoments) {
  const std::uint64_t n = 200000;
  HostTensor u = eval1("random_uniform", {}, draw(n, 2024));
  HostTensor z = eval1("random_normal", {}, draw(n, 2024));
  double su = 0, sz = 0, szz = 0;
  std::uint64_t within1 = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    float x = u.load_f32(i), g = z.load_f32(i);
    ASSERT_TRUE(x >= 0.0f && x < 1.0f);
    ASSERT_LT(std::fabs(g), 5.8f);
    su += x;
    sz += g;
    szz += static_cast<double>(g) * g;
    within1 += std::fabs(g) < 1.0f;
  }
  // Standard errors: uniform mean 0.00065, normal mean 0.0022, variance 0.0032, P(|z|<1) 0.001.
  EXPECT_NEAR(su / n, 0.5, 0.004);
  EXPECT_NEAR(sz / n, 0.0, 0.012);
  EXPECT_NEAR(szz / n, 1.0, 0.016);
  EXPECT_NEAR(static_cast<double>(within1) / n, 0.682689, 0.006);
}

TEST(Random, HalfPrecisionRoundsTheF32Value) {
  AttrMap a = draw(32, 77);
  HostTensor f = eval1("random_normal", {}, a);
  a.insert_or_assign("dtype", AttrValue(DType::f16));
  HostTensor h = eval1("random_normal", {}, a);
  ASSERT_EQ(h.dtype(), DType::f16);
  for (std::uint64_t i = 0; i < 32; ++i) EXPECT_EQ(h.raw<std::uint16_t>(i), num::f16_from_f32(f.load_f32(i)));
}

TEST(Random, BadAttributesAreDiagnostics) {
  EXPECT_EQ(eval_codes("random_uniform", {}, {{"shape", shp(2)}, {"seed", 1}, {"dtype", DType::i32}}),
            std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval_codes("random_uniform", {}, {{"shape", shp(2)}, {"seed", 1}, {"position", -1}}),
            std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval_codes("random_normal", {}, {{"shape", Shape{Dim::symbol("N")}}, {"seed", 1}}),
            std::vector<std::string>{"N0012"});
  EXPECT_EQ(eval_codes("random_bits", {}, {{"shape", shp(2)}}), std::vector<std::string>{"N0011"});  // no seed
}

}  // namespace
}  // namespace rung::ops::testing
