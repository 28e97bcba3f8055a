// Device limits: at the W3C default maxStorageBufferBindingSize (128 MiB, requested as a cap
// from SwiftShader's larger adapter limit), an elementwise op on a tensor just over 128 MiB
// must be split into windows of the output (two dispatches) and still give every element.
#include <gtest/gtest.h>

#include <bit>
#include <cstdlib>

#include "adapter_settings.h"
#include "backends/webgpu/backend.h"
#include "backends/webgpu/executor.h"
#include "backends/webgpu/wgsl/generator.h"
#include "ops/compare.h"
#include "ops/evaluate.h"
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
  DiagnosticSink d;
  BackendOptions o;
  o.device.max_storage_binding = kW3CBinding;
  auto b = make_webgpu_backend(ops::Tier::prod, d, test_adapter_settings(), o);
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

// Two backends on SwiftShader: one capped at the W3C default binding (splits), one with the
// adapter's own larger limit (no split).
struct Pair {
  std::unique_ptr<runtime::OpBackend> split, whole;
};
Pair& backends() {
  static Pair p = [] {
    DiagnosticSink d;
    BackendOptions o;
    o.device.max_storage_binding = kW3CBinding;
    Pair r{make_webgpu_backend(ops::Tier::prod, d, test_adapter_settings(), o), make_webgpu_backend(ops::Tier::prod, d, test_adapter_settings())};
    for (const auto& x : d.all()) ADD_FAILURE() << x.code << ": " << x.message;
    return r;
  }();
  return p;
}

// Runs `op` split (W3C binding) and whole: every output element has the same bits (the split
// changes no evaluation order; the unsplit kernels are checked against the reference by the
// conformance test), and, where `reference` (the CPU evaluation is slow at this size), the split
// result agrees with the CPU reference within the op's WebGPU class. The split program has
// more dispatches than the unsplit one.
void expect_split_matches(const std::string& name, const std::vector<ops::HostTensor>& in, const AttrMap& attrs,
                          bool reference) {
  Pair& b = backends();
  ASSERT_TRUE(b.split && b.whole);
  ASSERT_GT(std::stoull(b.whole->profile().facts.at("max_storage_binding")), in[0].numel() * 4)
      << "the adapter's own limit must hold the operand whole for the comparison";
  const ops::OpDef* op = ops::op_registry().find(name);
  std::vector<TensorDesc> descs, outs;
  for (const auto& t : in) descs.push_back({t.dtype(), t.shape()});
  DiagnosticSink d;
  auto split_prog = program_for_types(*op, descs, attrs, DeviceCaps{}, outs, d);
  auto whole_prog = program_for_types(*op, descs, attrs, DeviceCaps{1ull << 40}, outs, d);
  ASSERT_TRUE(split_prog && whole_prog) << (d.empty() ? "" : d.all()[0].message);
  EXPECT_GT(split_prog->steps.size(), whole_prog->steps.size()) << name << " was not split";
  for (const auto& st : split_prog->steps)
    for (const auto& bd : st.bindings) EXPECT_LE(bd.size, kW3CBinding);
  auto got = b.split->run_op(*op, in, attrs, d);
  ASSERT_TRUE(got) << (d.empty() ? "" : d.all()[0].code + " " + d.all()[0].message);
  auto whole = b.whole->run_op(*op, in, attrs, d);
  ASSERT_TRUE(whole) << (d.empty() ? "" : d.all()[0].message);
  std::uint64_t n = (*got)[0].numel(), differ = 0;
  ASSERT_EQ(n, (*whole)[0].numel());
  for (std::uint64_t i = 0; i < n; ++i) differ += (*got)[0].raw<std::uint32_t>(i) != (*whole)[0].raw<std::uint32_t>(i);
  EXPECT_EQ(differ, 0u) << name << ": elements whose bits differ between the split and the unsplit run";
  if (!reference) return;
  ops::EvalOptions eo;
  eo.tier = ops::Tier::prod;
  auto ref = ops::evaluate(*op, in, attrs, d, eo);
  ASSERT_TRUE(ref);
  ops::Verdict v = ops::compare((*got)[0], (*ref)[0], tolerance_class(*op, ops::Tier::debug), ops::Tier::prod);
  EXPECT_TRUE(v.pass) << name << ": " << v.summary();
}

ops::HostTensor filled(const ops::Extents& shape, std::uint32_t seed) {
  ops::HostTensor t(DType::f32, shape);
  std::uint32_t s = seed;
  for (std::uint64_t i = 0; i < t.numel(); ++i) {
    s = s * 1664525u + 1013904223u;
    t.set_raw<float>(i, static_cast<float>(static_cast<std::int32_t>(s >> 8) % 2000) / 500.0f);  // [-4, 4)
  }
  return t;
}

// C [2^19 + 100, 64] = 128 MiB + 25 KiB: row windows of C (A [2^19 + 100, 1] is bound whole).
// With K = 1 the reference's chain is fma(a, b, +0) = a * b + 0, so every element is checked
// against it on the host; one device run (two GEMMs of this size on SwiftShader exceed the
// test budget, and a GEMM whose A also exceeds 128 MiB takes minutes: generated only, below).
TEST(WebGpuLimits, MatmulSplitsAlongTheRowsOfC) {
  Pair& b = backends();
  ASSERT_TRUE(b.split);
  const std::uint64_t M = (1ull << 19) + 100, N = 64;
  std::vector<ops::HostTensor> in{filled({M, 1}, 1), filled({1, N}, 2)};
  const ops::OpDef* op = ops::op_registry().find("matmul");
  std::vector<TensorDesc> descs{{DType::f32, {M, 1}}, {DType::f32, {1, N}}}, outs;
  DiagnosticSink d;
  auto prog = program_for_types(*op, descs, {}, DeviceCaps{}, outs, d);
  ASSERT_TRUE(prog);
  EXPECT_GE(prog->steps.size(), 2u);
  auto got = b.split->run_op(*op, in, {}, d);
  ASSERT_TRUE(got) << (d.empty() ? "" : d.all()[0].code + " " + d.all()[0].message);
  std::uint64_t bad = 0;
  for (std::uint64_t i = 0; i < M; ++i)
    for (std::uint64_t j = 0; j < N; ++j) {
      float want = in[0].raw<float>(i) * in[1].raw<float>(j) + 0.0f;
      bad += std::bit_cast<std::uint32_t>((*got)[0].raw<float>(i * N + j)) != std::bit_cast<std::uint32_t>(want);
    }
  EXPECT_EQ(bad, 0u);
}

// A [2^21 + 100, 17] (136 MiB) and C [2^21 + 100, 16]: both bound in row windows, each from an
// aligned offset, every binding within 128 MiB, and the windows cover every row once.
TEST(WebGpuLimits, MatmulWindowsOfAAndCAreAlignedAndCoverEveryRow) {
  const std::uint64_t M = (1ull << 21) + 100, K = 17, N = 16;
  std::vector<TensorDesc> in{{DType::f32, {M, K}}, {DType::f32, {K, N}}}, outs;
  DiagnosticSink d;
  auto p = program_for_types(*ops::op_registry().find("matmul"), in, {}, DeviceCaps{}, outs, d);
  ASSERT_TRUE(p) << (d.empty() ? "" : d.all()[0].message);
  ASSERT_GE(p->steps.size(), 2u);
  std::uint64_t a_end = 0, c_end = 0;
  for (const auto& st : p->steps) {
    const Binding &a = st.bindings.front(), &c = st.bindings.back();
    EXPECT_EQ(a.slot, 0);
    EXPECT_EQ(c.slot, 2);
    for (const auto* b : {&a, &c}) {
      EXPECT_GT(b->size, 0u);
      EXPECT_LE(b->size, kW3CBinding);
      EXPECT_EQ(b->offset % 256, 0u);
    }
    EXPECT_LE(a.offset, a_end);  // no gap: every row of A and C is in some window
    EXPECT_LE(c.offset, c_end);
    a_end = a.offset + a.size;
    c_end = c.offset + c.size;
  }
  EXPECT_EQ(a_end, M * K * 4);
  EXPECT_EQ(c_end, M * N * 4);
}

// x [33600, 1000] f32 = 128 MiB + 160 KB: statistics over windows of rows (bound from
// aligned-down offsets), elements over windows of the output.
TEST(WebGpuLimits, SoftmaxSplitsAlongRows) { expect_split_matches("softmax", {filled({33600, 1000}, 3)}, {}, false); }

TEST(WebGpuLimits, RmsNormSplitsAlongGroups) {
  expect_split_matches("rms_norm", {filled({33600, 1000}, 4), filled({1000}, 5)}, {}, false);
}

}  // namespace
}  // namespace rung::webgpu
