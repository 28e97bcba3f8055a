// Receipts on WebGPU are bound to the adapter profile: a receipt minted on SwiftShader is used
// by a run on the same adapter, and not by one whose adapter name, vendor, driver or API
// backend differs (each is in the profile hash), which must conform again.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "adapter_settings.h"
#include "backends/webgpu/backend.h"
#include "conformance/exec_policy.h"

namespace rung::webgpu {
namespace {

namespace fs = std::filesystem;

runtime::OpBackend* backend() {
  static std::unique_ptr<runtime::OpBackend> b = [] {
    DiagnosticSink d;
    auto be = make_webgpu_backend(ops::Tier::prod, d, test_adapter_settings());
    for (const auto& x : d.all()) ADD_FAILURE() << x.code << ": " << x.message;
    return be;
  }();
  return b.get();
}

// The WebGPU backend as seen from another adapter: same kernels, one profile fact changed.
class OtherAdapter final : public runtime::OpBackend {
 public:
  OtherAdapter(runtime::OpBackend& b, std::string key, std::string value) : b_(b), key_(std::move(key)), value_(std::move(value)) {}
  ops::Backend id() const override { return b_.id(); }
  ops::Tier tier() const override { return b_.tier(); }
  runtime::DeviceProfile profile() const override {
    runtime::DeviceProfile p = b_.profile();
    if (key_ == "device") p.device = value_;
    else p.facts[key_] = value_;
    return p;
  }
  bool exact_capable() const override { return b_.exact_capable(); }
  ops::TolClass agreement_class(const ops::OpDef& op, ops::Tier t) const override { return b_.agreement_class(op, t); }
  const ops::KernelEntry* kernel(const ops::OpDef& op, DType t) const override { return b_.kernel(op, t); }
  std::string kernel_hash(const ops::OpDef& op) const override { return b_.kernel_hash(op); }
  std::optional<std::vector<ops::HostTensor>> run_op(const ops::OpDef& op, std::span<const ops::HostTensor> in, const AttrMap& a,
                                                     DiagnosticSink& d) override {
    return b_.run_op(op, in, a, d);
  }

 private:
  runtime::OpBackend& b_;
  std::string key_, value_;
};

TEST(WebGpuReceipts, BoundToTheAdapterProfile) {
  runtime::OpBackend* b = backend();
  ASSERT_NE(b, nullptr);
  runtime::DeviceProfile p = b->profile();
  for (const char* fact : {"api_backend", "vendor_id", "device_id", "description", "adapter_type"})
    EXPECT_TRUE(p.facts.count(fact)) << fact;  // adapter, vendor, driver, backend: all hashed
  fs::path dir = fs::temp_directory_path() / ("rung_webgpu_receipts_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  conformance::Store store(dir.string());
  std::vector<const ops::OpDef*> ops = {ops::op_registry().find("neg")};
  conformance::ConformOptions o;
  o.cases = 2;
  DiagnosticSink d;
  // No receipt yet: require refuses; conform mints one on this adapter.
  EXPECT_FALSE(conformance::check_receipts(ops, *b, conformance::ReceiptMode::require, store, o, d));
  EXPECT_TRUE(d.contains("Q0010"));
  DiagnosticSink d2;
  auto minted = conformance::check_receipts(ops, *b, conformance::ReceiptMode::conform, store, o, d2);
  ASSERT_TRUE(minted) << (d2.all().empty() ? "" : d2.all().front().message);
  EXPECT_EQ((*minted)[0].status, "conformed");
  DiagnosticSink d3;
  auto reused = conformance::check_receipts(ops, *b, conformance::ReceiptMode::require, store, o, d3);
  ASSERT_TRUE(reused);
  EXPECT_EQ((*reused)[0].status, "receipt");
  // Another adapter, vendor, driver or API backend does not reuse it.
  for (auto [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"device", "NVIDIA H200"}, {"vendor_id", "4318"}, {"description", "another driver 1.0"}, {"api_backend", "metal"}}) {
    OtherAdapter other(*b, key, value);
    DiagnosticSink dx;
    EXPECT_FALSE(conformance::check_receipts(ops, other, conformance::ReceiptMode::require, store, o, dx)) << key;
    EXPECT_TRUE(dx.contains("Q0010")) << key;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rung::webgpu
