// The CPU backend's fused-elementwise executor: a `call` marked fusion = "elementwise" (what
// the fuse pass emits, built by hand here) gives the reference's bits, chunk boundaries and
// thread counts notwithstanding; a region it cannot run is refused with H0002.
#include <gtest/gtest.h>

#include <random>

#include "backends/cpu/cpu_backend.h"
#include "ir/graph/builder.h"
#include "ops/numerics/portable.h"

namespace rung::cpu {
namespace {

using ops::HostTensor;

TensorType f32(std::uint64_t n) { return {DType::f32, n == ~0ull ? Shape{} : Shape{Dim::fixed(n)}}; }
TensorType of(DType t, std::uint64_t n) { return {t, Shape{Dim::fixed(n)}}; }

HostTensor values(std::uint64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-3.0f, 3.0f);
  std::vector<float> v(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    switch (rng() % 16) {
      case 0: v[i] = num::nan_f32(); break;
      case 1: v[i] = -0.0f; break;
      case 2: v[i] = num::inf_f32(); break;
      case 3: v[i] = 1e-40f; break;
      default: v[i] = u(rng);
    }
  }
  return HostTensor::from_f32({n}, v);
}

// main(x, y, s) = call fused(x, y, s) with fused(a, b, c):
//   m = a * b; t = m + c; e = exp(t); w = where(a > b, e, m); h = cast(w, f16); r = h * h
struct Fixture {
  Graph g;
  RegionId main = 0;
};

Fixture build(std::uint64_t n, bool spoil = false) {
  Fixture f;
  GraphBuilder b(f.g);
  auto a = b.param("a", 0, f32(n)), bb = b.param("b", 1, f32(n)), c = b.param("c", 2, f32(~0ull));
  auto m = b.op("mul", {a, bb}, f32(n));
  auto t = b.op("add", {m, c}, f32(n));
  auto e = b.op("exp", {t}, f32(n));
  auto gt = b.op("gt", {a, bb}, of(DType::boolean, n));
  auto w = b.op("where", {gt, e, m}, f32(n));
  auto h = b.op("cast", {w}, of(DType::f16, n), {{"to", AttrValue(DType::f16)}});
  auto r = b.op("mul", {h, h}, of(DType::f16, n));
  std::vector<ValueRef> results{w, r};
  if (spoil) results.push_back(b.op("sum", {w}, f32(~0ull), {{"axes", AttrValue(std::vector<std::int64_t>{})}}));
  RegionId fused = b.region("main.fused.0", {a, bb, c}, results);
  auto x = b.param("x", 0, f32(n)), y = b.param("y", 1, f32(n)), s = b.param("s", 2, f32(~0ull));
  std::vector<TensorType> out{f32(n), of(DType::f16, n)};
  if (spoil) out.push_back(f32(~0ull));
  auto call = b.op_multi("call", {x, y, s}, out,
                         {{"callee", AttrValue(f.g.region(fused).hash)}, {"fusion", AttrValue(std::string("elementwise"))}});
  f.main = b.export_region("main", {x, y, s}, call);
  return f;
}

TEST(CpuFusedRegion, MatchesTheReferenceAcrossChunksAndThreads) {
  DiagnosticSink start;
  auto ref = runtime::backend_registry().create("reference", ops::Tier::debug, start);
  ASSERT_TRUE(ref);
  for (std::uint64_t n : {0ull, 1ull, 16383ull, 16385ull, 40001ull}) {
    Fixture f = build(n);
    std::vector<HostTensor> args{values(n, n), values(n, n + 1), HostTensor::scalar_f32(0.25f)};
    DiagnosticSink dr;
    auto want = ref->run_region(f.g, f.main, args, dr);
    ASSERT_TRUE(want) << (dr.empty() ? "" : dr.all().front().message);
    for (unsigned threads : {1u, 2u}) {
      auto cpu = make_cpu_backend(ops::Tier::debug, {.threads = threads, .poison_uninitialized = true});
      DiagnosticSink dc;
      auto got = cpu->run_region(f.g, f.main, args, dc);
      ASSERT_TRUE(got) << (dc.empty() ? "" : dc.all().front().message);
      ASSERT_EQ(got->size(), want->size());
      for (std::size_t i = 0; i < want->size(); ++i)
        EXPECT_TRUE((*want)[i].identical((*got)[i])) << "n=" << n << " threads=" << threads << " result " << i;
    }
  }
}

TEST(CpuFusedRegion, RefusesARegionThatIsNotElementwise) {
  Fixture f = build(10, /*spoil=*/true);
  std::vector<HostTensor> args{values(10, 1), values(10, 2), HostTensor::scalar_f32(1.0f)};
  auto cpu = make_cpu_backend(ops::Tier::debug, {.threads = 2, .poison_uninitialized = true});
  DiagnosticSink d;
  EXPECT_FALSE(cpu->run_region(f.g, f.main, args, d));
  EXPECT_TRUE(d.contains("H0002"));
}

}  // namespace
}  // namespace rung::cpu
