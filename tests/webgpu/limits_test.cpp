// Device limits: at the W3C default maxStorageBufferBindingSize (128 MiB, requested as a cap
// from SwiftShader's larger adapter limit), an elementwise op on a tensor just over 128 MiB
// must be split into windows of the output (two dispatches) and still give every element.
#include <gtest/gtest.h>

#include <cstdlib>

#include "backends/webgpu/backend.h"
#include "backends/webgpu/executor.h"
#include "backends/webgpu/wgsl/generator.h"
#include "ops/registry.h"

namespace rung::webgpu {
namespace {

constexpr std::uint64_t kW3CBinding = 128ull << 20;

TEST(WebGpuLimits, GeneratorSplitsAtTheW3CDefault) {
  const ops::OpDef* op = ops::op_registry().find("neg");
  std::vector<TensorDesc> in{{DType::f32, {kW3CBinding / 4 + 1024}}}, outs;
  DiagnosticSink d;
  auto p = program_for_types(*op, in, {}, DeviceCaps{}, outs, d);
  ASSERT_TRUE(p);
  ASSERT_EQ(p->steps.size(), 2u);
  for (const auto& st : p->steps) {
    for (const auto& b : st.bindings) EXPECT_LE(b.size, kW3CBinding);
    EXPECT_LE(st.groups.x, 65535u);
  }
  EXPECT_NE(p->steps[1].wgsl.find("split: the output exceeds maxStorageBufferBindingSize"), std::string::npos);
}

TEST(WebGpuLimits, SplitDispatchesGiveEveryElementOnTheDevice) {
  setenv("RUNG_WEBGPU_ADAPTER", std::getenv("RUNG_WEBGPU_ADAPTER") ? std::getenv("RUNG_WEBGPU_ADAPTER") : "swiftshader", 1);
  DiagnosticSink d;
  BackendOptions o;
  o.device.max_storage_binding = kW3CBinding;
  auto b = make_webgpu_backend(ops::Tier::prod, d, o);
  ASSERT_TRUE(b) << (d.empty() ? "" : d.all()[0].message);
  EXPECT_EQ(b->profile().facts.at("max_storage_binding"), std::to_string(kW3CBinding));
  const std::uint64_t n = kW3CBinding / 4 + 1024;  // 128 MiB + 4 KiB of f32
  ops::HostTensor x(DType::f32, {n});
  for (std::uint64_t i = 0; i < n; ++i) x.set_raw<float>(i, static_cast<float>(i % 1000003));
  auto y = b->run_op(*ops::op_registry().find("neg"), std::span(&x, 1), {}, d);
  ASSERT_TRUE(y) << (d.empty() ? "" : d.all()[0].message);
  for (std::uint64_t i : {std::uint64_t{0}, std::uint64_t{1}, n / 2, kW3CBinding / 4 - 1, kW3CBinding / 4, n - 1})
    EXPECT_EQ((*y)[0].raw<float>(i), -static_cast<float>(i % 1000003)) << "element " << i;
  std::uint64_t bad = 0;
  for (std::uint64_t i = 0; i < n; ++i) bad += (*y)[0].raw<float>(i) != -static_cast<float>(i % 1000003);
  EXPECT_EQ(bad, 0u);
}

}  // namespace
}  // namespace rung::webgpu
