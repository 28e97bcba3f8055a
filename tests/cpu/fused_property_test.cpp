// The default pipeline's fused calls on the CPU backend, on random elementwise graphs whose
// operands broadcast ([B,T,D] with [B,T,1], [D], [1,T,1], rank 0), with values used several
// times, compares, where and casts, and special values: the optimized graph on the CPU
// gives the bits of the unoptimized graph on the reference, at sizes that fit one chunk and
// at sizes that cross chunk boundaries.
#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "backends/cpu/cpu_backend.h"
#include "backends/reference/reference_backend.h"
#include "ir/graph/builder.h"
#include "passes/pass.h"
#include "runtime/backend_registry.h"

namespace rung {
namespace {

using ops::Extents;
using ops::HostTensor;

TensorType f32_of(const Extents& e) {
  TensorType t;
  t.dtype = DType::f32;
  for (auto d : e) t.shape.push_back(Dim::fixed(d));
  return t;
}

struct RandomGraph {
  Graph g;
  std::vector<Extents> param_shapes;
};

// Parameters: x, y of [B,T,D]; r of [B,T,1]; w of [D]; m of [1,T,1]; s of rank 0.
RandomGraph random_graph(std::uint32_t seed, const Extents& E) {
  std::mt19937 rng(seed);
  RandomGraph out;
  GraphBuilder b(out.g);
  const Extents B = E, R = {E[0], E[1], 1}, W = {E[2]}, M = {1, E[1], 1}, S = {};
  out.param_shapes = {B, B, R, W, M, S};
  std::vector<ValueRef> params;
  for (std::size_t i = 0; i < out.param_shapes.size(); ++i)
    params.push_back(b.param("p" + std::to_string(i), static_cast<std::int64_t>(i), f32_of(out.param_shapes[i])));
  std::vector<ValueRef> full = {params[0], params[1]};       // values of the full shape
  std::vector<ValueRef> small = {params[2], params[3], params[4], params[5]};
  const TensorType tf = f32_of(E);
  TensorType tb = tf, th = tf;
  tb.dtype = DType::boolean;
  th.dtype = DType::f16;
  const char* binary[] = {"add", "sub", "mul", "div", "maximum", "minimum"};
  const char* unary[] = {"neg", "relu", "square", "exp", "tanh", "abs"};
  auto any = [&]() { return rng() % 3 == 0 ? small[rng() % small.size()] : full[rng() % full.size()]; };
  for (int i = 0; i < 12; ++i) {
    ValueRef a = full[rng() % full.size()];
    switch (rng() % 5) {
      case 0: case 1: {
        ValueRef c = any();
        bool swap = rng() % 2;
        full.push_back(b.op(binary[rng() % 6], {swap ? c : a, swap ? a : c}, tf));
        break;
      }
      case 2: full.push_back(b.op(unary[rng() % 6], {a}, tf)); break;
      case 3: full.push_back(b.op("where", {b.op("gt", {a, any()}, tb), any(), a}, tf)); break;
      case 4: {  // through f16 and back (a rounding per node)
        ValueRef h = b.op("cast", {a}, th, {{"to", AttrValue(DType::f16)}});
        full.push_back(b.op("cast", {b.op("mul", {h, h}, th)}, tf, {{"to", AttrValue(DType::f32)}}));
        break;
      }
    }
  }
  // Two results, one from the middle (values used several times, and used outside groups).
  b.export_region("f", params, {full.back(), full[full.size() / 2 + 1]});
  return out;
}

HostTensor random_values(const Extents& shape, std::mt19937& rng) {
  const float pool[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 3.0f, std::numeric_limits<float>::infinity(),
                        -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(), 1e-40f, -2.5f};
  std::uniform_real_distribution<float> u(-4.0f, 4.0f);
  std::vector<float> v(ops::element_count(shape));
  for (auto& x : v) x = rng() % 4 == 0 ? pool[rng() % (sizeof pool / sizeof pool[0])] : u(rng);
  return HostTensor::from_f32(shape, v);
}

TEST(CpuFusedProperty, BroadcastGraphsGiveTheUnoptimizedReferenceBits) {
  DiagnosticSink start;
  auto cpu = runtime::backend_registry().create("cpu", ops::Tier::debug, start, {});
  ASSERT_TRUE(cpu);
  std::size_t broadcast_fused = 0, calls = 0;
  for (std::uint32_t seed = 0; seed < 200; ++seed) {
    // Mostly one chunk; every fifth graph crosses chunk boundaries (3 * 7 * 1171 = 24591).
    Extents E = seed % 5 == 4 ? Extents{3, 7, 1171} : Extents{2 + seed % 3, 3 + seed % 4, 1 + seed % 6};
    RandomGraph rg = random_graph(seed, E);
    std::mt19937 rng(seed * 13 + 5);
    std::vector<HostTensor> args;
    for (const auto& s : rg.param_shapes) args.push_back(random_values(s, rng));
    DiagnosticSink d;
    auto want = reference::run_region(rg.g, rg.g.exports().at("f"), args, d);
    ASSERT_TRUE(want) << "seed " << seed << ": " << (d.empty() ? "" : d.all()[0].message);
    PassManager pm({});
    PassContext ctx{d};
    Graph opt = rg.g;
    ASSERT_TRUE(pm.run(opt, ctx)) << "seed " << seed;
    for (const auto& n : opt.nodes()) {
      if (n.opcode != "call" || !n.attrs.count("fusion")) continue;
      ++calls;
      for (const auto& in : n.inputs) {
        const TensorType& t = opt.node(in.node).outputs[in.output];
        broadcast_fused += t.rank() != 0 && t.shape != n.outputs[0].shape;
      }
    }
    auto got = cpu->run_region(opt, opt.exports().at("f"), args, d);
    ASSERT_TRUE(got) << "seed " << seed << ": " << (d.empty() ? "" : d.all()[0].message);
    ASSERT_EQ(got->size(), want->size());
    for (std::size_t i = 0; i < want->size(); ++i)
      EXPECT_TRUE((*want)[i].identical((*got)[i])) << "seed " << seed << " shape " << ops::extents_to_string(E) << " result " << i;
  }
  // The generator must produce fused calls with broadcast inputs, or this proves nothing.
  EXPECT_GT(calls, 200u);
  EXPECT_GT(broadcast_fused, 130u);
  std::printf("%zu fused calls, %zu broadcast inputs of them\n", calls, broadcast_fused);
}

}  // namespace
}  // namespace rung
