// Backend-declared agreement: a backend that is not exact-capable (as WebGPU) is judged by
// each op's prod class with tier prod's thresholds, in every tier; a dtype or value its
// device cannot hold is "not supported on this device", neither pass nor fail; a device that
// flushes subnormals is compared with subnormals read as zero, and only when it declares so.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "backends/reference/reference_backend.h"
#include "conformance/exec_policy.h"
#include "conformance/flush.h"
#include "conformance/receipt.h"
#include "conformance/run_record.h"
#include "conformance/suite.h"
#include "ops/fp_env.h"
#include "runtime/backend_registry.h"

namespace rung::conformance {
namespace {

// The reference, with what a WGSL device does: `exp` and `add` 1 ulp off (toward zero) on nonzero
// results, subnormal operands and results flushed to zero (when `flush` is on), no f64, and
// 64-bit integers beyond 32 bits refused with A0010. `exact` makes it claim exact capability.
class ConvergentBackend final : public runtime::OpBackend {
 public:
  bool exact = false, flush = true, declare_flush = true;
  ops::Backend id() const override { return ops::Backend::webgpu; }
  ops::Tier tier() const override { return ops::Tier::debug; }
  runtime::DeviceProfile profile() const override { return {"webgpu", "convergent test device", {{"purpose", "agreement test"}}}; }
  bool exact_capable() const override { return exact; }
  bool flushes_subnormals() const override { return declare_flush; }
  std::string unsupported_dtype(DType t) const override { return t == DType::f64 ? "A0010 f64: no binary64 here" : ""; }
  bool is_capability_refusal(std::string_view code) const override { return code == "A0010"; }
  const ops::KernelEntry* kernel(const ops::OpDef& op, DType dtype) const override {
    if (dtype == DType::f64) return nullptr;
    const ops::KernelEntry* k = ops::op_registry().kernel(op.id, ops::Backend::reference);
    return (k && (k->dtypes.contains(dtype) || k->dtypes.empty())) ? k : nullptr;
  }
  std::string kernel_hash(const ops::OpDef& op) const override { return "convergent:" + op.name; }
  std::optional<std::vector<ops::HostTensor>> run_op(const ops::OpDef& op, std::span<const ops::HostTensor> inputs,
                                                     const AttrMap& attrs, DiagnosticSink& diags) override {
    std::vector<ops::HostTensor> in;
    for (const auto& t : inputs) {
      if (t.dtype() == DType::i64 || t.dtype() == DType::u64)
        for (std::uint64_t i = 0; i < t.numel(); ++i) {
          bool fits = t.dtype() == DType::u64 ? t.load_u64(i) <= 0xffffffffull
                                              : t.load_i64(i) >= INT32_MIN && t.load_i64(i) <= INT32_MAX;
          if (!fits) {
            diags.error("A0010", "a 64-bit value beyond 32 bits");
            return std::nullopt;
          }
        }
      in.push_back(flush ? flush_subnormals(t) : t);
    }
    auto out = ops::evaluate(op, in, attrs, diags, {ops::Tier::prod});
    if (!out) return out;
    for (auto& y : *out) {
      if (flush) y = flush_subnormals(y);
      if ((op.name == "exp" || op.name == "add") && y.dtype() == DType::f32)
        for (std::uint64_t i = 0; i < y.numel(); ++i) {
          float v = y.load_f32(i);
          if (std::isfinite(v) && v != 0) y.store_f32(i, std::nextafter(v, 0.0f));
        }
    }
    return out;
  }
};

const RowResult* row(const OpReport& r, std::string_view dtype) {
  for (const auto& x : r.rows)
    if (x.dtype == dtype) return &x;
  return nullptr;
}

const ops::OpDef& op(const char* name) { return *ops::op_registry().find(name); }

TEST(Agreement, ConvergentClassIsProdsAndNeverExactForFloatArithmetic) {
  EXPECT_EQ(runtime::convergent_class(op("exp")), op("exp").tolerance.prod);
  EXPECT_EQ(runtime::convergent_class(op("matmul")), ops::TolClass::default_);
  EXPECT_EQ(runtime::convergent_class(op("add")), ops::TolClass::tight);  // exact in prod, arithmetic on floats
  EXPECT_EQ(runtime::convergent_class(op("reshape")), ops::TolClass::exact);  // bit copies stay exact
  EXPECT_EQ(runtime::convergent_class(op("eq")), ops::TolClass::exact);       // bool results stay exact
  EXPECT_EQ(runtime::convergent_class(op("argmax")), ops::TolClass::exact);   // integer results stay exact
}

TEST(Agreement, NotExactCapableIsJudgedByProdClassInTierDebug) {
  ConvergentBackend b;
  ConformOptions o;
  o.cases = 4;
  o.tier = ops::Tier::debug;
  OpReport r = conform_op(op("exp"), b, o);
  EXPECT_EQ(r.cls, op("exp").tolerance.prod);
  EXPECT_EQ(r.judged_tier, ops::Tier::prod);
  EXPECT_NE(r.agreement.find("backend-declared"), std::string::npos) << r.agreement;
  EXPECT_EQ(r.thresholds, ops::resolve_tolerance(r.cls, ops::Tier::prod, DType::f32).to_string());
  EXPECT_TRUE(r.pass()) << r.to_json().dump(1);
  ASSERT_NE(row(r, "f32"), nullptr);
  EXPECT_GT(row(r, "f32")->differing, 0u);  // the 1-ulp differences were there and were judged
  // A dtype the device cannot hold is a row "not supported on this device", not a failure.
  OpReport sq = conform_op(op("sqrt"), b, o);
  ASSERT_NE(row(sq, "f64"), nullptr);
  EXPECT_EQ(row(sq, "f64")->verdict, RowVerdict::unsupported);
  EXPECT_NE(row(sq, "f64")->unsupported.find("A0010"), std::string::npos);
  EXPECT_TRUE(sq.pass()) << sq.to_json().dump(1);

  // The same results from a backend claiming exact capability fail exp's exact debug class.
  b.exact = true;
  OpReport strict = conform_op(op("exp"), b, o);
  EXPECT_EQ(strict.cls, ops::TolClass::exact);
  EXPECT_FALSE(strict.pass());
}

TEST(Agreement, FloatArithmeticDeclaredExactIsTightNotLooser) {
  ConvergentBackend b;
  ConformOptions o;
  o.cases = 4;
  OpReport r = conform_op(op("add"), b, o);
  EXPECT_EQ(r.cls, ops::TolClass::tight);
  EXPECT_TRUE(r.pass()) << r.to_json().dump(1);  // 1 ulp is within tight
  OpReport copy = conform_op(op("reshape"), b, o);
  EXPECT_EQ(copy.cls, ops::TolClass::exact);
}

TEST(Agreement, ValuesTheDeviceCannotHoldAreUnsupportedNotWrong) {
  ConvergentBackend b;
  ConformOptions o;
  o.cases = 3;  // case 1 and 2 draw INT64_MIN / INT64_MAX among the integers
  OpReport r = conform_op(op("concat"), b, o);
  const RowResult* i64 = row(r, "i64");
  ASSERT_NE(i64, nullptr);
  EXPECT_GT(i64->unsupported_cases, 0u);
  EXPECT_NE(i64->verdict, RowVerdict::fail) << i64->failure;
  EXPECT_NE(i64->unsupported.find("A0010"), std::string::npos);
  EXPECT_TRUE(r.pass()) << r.to_json().dump(1);
  std::string t = suite_table_rows(r);
  EXPECT_NE(t.find("not supported on this device"), std::string::npos) << t;
}

TEST(Agreement, FlushedSubnormalsPassOnlyWhenTheBackendDeclaresFlushing) {
  ConvergentBackend b;
  ConformOptions o;
  o.cases = 4;  // case 3 draws from the wide exponent range: subnormals in and out
  OpReport declared = conform_op(op("mul"), b, o);
  EXPECT_TRUE(declared.pass()) << declared.to_json().dump(1);
  std::size_t flushed = 0;
  for (const auto& x : declared.rows) flushed += x.flushed_cases;
  EXPECT_GT(flushed, 0u);  // the rows say how many cases needed the reading
  b.declare_flush = false;
  OpReport undeclared = conform_op(op("mul"), b, o);
  EXPECT_FALSE(undeclared.pass());
}

// A device that flushes at every operation: the reference evaluated with FTZ + DAZ (what the
// harness's third reading assumes a flushing device may do). adam_update's bias correction
// can turn a subnormal intermediate into NaN (sqrt of a negative subnormal) or a finite
// value, which no comparison of results alone can absorb (found on SwiftShader, 2026-11-30).
class FlushEverywhereBackend final : public runtime::OpBackend {
 public:
  ops::Backend id() const override { return ops::Backend::webgpu; }
  ops::Tier tier() const override { return ops::Tier::prod; }
  runtime::DeviceProfile profile() const override { return {"webgpu", "flushing test device", {}}; }
  bool exact_capable() const override { return false; }
  bool flushes_subnormals() const override { return declare_flush; }
  const ops::KernelEntry* kernel(const ops::OpDef& o, DType dtype) const override {
    const ops::KernelEntry* k = ops::op_registry().kernel(o.id, ops::Backend::reference);
    return (k && (k->dtypes.contains(dtype) || k->dtypes.empty())) ? k : nullptr;
  }
  std::string kernel_hash(const ops::OpDef& o) const override { return "ftz:" + o.name; }
  std::optional<std::vector<ops::HostTensor>> run_op(const ops::OpDef& o, std::span<const ops::HostTensor> inputs,
                                                     const AttrMap& attrs, DiagnosticSink& diags) override {
    ops::ScopedFlushSubnormals ftz;
    return ops::evaluate(o, inputs, attrs, diags, {ops::Tier::prod});
  }
  bool declare_flush = true;
};

TEST(Agreement, IntermediatesFlushedAtEveryOperationPassOnAFlushingDevice) {
  if (!ops::ScopedFlushSubnormals().active()) GTEST_SKIP() << "no flush-to-zero control on this architecture";
  FlushEverywhereBackend b;
  ConformOptions o;
  o.cases = 16;
  o.tier = ops::Tier::prod;
  OpReport r = conform_op(op("adam_update"), b, o);
  EXPECT_TRUE(r.pass()) << r.to_json().dump(1);
  // Only a device that declares flushing gets that reading.
  b.declare_flush = false;
  EXPECT_FALSE(conform_op(op("adam_update"), b, o).pass());
}

TEST(Agreement, ReceiptNamesClassTierAndThresholds) {
  ConvergentBackend b;
  ConformOptions o;
  o.cases = 2;
  OpReport r = conform_op(op("exp"), b, o);
  ConformanceReceipt c = receipt_for(r, op("exp"), b.profile(), o);
  std::string err;
  auto back = ConformanceReceipt::decode(c.encode(), err);
  ASSERT_TRUE(back) << err;
  EXPECT_EQ(back->class_tier, ops::Tier::prod);
  EXPECT_EQ(back->thresholds, r.thresholds);
  EXPECT_EQ(back->agreement, r.agreement);
  EXPECT_EQ(back->id(), c.id());
  // A receipt of the first format still decodes (no class tier, thresholds or agreement).
  c.format = 1;
  auto v1 = ConformanceReceipt::decode(c.encode(), err);
  ASSERT_TRUE(v1) << err;
  EXPECT_EQ(v1->format, 1);
  EXPECT_TRUE(v1->thresholds.empty());
}

TEST(Agreement, RunOnABackendThatIsNotExactCapableIsConvergent) {
  RunRecord r;
  r.tier = "debug";
  r.tolerance = "exact";
  set_reproducibility(r, true);
  EXPECT_TRUE(r.replayable);
  set_reproducibility(r, false);
  EXPECT_FALSE(r.replayable);
  EXPECT_EQ(r.convergence_class, "default");
  r.tolerance = "tight";
  set_reproducibility(r, false);
  EXPECT_EQ(r.convergence_class, "tight");
}

TEST(Agreement, CapabilityGapGoesToTheDeclaredFallback) {
  auto ref = reference::make_backend(ops::Tier::debug);
  Placement host{"cpu", ref.get(), false, 0};
  Placement gpu{"webgpu", ref.get(), true, 1 << 20};
  DiagnosticSink d;
  auto moved = place_region("region r", 5000, 20000, gpu, &host, PolicyConfig{}, d, "f64 (A0010 no binary64)");
  ASSERT_TRUE(moved);
  EXPECT_EQ(moved->backend, "cpu");
  EXPECT_NE(moved->reason.find("capability"), std::string::npos) << moved->reason;
  EXPECT_NE(moved->reason.find("declared fallback"), std::string::npos) << moved->reason;
  EXPECT_FALSE(place_region("region r", 5000, 20000, gpu, nullptr, PolicyConfig{}, d, "f64 (A0010 no binary64)"));
  EXPECT_TRUE(d.contains("Q0012"));
  auto stays = place_region("region r", 5000, 20000, gpu, &host, PolicyConfig{}, d);
  ASSERT_TRUE(stays);
  EXPECT_EQ(stays->backend, "webgpu");
}

}  // namespace
}  // namespace rung::conformance
