// `rung run --shadow`: a region whose device results differ from the reference is reported
// with the node that differs on its own, and the device's results are what the run gets.
#include <gtest/gtest.h>

#include "backends/reference/reference_backend.h"
#include "broken_backend.h"
#include "conformance/shadow.h"
#include "ir/graph/builder.h"
#include "runtime/backend_registry.h"

namespace rung::conformance {
namespace {

struct Fixture {
  Graph g;
  RegionId region = 0;
  std::vector<ops::HostTensor> args;
  // y = exp(x) * x + x: `add` is the node the broken backend gets wrong.
  Fixture() {
    GraphBuilder b(g);
    auto t = tensor(DType::f32, {Dim::fixed(4)});
    auto x = b.param("x", 0, t);
    auto e = b.op("exp", {x}, t);
    auto m = b.op("mul", {e, x}, t);
    auto y = b.op("add", {m, x}, t);
    region = b.region("f", {x}, {y});
    float xs[4] = {0.5f, -1.25f, 2.0f, 3.0f};
    args.push_back(ops::HostTensor::from_f32({4}, xs));
  }
};

// The reference with one wrong bit in `add` (broken_backend.h), but kernels for every op used here.
class OneBadOp final : public runtime::OpBackend {
 public:
  ops::Backend id() const override { return ops::Backend::cpu; }
  ops::Tier tier() const override { return ops::Tier::debug; }
  runtime::DeviceProfile profile() const override { return {"cpu", "shadow test backend", {}}; }
  std::string kernel_hash(const ops::OpDef& op) const override { return "bad:" + op.name; }
  std::optional<std::vector<ops::HostTensor>> run_op(const ops::OpDef& op, std::span<const ops::HostTensor> inputs,
                                                     const AttrMap& attrs, DiagnosticSink& diags) override {
    return broken_.run_op(op, inputs, attrs, diags);
  }

 private:
  testing::BrokenBackend broken_;
};

TEST(Shadow, NamesTheNodeThatDiffersAndKeepsTheDeviceResults) {
  Fixture f;
  OneBadOp device;
  auto inner = runtime::as_compute_backend(device);
  ShadowComputeBackend shadow(*inner, device, ops::Tier::debug);
  DiagnosticSink diags;
  auto got = shadow.run(f.g, f.region, f.args, diags);
  ASSERT_TRUE(got);
  DiagnosticSink d2;
  auto want = reference::run_region(f.g, f.region, f.args, d2);
  ASSERT_TRUE(want);
  // The run keeps the device's (wrong) bits: the shadow diagnoses, it does not repair.
  EXPECT_NE((*got)[0].bytes()[0], (*want)[0].bytes()[0]);
  EXPECT_EQ(shadow.summary().regions_checked, 1u);
  EXPECT_EQ(shadow.summary().regions_differing, 1u);
  ASSERT_EQ(shadow.summary().findings.size(), 1u);
  const auto& finding = shadow.summary().findings[0];
  ASSERT_EQ(finding.nodes.size(), 1u);
  EXPECT_EQ(finding.nodes[0].rfind("add(f32[4], f32[4])", 0), 0u) << finding.nodes[0];
  ASSERT_FALSE(diags.empty());
  EXPECT_EQ(diags.all().front().code, "A0030");
  EXPECT_NE(shadow.summary_line().find("1 differ"), std::string::npos) << shadow.summary_line();
}

TEST(Shadow, AgreeingBackendReportsNothing) {
  Fixture f;
  auto device = reference::make_backend(ops::Tier::debug);
  auto inner = runtime::as_compute_backend(*device);
  ShadowComputeBackend shadow(*inner, *device, ops::Tier::debug);
  DiagnosticSink diags;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(shadow.run(f.g, f.region, f.args, diags));
  EXPECT_TRUE(diags.empty());
  EXPECT_EQ(shadow.summary().regions_checked, 3u);
  EXPECT_EQ(shadow.summary().regions_differing, 0u);
  EXPECT_NE(shadow.summary_line().find("all agree"), std::string::npos);
}

// A difference no single node explains (the backend's own region path) is reported as such.
class WrongRegionPath final : public runtime::ComputeBackend {
 public:
  explicit WrongRegionPath(runtime::OpBackend& b) : b_(b) {}
  std::string_view name() const override { return "fused-test"; }
  std::optional<std::vector<ops::HostTensor>> run(const Graph& g, RegionId r, std::span<const ops::HostTensor> args,
                                                  DiagnosticSink& d) override {
    auto out = b_.run_region(g, r, args, d);
    if (out) (*out)[0].bytes()[0] ^= 1;
    return out;
  }

 private:
  runtime::OpBackend& b_;
};

TEST(Shadow, RegionPathDifferenceWithoutADifferingNode) {
  Fixture f;
  auto device = reference::make_backend(ops::Tier::debug);
  WrongRegionPath inner(*device);
  ShadowComputeBackend shadow(inner, *device, ops::Tier::debug);
  DiagnosticSink diags;
  ASSERT_TRUE(shadow.run(f.g, f.region, f.args, diags));
  ASSERT_EQ(shadow.summary().findings.size(), 1u);
  EXPECT_TRUE(shadow.summary().findings[0].nodes.empty());
  ASSERT_FALSE(diags.empty());
  bool says_region_path = false;
  for (const auto& n : diags.all().front().notes) says_region_path |= n.find("runs the region as a whole") != std::string::npos;
  EXPECT_TRUE(says_region_path);
}

}  // namespace
}  // namespace rung::conformance
