// The CPU backend's fused-elementwise executor: a `call` marked fusion = "elementwise" (what
// the fuse pass emits, built by hand here) gives the reference's bits, chunk boundaries and
// thread counts notwithstanding; a region it cannot run is refused with H0002.
#include <gtest/gtest.h>

#include <random>

#include "backends/cpu/broadcast_chunk.h"
#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/fused_region.h"
#include "ir/graph/builder.h"
#include "ops/numerics/portable.h"

namespace rung::cpu {
namespace {

using ops::HostTensor;

TensorType f32(std::uint64_t n) { return {DType::f32, n == ~0ull ? Shape{} : Shape{Dim::fixed(n)}}; }
TensorType of(DType t, std::uint64_t n) { return {t, Shape{Dim::fixed(n)}}; }

HostTensor values(const ops::Extents& shape, std::uint64_t seed) {
  std::uint64_t n = ops::element_count(shape);
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
  return HostTensor::from_f32(shape, v);
}
HostTensor values(std::uint64_t n, std::uint64_t seed) { return values(ops::Extents{n}, seed); }

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

// `main` of `f` on the cpu backend at 1 and 2 threads (uninitialised outputs poisoned): `want`'s bits.
void expect_cpu_gives(const std::vector<HostTensor>& want, const Fixture& f, const std::vector<HostTensor>& args,
                      const std::string& label) {
  for (unsigned threads : {1u, 2u}) {
    auto cpu = make_cpu_backend(ops::Tier::debug, {.threads = threads, .poison_uninitialized = true});
    DiagnosticSink dc;
    auto got = cpu->run_region(f.g, f.main, args, dc);
    ASSERT_TRUE(got) << label << ": " << (dc.empty() ? "" : dc.all().front().message);
    ASSERT_EQ(got->size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i)
      EXPECT_TRUE(want[i].identical((*got)[i])) << label << " threads=" << threads << " result " << i;
  }
}

TEST(CpuFusedRegion, MatchesTheReferenceAcrossChunksAndThreads) {
  DiagnosticSink start;
  auto ref = runtime::backend_registry().create("reference", ops::Tier::debug, start, {});
  ASSERT_TRUE(ref);
  for (std::uint64_t n : {0ull, 1ull, 16383ull, 16385ull, 40001ull}) {
    Fixture f = build(n);
    std::vector<HostTensor> args{values(n, n), values(n, n + 1), HostTensor::scalar_f32(0.25f)};
    DiagnosticSink dr;
    auto want = ref->run_region(f.g, f.main, args, dr);
    ASSERT_TRUE(want) << (dr.empty() ? "" : dr.all().front().message);
    expect_cpu_gives(*want, f, args, "n=" + std::to_string(n));
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


// Broadcast operands: fused(a, b, c, s) with a of the element space E and b, c of shapes
// that broadcast to it (trailing, leading, middle axes; size-1 dims; one element):
//   m = a * b; t = m + s; e = exp(t); w = where(a > c, e, m); d = w - c; r = cast(d, f16)^2
TensorType f32s(const ops::Extents& e) {
  TensorType t;
  t.dtype = DType::f32;
  for (auto d : e) t.shape.push_back(Dim::fixed(d));
  return t;
}

Fixture build_broadcast(const ops::Extents& E, const ops::Extents& bs, const ops::Extents& cs) {
  Fixture f;
  GraphBuilder b(f.g);
  TensorType te = f32s(E), th = te, tb = te;
  th.dtype = DType::f16;
  tb.dtype = DType::boolean;
  auto a = b.param("a", 0, te), bb = b.param("b", 1, f32s(bs)), c = b.param("c", 2, f32s(cs)),
       s = b.param("s", 3, f32(~0ull));
  auto m = b.op("mul", {a, bb}, te);
  auto e = b.op("exp", {b.op("add", {m, s}, te)}, te);
  auto w = b.op("where", {b.op("gt", {a, c}, tb), e, m}, te);
  auto d = b.op("sub", {w, c}, te);
  auto h = b.op("cast", {d}, th, {{"to", AttrValue(DType::f16)}});
  auto r = b.op("mul", {h, h}, th);
  RegionId fused = b.region("main.fused.0", {a, bb, c, s}, {d, r});
  auto x = b.param("x", 0, te), y = b.param("y", 1, f32s(bs)), z = b.param("z", 2, f32s(cs)),
       q = b.param("q", 3, f32(~0ull));
  auto call = b.op_multi("call", {x, y, z, q}, {te, th},
                         {{"callee", AttrValue(f.g.region(fused).hash)}, {"fusion", AttrValue(std::string("elementwise"))}});
  f.main = b.export_region("main", {x, y, z, q}, call);
  return f;
}

TEST(CpuFusedRegion, BroadcastOperandsMatchTheReference) {
  struct Case {
    ops::Extents E, b, c;
  };
  const std::vector<Case> cases = {
      {{2, 3, 5}, {2, 3, 1}, {5}},             // [B,T,1] and [D] (rms norm's x * r, n * g)
      {{4, 3, 5}, {4, 1, 5}, {1, 3, 1}},       // middle axis; only the middle axis
      {{7, 1, 9}, {1}, {1, 1, 1}},             // one element, of rank 1 and 3; a size-1 dim in E
      {{3, 5461, 3}, {3, 1, 3}, {5461, 1}},    // 49149 elements: runs cross chunk boundaries
      {{130, 257}, {130, 1}, {257}},           // odd sizes
      {{40001}, {1}, {40001}},                 // rank 1
      {{2, 1, 16385}, {16385}, {2, 1, 1}},     // an inner run longer than a chunk
      {{0, 5}, {5}, {0, 1}},                   // empty
      {{3, 0}, {3, 1}, {1}},
  };
  DiagnosticSink start;
  auto ref = runtime::backend_registry().create("reference", ops::Tier::debug, start, {});
  ASSERT_TRUE(ref);
  std::uint64_t seed = 7;
  for (const auto& k : cases) {
    Fixture f = build_broadcast(k.E, k.b, k.c);
    std::vector<HostTensor> args{values(k.E, ++seed), values(k.b, ++seed), values(k.c, ++seed),
                                 HostTensor::scalar_f32(0.25f)};
    DiagnosticSink dr;
    auto want = ref->run_region(f.g, f.main, args, dr);
    ASSERT_TRUE(want) << (dr.empty() ? "" : dr.all().front().message);
    expect_cpu_gives(*want, f, args,
                     ops::extents_to_string(k.E) + " b " + ops::extents_to_string(k.b) + " c " + ops::extents_to_string(k.c));
  }
}

TEST(CpuFusedRegion, RefusesArgumentsThatDoNotBroadcast) {
  Fixture f = build_broadcast({2, 3, 5}, {2, 3, 1}, {5});
  const Region& main = f.g.region(f.main);
  const Node& call = f.g.node(main.results[0].node);
  std::vector<HostTensor> args{values({2, 3, 5}, 1), values({2, 3, 4}, 2), values({5}, 3), HostTensor::scalar_f32(1.0f)};
  ThreadPool pool(1);
  DiagnosticSink d;
  EXPECT_FALSE(run_fused_elementwise(f.g, call, args, pool, d));
  EXPECT_TRUE(d.contains("H0002"));
}

// The per-chunk gather against the element-by-element definition, at every start and
// length of a small space (so every carry of the odometer and every merged layout is hit).
TEST(CpuFusedRegion, BroadcastWalkGathersTheBroadcastElements) {
  const std::vector<std::pair<ops::Extents, ops::Extents>> shapes = {
      {{3, 1}, {2, 3, 4}}, {{4}, {2, 3, 4}}, {{2, 1, 4}, {2, 3, 4}}, {{1, 3, 1}, {2, 3, 4}}, {{2, 3, 4}, {2, 3, 4}},
      {{1}, {5}},          {{1, 1}, {1, 1}}, {{5, 1, 1}, {5, 1, 3}}, {{1, 3, 1, 2}, {2, 3, 2, 2}}};
  for (const auto& [op, space] : shapes) {
    std::uint64_t n = ops::element_count(space), m = ops::element_count(op);
    std::vector<std::uint16_t> src(m);
    for (std::uint64_t i = 0; i < m; ++i) src[i] = static_cast<std::uint16_t>(1000 + i);
    // Reference: the operand's offset of each flat index of the space.
    std::vector<std::uint16_t> want(n);
    for (std::uint64_t i = 0; i < n; ++i) {
      std::uint64_t rest = i, off = 0, stride = 1;
      for (std::size_t k = 0; k < space.size(); ++k) {
        std::uint64_t coord = rest % space[space.size() - 1 - k];
        rest /= space[space.size() - 1 - k];
        if (k < op.size()) {
          std::uint64_t ext = op[op.size() - 1 - k];
          if (ext != 1) off += coord * stride;
          stride *= ext;
        }
      }
      want[i] = src[off];
    }
    BroadcastWalk walk(op, space);
    for (std::uint64_t b = 0; b <= n; ++b)
      for (std::uint64_t len = 0; b + len <= n; ++len) {
        std::vector<std::uint16_t> got(len + 1, 0xdead);
        walk.gather(reinterpret_cast<const std::uint8_t*>(src.data()), 2, b, len, reinterpret_cast<std::uint8_t*>(got.data()));
        for (std::uint64_t i = 0; i < len; ++i)
          ASSERT_EQ(got[i], want[b + i]) << ops::extents_to_string(op) << " in " << ops::extents_to_string(space) << " at " << b
                                         << "+" << i;
        ASSERT_EQ(got[len], 0xdead) << "wrote past the run";
      }
  }
  EXPECT_EQ(BroadcastWalk({2, 3, 1}, {2, 3, 5}).merged_rank(), 2u);  // [6 (stride 1), 5 (stride 0)]
  EXPECT_EQ(BroadcastWalk({5}, {2, 3, 5}).merged_rank(), 2u);        // [6 (stride 0), 5 (stride 1)]
}

}  // namespace
}  // namespace rung::cpu
