// Before/after tests of the fusion and layout passes on small graphs: the shape of the
// result (what was fused, what stayed outside) and identical bits on the reference.
#include <gtest/gtest.h>

#include <set>

#include "backends/reference/reference_backend.h"
#include "ir/graph/builder.h"
#include "ir/graph/walk.h"
#include "passes/pass.h"

namespace rung {
namespace {

const TensorType kMat = tensor(DType::f32, {Dim::fixed(2), Dim::fixed(3)});

std::vector<ops::HostTensor> args2() {
  float a[6] = {0.5f, -1.0f, 2.0f, -0.0f, 3.5f, 1e-3f}, b[6] = {1.5f, 0.25f, -2.0f, 4.0f, -0.5f, 7.0f};
  return {ops::HostTensor::from_f32({2, 3}, a), ops::HostTensor::from_f32({2, 3}, b)};
}

Graph optimise(const Graph& g, std::vector<std::string> passes) {
  Graph out = g;
  PipelineOptions o;
  o.passes = std::move(passes);
  PassManager pm(o);
  DiagnosticSink d;
  PassContext ctx{d};
  EXPECT_TRUE(pm.run(out, ctx)) << (d.empty() ? "" : d.all()[0].message);
  return out;
}

void expect_same_bits(const Graph& a, const Graph& b, std::vector<ops::HostTensor> args) {
  DiagnosticSink d;
  auto x = reference::run_region(a, a.exports().at("f"), args, d);
  auto y = reference::run_region(b, b.exports().at("f"), args, d);
  ASSERT_TRUE(x && y) << (d.empty() ? "" : d.all()[0].message);
  for (std::size_t i = 0; i < x->size(); ++i) EXPECT_TRUE((*x)[i].identical((*y)[i])) << i;
}

}  // namespace

TEST(Fuse, SameShapeTreeBecomesOneCallOfAFusedRegion) {
  Graph g;
  GraphBuilder b(g);
  auto x = b.param("x", 0, kMat), y = b.param("y", 1, kMat);
  float one = 1.0f;
  auto c = b.constant_f32({}, std::span<const float>(&one, 1));           // rank 0: fusible operand
  auto shared = b.op("mul", {x, y}, kMat);                                 // two uses, both in the group: a member
  auto t = b.op("exp", {b.op("add", {shared, c}, kMat)}, kMat);            // add -> exp
  auto u = b.op("tanh", {b.op("sub", {t, shared}, kMat)}, kMat);           // sub -> tanh, joins t's tree
  float row[3] = {1, 2, 3};
  auto bias = b.constant_f32({Dim::fixed(3)}, row);                        // broadcast operand: an input
  auto v = b.op("add", {u, bias}, kMat);
  b.export_region("f", {x, y}, {v});
  Graph opt = optimise(g, {"fuse", "dce"});

  const Region& f = opt.region(opt.exports().at("f"));
  const Node& call = opt.node(f.results[0].node);  // the broadcasting add is the group's root
  ASSERT_EQ(call.opcode, "call");
  EXPECT_EQ(call.attrs.at("fusion").as<std::string>(), "elementwise");
  const Region& fused = opt.region(*opt.find_region(call.attrs.at("callee").as<Hash256>()));
  EXPECT_EQ(fused.name, "f.fused.0");
  std::multiset<std::string> ops;
  for (NodeId n : nodes_in_region(opt, fused))
    if (opt.node(n).opcode != "param" && opt.node(n).opcode != "const") ops.insert(opt.node(n).opcode);
  EXPECT_EQ(ops, (std::multiset<std::string>{"add", "add", "exp", "mul", "sub", "tanh"}));
  // Externals: x, y, the rank-0 constant and the [3] row broadcast to [2,3]; the shared
  // product is computed once inside (both its uses are members).
  ASSERT_EQ(fused.params.size(), 4u);
  EXPECT_EQ(opt.node(fused.params[3]).outputs[0].shape, (Shape{Dim::fixed(3)}));
  EXPECT_EQ(opt.node(call.inputs[0].node).opcode, "param");
  expect_same_bits(g, opt, args2());
  // A second run changes nothing (the pipeline converges).
  EXPECT_EQ(optimise(opt, {"fuse"}).fingerprint(), opt.fingerprint());
}

// A value used twice inside the group is a member (computed once); the same value with one
// more use outside the group is a member too, and an extra result of the call.
TEST(Fuse, AValueUsedInsideJoinsAndOneAlsoUsedOutsideBecomesAnExtraResult) {
  for (bool outside_use : {false, true}) {
    Graph g;
    GraphBuilder b(g);
    auto x = b.param("x", 0, kMat), y = b.param("y", 1, kMat);
    auto d = b.op("sub", {x, y}, kMat);
    auto e = b.op("mul", {b.op("exp", {d}, kMat), b.op("tanh", {d}, kMat)}, kMat);  // d used twice, both in e's group
    std::vector<ValueRef> results{e};
    if (outside_use) results.push_back(b.op("sum", {d}, tensor(DType::f32, {}), {{"axes", AttrValue(std::vector<std::int64_t>{})}}));
    b.export_region("f", {x, y}, results);
    Graph opt = optimise(g, {"fuse", "dce"});
    const Region& f = opt.region(opt.exports().at("f"));
    const Node& call = opt.node(f.results[0].node);
    ASSERT_EQ(call.opcode, "call") << outside_use;
    const Region& fused = opt.region(*opt.find_region(call.attrs.at("callee").as<Hash256>()));
    std::multiset<std::string> ops;
    for (NodeId k : nodes_in_region(opt, fused))
      if (opt.node(k).opcode != "param") ops.insert(opt.node(k).opcode);
    EXPECT_EQ(ops, (std::multiset<std::string>{"sub", "exp", "tanh", "mul"}));
    EXPECT_EQ(call.inputs.size(), 2u);
    ASSERT_EQ(call.outputs.size(), outside_use ? 2u : 1u);
    ASSERT_EQ(fused.results.size(), call.outputs.size());
    if (outside_use) {  // the sum reads the call's second result: the sub
      const Node& sum = opt.node(f.results[1].node);
      ASSERT_EQ(sum.opcode, "sum");
      EXPECT_EQ(sum.inputs[0].node, f.results[0].node);
      EXPECT_EQ(sum.inputs[0].output, 1u);
      EXPECT_EQ(opt.node(fused.results[1].node).opcode, "sub");
    }
    expect_same_bits(g, opt, args2());
    EXPECT_EQ(optimise(opt, {"fuse"}).fingerprint(), opt.fingerprint());
  }
}

// An extra result must keep the call from depending on itself: p = x - y feeds c = p * sum(p)
// directly and through the sum, so p cannot join c's group (the sum would need the call's
// result and the call the sum's); nothing is fused, and the bits stay.
TEST(Fuse, AnExtraResultNeverMakesTheCallDependOnItself) {
  Graph g;
  GraphBuilder b(g);
  auto x = b.param("x", 0, kMat), y = b.param("y", 1, kMat);
  auto p = b.op("sub", {x, y}, kMat);
  auto s = b.op("sum", {p}, tensor(DType::f32, {}), {{"axes", AttrValue(std::vector<std::int64_t>{})}});
  auto c = b.op("exp", {b.op("mul", {p, s}, kMat)}, kMat);
  b.export_region("f", {x, y}, {c});
  Graph opt = optimise(g, {"fuse", "dce"});
  const Region& f = opt.region(opt.exports().at("f"));
  const Node& call = opt.node(f.results[0].node);
  ASSERT_EQ(call.opcode, "call");  // mul -> exp fused; the sub stays outside, an input
  const Region& fused = opt.region(*opt.find_region(call.attrs.at("callee").as<Hash256>()));
  std::multiset<std::string> ops;
  for (NodeId k : nodes_in_region(opt, fused))
    if (opt.node(k).opcode != "param") ops.insert(opt.node(k).opcode);
  EXPECT_EQ(ops, (std::multiset<std::string>{"mul", "exp"}));
  EXPECT_EQ(call.outputs.size(), 1u);
  expect_same_bits(g, opt, args2());
  EXPECT_EQ(optimise(opt, {"fuse"}).fingerprint(), opt.fingerprint());
}

// Operands of any shape that broadcasts to the group's ([B,T,1], [D], [1,T,1] against
// [B,T,D]) join as inputs; a node producing a smaller shape stays outside (members all
// produce the group's shape), and so does a node whose operand would widen its shape.
TEST(Fuse, BroadcastOperandsJoinMembersKeepTheGroupsShape) {
  auto t = [](std::vector<std::uint64_t> d) {
    TensorType ty;
    ty.dtype = DType::f32;
    for (auto e : d) ty.shape.push_back(Dim::fixed(e));
    return ty;
  };
  Graph g;
  GraphBuilder b(g);
  ValueRef x = b.param("x", 0, t({2, 3, 4}));
  ValueRef r = b.param("r", 1, t({2, 3, 1}));
  ValueRef gain = b.param("g", 2, t({4}));
  ValueRef m = b.param("m", 3, t({1, 3, 1}));
  auto gexp = b.op("exp", {gain}, t({4}));                        // [4]: not the group's shape, an input
  auto n = b.op("mul", {x, r}, t({2, 3, 4}));                     // x * r   (rms norm's shape)
  auto y = b.op("mul", {n, gexp}, t({2, 3, 4}));                  // n * g
  auto z = b.op("add", {y, m}, t({2, 3, 4}));                     // a middle-axis broadcast
  auto w = b.op("sub", {z, b.op("neg", {gexp}, t({4}))}, t({2, 3, 4}));
  b.export_region("f", {x, r, gain, m}, {w});
  Graph opt = optimise(g, {"fuse", "dce"});
  const Region& f = opt.region(opt.exports().at("f"));
  const Node& call = opt.node(f.results[0].node);
  ASSERT_EQ(call.opcode, "call");
  const Region& fused = opt.region(*opt.find_region(call.attrs.at("callee").as<Hash256>()));
  std::multiset<std::string> ops;
  for (NodeId k : nodes_in_region(opt, fused))
    if (opt.node(k).opcode != "param") ops.insert(opt.node(k).opcode);
  EXPECT_EQ(ops, (std::multiset<std::string>{"mul", "mul", "add", "sub"}));
  EXPECT_EQ(fused.params.size(), 5u);  // x, r, exp(g), m, neg(exp(g))
  for (NodeId p : fused.params) EXPECT_NE(opt.node(p).outputs[0].shape.size(), 0u);

  std::vector<float> xv(24), rv(6), gv(4), mv(3);
  for (std::size_t i = 0; i < xv.size(); ++i) xv[i] = 0.37f * static_cast<float>(i) - 4.1f;
  for (std::size_t i = 0; i < rv.size(); ++i) rv[i] = 1.0f / (1.5f + static_cast<float>(i));
  gv = {0.5f, -0.0f, 1e-3f, 2.0f};
  mv = {1e30f, -3.0f, 0.1f};
  expect_same_bits(g, opt, {ops::HostTensor::from_f32({2, 3, 4}, xv), ops::HostTensor::from_f32({2, 3, 1}, rv),
                            ops::HostTensor::from_f32({4}, gv), ops::HostTensor::from_f32({1, 3, 1}, mv)});
  EXPECT_EQ(optimise(opt, {"fuse"}).fingerprint(), opt.fingerprint());

  // [3] + [2,3] widens its [3] operand: the add (shape [2,3]) may root a group, but exp([3])
  // may not join it as a member.
  Graph h;
  GraphBuilder c(h);
  ValueRef a = c.param("a", 0, t({3}));
  ValueRef bb = c.param("b", 1, t({2, 3}));
  auto e = c.op("exp", {a}, t({3}));
  c.export_region("f", {a, bb}, {c.op("relu", {c.op("add", {e, bb}, t({2, 3}))}, t({2, 3}))});
  Graph hopt = optimise(h, {"fuse", "dce"});
  const Node& hc = hopt.node(hopt.region(hopt.exports().at("f")).results[0].node);
  ASSERT_EQ(hc.opcode, "call");
  EXPECT_EQ(hopt.node(hc.inputs[0].node).opcode, "exp");
}

TEST(Fuse, SurvivesTheDefaultPipelineAndInlineKeepsFusedCalls) {
  Graph g;
  GraphBuilder b(g);
  auto x = b.param("x", 0, kMat), y = b.param("y", 1, kMat);
  b.export_region("f", {x, y}, {b.op("relu", {b.op("div", {x, y}, kMat)}, kMat)});
  Graph opt = optimise(g, {});
  std::size_t calls = 0;
  for (const auto& n : opt.nodes()) calls += n.opcode == "call" && n.attrs.count("fusion");
  EXPECT_EQ(calls, 1u);
  expect_same_bits(g, opt, args2());
}

TEST(Layout, TransposeFeedingMatmulFoldsIntoItsFlag) {
  Graph g;
  GraphBuilder b(g);
  auto x = b.param("x", 0, kMat), y = b.param("y", 1, kMat);
  auto xt = b.op("transpose", {x}, tensor(DType::f32, {Dim::fixed(3), Dim::fixed(2)}));
  auto sq = tensor(DType::f32, {Dim::fixed(3), Dim::fixed(3)});
  auto m = b.op("matmul", {xt, y}, sq);  // x^T y
  auto yt = b.op("transpose", {y}, tensor(DType::f32, {Dim::fixed(3), Dim::fixed(2)}), {{"perm", std::vector<std::int64_t>{1, 0}}});
  auto n = b.op("matmul", {xt, yt}, tensor(DType::f32, {Dim::fixed(2), Dim::fixed(2)}), {{"transpose_a", true}});  // (x^T)^T y^T
  b.export_region("f", {x, y}, {m, n});
  Graph opt = optimise(g, {"layout", "dce"});
  const Region& f = opt.region(opt.exports().at("f"));
  const Node& mm = opt.node(f.results[0].node);
  EXPECT_EQ(mm.opcode, "matmul");
  EXPECT_TRUE(mm.attrs.at("transpose_a").as<bool>());
  EXPECT_EQ(opt.node(mm.inputs[0].node).opcode, "param");
  const Node& mn = opt.node(f.results[1].node);
  EXPECT_EQ(mn.attrs.count("transpose_a"), 0u);  // toggled back to the default
  EXPECT_TRUE(mn.attrs.at("transpose_b").as<bool>());
  EXPECT_EQ(opt.node(mn.inputs[0].node).opcode, "param");
  EXPECT_EQ(opt.node(mn.inputs[1].node).opcode, "param");
  for (const auto& node : opt.nodes()) EXPECT_NE(node.opcode, "transpose");
  expect_same_bits(g, opt, args2());
}

TEST(Layout, LeavesOtherPermutationsAlone) {
  Graph g;
  GraphBuilder b(g);
  auto t3 = tensor(DType::f32, {Dim::fixed(2), Dim::fixed(3), Dim::fixed(4)});
  auto x = b.param("x", 0, t3);
  auto xt = b.op("transpose", {x}, tensor(DType::f32, {Dim::fixed(4), Dim::fixed(3), Dim::fixed(2)}));  // reverses 3 axes
  auto w = b.param("w", 1, tensor(DType::f32, {Dim::fixed(2), Dim::fixed(5)}));
  b.export_region("f", {x, w}, {b.op("matmul", {xt, w}, tensor(DType::f32, {Dim::fixed(4), Dim::fixed(3), Dim::fixed(5)}))});
  Graph opt = optimise(g, {"layout"});
  EXPECT_EQ(opt.fingerprint(), g.fingerprint());
}

}  // namespace rung
