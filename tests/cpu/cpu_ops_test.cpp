// Every op on the CPU backend against the reference, bit for bit (tier debug): at 1 and 2
// threads, and with Highway's dispatch forced to each x86 target this CPU has (AVX-512,
// AVX2, SSE4; a target the CPU lacks is skipped with a message naming it).
#include <gtest/gtest.h>
#include <hwy/highway.h>
#include <hwy/targets.h>

#include <map>
#include <random>

#include "backends/cpu/cpu_backend.h"
#include "cases.h"
#include "ops/evaluate.h"

namespace rung::cpu {
namespace {

using ops::HostTensor;

std::string codes(const DiagnosticSink& d) {
  std::string s;
  for (const auto& x : d.all()) s += x.code + ": " + x.message + "; ";
  return s;
}

// Runs every case of every op; returns the number of cases whose results were compared
// (cases both sides refuse, with the same code, are checked but not counted). Every op
// must have at least one case that runs.
std::size_t check_all_ops(runtime::OpBackend& cpu, std::uint64_t seed) {
  std::size_t compared = 0;
  std::map<std::string, std::size_t> ran;
  for (const ops::OpDef* op : ops::op_registry().all()) {
    std::mt19937_64 rng(seed ^ std::hash<std::string>{}(op->name));
    auto cases = testing::cases_for(op->name, rng);
    if (cases.empty()) ADD_FAILURE() << "no test cases for op `" << op->name << "`: add them to tests/cpu/cases.cpp";
    for (auto& c : cases) {
      DiagnosticSink dr, dc;
      auto want = ops::evaluate(*op, c.inputs, c.attrs, dr);
      auto got = cpu.run_op(*op, c.inputs, c.attrs, dc);
      if (!want) {
        EXPECT_FALSE(got) << op->name << " [" << c.label << "]: the reference refused (" << codes(dr) << ") but cpu did not";
        if (!got && !dr.all().empty() && !dc.all().empty()) {
          EXPECT_EQ(dr.all().front().code, dc.all().front().code) << op->name << " [" << c.label << "]";
        }
        continue;
      }
      if (!got) {
        ADD_FAILURE() << op->name << " [" << c.label << "]: cpu failed: " << codes(dc);
        continue;
      }
      ++compared;
      ++ran[op->name];
      if (want->size() != got->size()) {
        ADD_FAILURE() << op->name << ": " << want->size() << " results vs " << got->size();
        continue;
      }
      for (std::size_t i = 0; i < want->size(); ++i) {
        const HostTensor &w = (*want)[i], &g = (*got)[i];
        if (w.identical(g)) continue;
        std::uint64_t first = 0;
        std::size_t width = w.bytes().size() / std::max<std::uint64_t>(w.numel(), 1);
        while (first < w.bytes().size() && first < g.bytes().size() && w.bytes()[first] == g.bytes()[first]) ++first;
        ADD_FAILURE() << op->name << " [" << c.label << "] result " << i << " differs from the reference (first at element "
                      << (width ? first / width : 0) << ")\n  reference: " << w.to_string(16) << "\n  cpu:       " << g.to_string(16);
      }
    }
  }
  for (const ops::OpDef* op : ops::op_registry().all())
    EXPECT_GT(ran[op->name], 0u) << "every case of `" << op->name << "` was refused by the reference: fix tests/cpu/cases.cpp";
  return compared;
}

TEST(CpuBackend, HasAKernelForEveryOp) {
  register_cpu_kernels();
  auto missing = ops::op_registry().missing_kernels(ops::Backend::cpu);
  std::string names;
  for (auto* d : missing) names += d->name + " ";
  EXPECT_TRUE(missing.empty()) << "ops without a CPU kernel: " << names;
}

TEST(CpuBackend, EveryOpMatchesReferenceOneThread) {
  auto cpu = make_cpu_backend(ops::Tier::debug, {.threads = 1, .poison_uninitialized = true});
  EXPECT_GT(check_all_ops(*cpu, 1), 500u);
}

TEST(CpuBackend, EveryOpMatchesReferenceTwoThreads) {
  auto cpu = make_cpu_backend(ops::Tier::debug, {.threads = 2, .poison_uninitialized = true});
  check_all_ops(*cpu, 2);
}

class ForcedTarget : public ::testing::TestWithParam<std::int64_t> {
 protected:
  void TearDown() override { hwy::SetSupportedTargetsForTest(0); }
};

TEST_P(ForcedTarget, EveryOpMatchesReference) {
  std::int64_t target = GetParam();
  if ((hwy::SupportedTargets() & target) == 0 || (HWY_TARGETS & target) == 0)
    GTEST_SKIP() << "this CPU (or build) lacks " << hwy::TargetName(target) << "; its kernels are not checked here";
  hwy::SetSupportedTargetsForTest(target);
  ASSERT_EQ(simd_target_name(), hwy::TargetName(target));
  auto cpu = make_cpu_backend(ops::Tier::debug, {.threads = 2, .poison_uninitialized = true});
  check_all_ops(*cpu, 3 + static_cast<std::uint64_t>(target));
}

std::string target_label(const ::testing::TestParamInfo<std::int64_t>& i) { return hwy::TargetName(i.param); }

#if HWY_ARCH_X86
INSTANTIATE_TEST_SUITE_P(X86, ForcedTarget, ::testing::Values(HWY_AVX3, HWY_AVX2, HWY_SSE4), target_label);
#endif

TEST(CpuBackend, ProfileNamesTargetAndThreads) {
  auto cpu = make_cpu_backend(ops::Tier::debug, {.threads = 2, .poison_uninitialized = true});
  auto p = cpu->profile();
  EXPECT_EQ(p.backend, "cpu");
  EXPECT_EQ(p.facts.at("threads"), "2");
  EXPECT_EQ(p.facts.at("simd_target"), simd_target_name());
  const ops::OpDef* add = ops::op_registry().find("add");
  EXPECT_NE(cpu->kernel_hash(*add).find("cpu.simd.add@"), std::string::npos);
}

TEST(CpuBackend, RefusesWithItsCodeWhenAKernelIsMissing) {
  // An op registered in a private registry is unknown to the CPU backend's registry lookup.
  auto cpu = make_cpu_backend(ops::Tier::debug, {.threads = 1, .poison_uninitialized = true});
  ops::OpDef fake("cpu_test_fake_op", 65000);
  DiagnosticSink d;
  auto r = cpu->run_op(fake, {}, {}, d);
  EXPECT_FALSE(r);
  EXPECT_TRUE(d.contains("H0001")) << codes(d);
}

TEST(CpuBackend, SimdSettingForcesTheTargetOrRefuses) {
  struct Reset {
    ~Reset() { hwy::SetSupportedTargetsForTest(0); }
  } reset;
  if (hwy::SupportedTargets() & HWY_AVX2) {
    DiagnosticSink d;
    EXPECT_TRUE(apply_simd_setting("AVX2", d)) << codes(d);
    EXPECT_EQ(simd_target_name(), "AVX2");
  }
  DiagnosticSink d;
  EXPECT_FALSE(apply_simd_setting("NOPE", d));
  EXPECT_TRUE(d.contains("H0003")) << codes(d);
}

// The registry's factory takes RUNG_CPU_SIMD and RUNG_CPU_THREADS from its settings, never
// from the process environment.
TEST(CpuBackend, FactoryReadsItsSettings) {
  struct Reset {
    ~Reset() { hwy::SetSupportedTargetsForTest(0); }
  } reset;
  runtime::BackendRegistry registry;
  runtime::register_cpu_backend(registry);
  runtime::BackendSettings s;
  s.values["RUNG_CPU_THREADS"] = "3";
  DiagnosticSink d;
  auto cpu = registry.create("cpu", ops::Tier::debug, d, s);
  ASSERT_TRUE(cpu) << codes(d);
  EXPECT_EQ(cpu->profile().facts.at("threads"), "3");
  s.values["RUNG_CPU_SIMD"] = "NOPE";
  EXPECT_FALSE(registry.create("cpu", ops::Tier::debug, d, s));
  EXPECT_TRUE(d.contains("H0003")) << codes(d);
  EXPECT_EQ(threads_setting(""), 0u);
  EXPECT_EQ(threads_setting("2"), 2u);
  EXPECT_EQ(threads_setting("0"), 0u);
  EXPECT_EQ(threads_setting("5000"), 0u);
}

}  // namespace
}  // namespace rung::cpu
