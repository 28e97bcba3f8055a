// Passes must preserve results bit for bit: random well-typed graphs (with constants that
// trigger folding and the simplifier's identities, special values, broadcasting and
// calls) are evaluated on the reference backend before and after the default pipeline.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "backends/reference/reference_backend.h"
#include "ir/graph/builder.h"
#include "ir/graph/validator.h"
#include "passes/pass.h"

namespace rung {
namespace {

const TensorType kMat = tensor(DType::f32, {Dim::fixed(4), Dim::fixed(3)});
const TensorType kRow = tensor(DType::f32, {Dim::fixed(3)});

float special(std::mt19937& rng) {
  const float pool[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 3.0f, std::numeric_limits<float>::infinity(),
                        -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(), 1e-40f, -2.5f};
  return pool[rng() % (sizeof pool / sizeof pool[0])];
}

ValueRef constant(GraphBuilder& b, std::mt19937& rng, bool row) {
  std::size_t n = row ? 3 : 12;
  std::vector<float> v(n);
  int mode = static_cast<int>(rng() % 4);  // splats of 1 / -0 / +0 feed the simplifier
  float splat = mode == 0 ? 1.0f : mode == 1 ? -0.0f : 0.0f;
  for (auto& x : v) x = mode < 3 ? splat : special(rng);
  return b.constant_f32(row ? std::initializer_list<Dim>{Dim::fixed(3)} : std::initializer_list<Dim>{Dim::fixed(4), Dim::fixed(3)}, v);
}

Graph random_graph(std::uint32_t seed) {
  std::mt19937 rng(seed);
  Graph g;
  GraphBuilder b(g);
  auto x = b.param("x", 0, kMat);
  auto y = b.param("y", 1, kMat);
  // A helper region, called below (exercises inline).
  auto hp = b.param("h", 0, kMat);
  RegionId helper = b.region("helper", {hp}, {b.op("relu", {b.op("sub", {hp, constant(b, rng, true)}, kMat)}, kMat)});
  std::vector<ValueRef> pool = {x, y, constant(b, rng, false)};
  const char* binary[] = {"add", "sub", "mul", "div", "maximum", "minimum"};
  const char* unary[] = {"neg", "relu", "square", "exp"};
  for (int i = 0; i < 14; ++i) {
    ValueRef a = pool[rng() % pool.size()];
    switch (rng() % 6) {
      case 0: case 1: {
        ValueRef c = rng() % 3 == 0 ? constant(b, rng, rng() % 2) : pool[rng() % pool.size()];
        bool swap = rng() % 2;
        pool.push_back(b.op(binary[rng() % 6], {swap ? c : a, swap ? a : c}, kMat));
        break;
      }
      case 2: pool.push_back(b.op(unary[rng() % 4], {a}, kMat)); break;
      case 3: {  // constant-only subtree: folds away
        ValueRef c1 = constant(b, rng, false), c2 = constant(b, rng, true);
        pool.push_back(b.op(binary[rng() % 6], {c1, c2}, kMat));
        break;
      }
      case 4: pool.push_back(b.call(helper, {a})[0]); break;
      case 5: {  // transposes feeding matmul: folded into transpose_a / transpose_b
        const TensorType sq = tensor(DType::f32, {Dim::fixed(3), Dim::fixed(3)});
        ValueRef t = b.op("transpose", {a}, tensor(DType::f32, {Dim::fixed(3), Dim::fixed(4)}));
        ValueRef m = b.op("matmul", {t, pool[rng() % pool.size()]}, sq);
        if (rng() % 2) m = b.op("transpose", {m}, sq, {{"perm", std::vector<std::int64_t>{-1, -2}}});
        pool.push_back(b.op("matmul", {pool[rng() % pool.size()], m}, kMat, {{"transpose_b", rng() % 2 == 0}}));
        break;
      }
    }
  }
  b.export_region("f", {x, y}, {pool.back(), pool[pool.size() / 2]});
  return g;
}

std::vector<ops::HostTensor> inputs(std::uint32_t seed) {
  std::mt19937 rng(seed * 7 + 1);
  std::vector<float> a(12), c(12);
  for (auto& v : a) v = special(rng);
  for (auto& v : c) v = static_cast<float>(static_cast<int>(rng() % 9) - 4) * 0.75f;
  return {ops::HostTensor::from_f32({4, 3}, a), ops::HostTensor::from_f32({4, 3}, c)};
}

}  // namespace

TEST(PassProperty, DefaultPipelinePreservesBitsOnRandomGraphs) {
  int folded = 0, simplified = 0, fused = 0, folded_layouts = 0;
  for (std::uint32_t seed = 0; seed < 300; ++seed) {
    Graph g = random_graph(seed);
    DiagnosticSink d;
    ASSERT_TRUE(validate(g, d)) << "seed " << seed;
    auto args = inputs(seed);
    auto before = reference::run_region(g, g.exports().at("f"), args, d);
    ASSERT_TRUE(before) << "seed " << seed << ": " << d.all()[0].message;

    PassManager pm({});
    PassContext ctx{d};
    Graph opt = g;
    ASSERT_TRUE(pm.run(opt, ctx)) << "seed " << seed << ": " << d.all()[0].message;
    auto after = reference::run_region(opt, opt.exports().at("f"), args, d);
    ASSERT_TRUE(after) << "seed " << seed;
    for (std::size_t i = 0; i < before->size(); ++i)
      EXPECT_TRUE((*before)[i].identical((*after)[i])) << "seed " << seed << " result " << i << "\nbefore "
                                                       << (*before)[i].to_string() << "\nafter  " << (*after)[i].to_string();
    for (const auto& s : pm.stats()) {
      if (s.pass == "fold") folded += static_cast<int>(s.changed);
      if (s.pass == "simplify") simplified += static_cast<int>(s.changed);
      if (s.pass == "fuse") fused += static_cast<int>(s.changed);
      if (s.pass == "layout") folded_layouts += static_cast<int>(s.changed);
    }
    // Every call is inlined except fused regions; no transpose feeds a matmul any more.
    for (const auto& n : opt.nodes()) {
      if (n.opcode == "call") {
        EXPECT_TRUE(n.attrs.count("fusion")) << "seed " << seed;
      }
      if (n.opcode == "matmul") {
        for (const auto& in : n.inputs) EXPECT_NE(opt.node(in.node).opcode, "transpose") << "seed " << seed;
      }
    }
  }
  // The generator must actually exercise the passes, or this test proves nothing.
  EXPECT_GT(folded, 100);
  EXPECT_GT(simplified, 30);
  EXPECT_GT(fused, 60);
  EXPECT_GT(folded_layouts, 50);
}

TEST(Simplify, KeepsIdentitiesThatWouldChangeBits) {
  Graph g;
  GraphBuilder b(g);
  auto x = b.param("x", 0, kRow);
  float pz[3] = {0, 0, 0}, nz[3] = {-0.0f, -0.0f, -0.0f}, one[3] = {1, 1, 1};
  auto plus_pos_zero = b.op("add", {x, b.constant_f32({Dim::fixed(3)}, pz)}, kRow);  // not safe: -0 + 0 = +0
  auto plus_neg_zero = b.op("add", {x, b.constant_f32({Dim::fixed(3)}, nz)}, kRow);  // safe
  auto times_one = b.op("mul", {x, b.constant_f32({Dim::fixed(3)}, one)}, kRow);      // safe
  b.export_region("f", {x}, {plus_pos_zero, plus_neg_zero, times_one});
  PipelineOptions o;
  o.passes = {"simplify", "dce"};
  PassManager pm(o);
  DiagnosticSink d;
  PassContext ctx{d};
  ASSERT_TRUE(pm.run(g, ctx));
  const Region& r = g.region(g.exports().at("f"));
  EXPECT_EQ(g.node(r.results[0].node).opcode, "add");
  EXPECT_EQ(g.node(r.results[1].node).opcode, "param");
  EXPECT_EQ(g.node(r.results[2].node).opcode, "param");
}

}  // namespace rung
