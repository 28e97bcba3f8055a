// The tolerance table and the comparator's verdicts.
#include "op_test_util.h"
#include "ops/compare.h"

namespace rung::ops::testing {
namespace {

TEST(Tolerance, ExactIsBitwiseEverywhereAndIntegersAreAlwaysExact) {
  for (Tier t : kAllTiers) {
    for (DType d : {DType::f32, DType::f16, DType::bf16, DType::f64}) EXPECT_TRUE(resolve_tolerance(TolClass::exact, t, d).bitwise);
    for (TolClass c : kAllClasses) EXPECT_TRUE(resolve_tolerance(c, t, DType::i32).bitwise);
  }
}

TEST(Tolerance, ClassesAndTiersOnlyLoosen) {
  for (DType d : {DType::f32, DType::f16, DType::bf16, DType::f64})
    for (Tier t : kAllTiers) {
      Thresholds a = resolve_tolerance(TolClass::tight, t, d), b = resolve_tolerance(TolClass::default_, t, d),
                 c = resolve_tolerance(TolClass::loose, t, d);
      EXPECT_FALSE(a.bitwise);
      EXPECT_LE(a.max_ulp, b.max_ulp);
      EXPECT_LE(b.max_ulp, c.max_ulp);
      EXPECT_LE(a.rtol, b.rtol);
      EXPECT_LE(b.rtol, c.rtol);
      EXPECT_LE(a.normwise, b.normwise);
      EXPECT_LE(b.normwise, c.normwise);
    }
  for (DType d : {DType::f32, DType::f16, DType::bf16, DType::f64})
    for (TolClass c : {TolClass::tight, TolClass::default_, TolClass::loose}) {
      EXPECT_LE(resolve_tolerance(c, Tier::debug, d).max_ulp, resolve_tolerance(c, Tier::prod, d).max_ulp);
      EXPECT_LE(resolve_tolerance(c, Tier::prod, d).normwise, resolve_tolerance(c, Tier::fast, d).normwise);
    }
  EXPECT_EQ(tolerance_table().size(), 3u * 4u * 4u);
}

TEST(Compare, ExactDistinguishesSignedZerosButNotNanPayloads) {
  HostTensor a = f32({3}, {0.0f, 1.0f, nanf()}), b = f32({3}, {-0.0f, 1.0f, nanf()});
  Verdict v = compare(a, b, TolClass::exact, Tier::debug);
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.failures, 1u);
  EXPECT_EQ(v.worst_index, 0u);
  EXPECT_EQ(v.max_ulp, 0);  // ±0 are 0 ulp apart, but not the same bits
  EXPECT_TRUE(compare(a, a, TolClass::exact, Tier::debug).pass);
  EXPECT_NE(v.summary().find("bit-exact"), std::string::npos);
}

TEST(Compare, TightCountsUlpsAndNamesItsThresholds) {
  float x = 1.5f;
  HostTensor r = f32({2}, {x, 2.0f});
  HostTensor a = f32({2}, {from_bits(bits(x) + 2), 2.0f});
  Verdict v = compare(a, r, TolClass::tight, Tier::debug);
  EXPECT_TRUE(v.pass) << v.summary();
  EXPECT_EQ(v.max_ulp, 2);
  EXPECT_EQ(v.thresholds.max_ulp, 2);
  HostTensor worse = f32({2}, {from_bits(bits(x) + 3), 2.0f});
  Verdict w = compare(worse, r, TolClass::tight, Tier::debug);
  EXPECT_FALSE(w.pass);
  EXPECT_EQ(w.worst_index, 0u);
  EXPECT_TRUE(compare(worse, r, TolClass::tight, Tier::prod).pass);  // prod allows 4
  auto j = w.to_json();
  EXPECT_EQ(j["class"], "tight");
  EXPECT_EQ(j["thresholds"]["max_ulp"], 2);
}

TEST(Compare, NanAndInfMismatchesAndNormwise) {
  HostTensor r = f32({4}, {1, inff(), 3, 4});
  HostTensor a = f32({4}, {nanf(), -inff(), 3, 4});
  Verdict v = compare(a, r, TolClass::loose, Tier::fast);
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.nan_mismatches, 1u);
  EXPECT_EQ(v.inf_mismatches, 1u);
  HostTensor close = f32({2}, {1.0f, 1000.0f}), ref = f32({2}, {1.0005f, 1000.0f});
  Verdict d = compare(close, ref, TolClass::default_, Tier::debug);  // elementwise fails (5e-4 > 1e-5 rel)
  EXPECT_FALSE(d.pass);
  Verdict l = compare(close, ref, TolClass::loose, Tier::debug);  // 5e-4 <= 1e-4 + 1e-3 * 1.0005
  EXPECT_TRUE(l.pass) << l.summary();
  EXPECT_NEAR(l.normwise, 5e-4 / 1000.0, 1e-7);
}

TEST(Compare, ShapeDtypeAndIntegers) {
  EXPECT_FALSE(compare(f32({2}, {1, 2}), f32({3}, {1, 2, 3}), TolClass::loose, Tier::fast).pass);
  EXPECT_FALSE(compare(i64({2}, {1, 2}), i64({2}, {1, 3}), TolClass::loose, Tier::fast).pass);
  EXPECT_TRUE(compare(i64({2}, {1, 2}), i64({2}, {1, 2}), TolClass::exact, Tier::debug).pass);
  EXPECT_EQ(ulp_distance(DType::f32, 1.0, -1.0), 2.0 * 0x3F800000);
  EXPECT_EQ(ulp_distance(DType::f16, 1.0, 1.0 + 0x1p-10), 1.0);
}

}  // namespace
}  // namespace rung::ops::testing
