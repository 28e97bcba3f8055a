// Gradcheck: every gradient rule against central finite differences of the op's own
// forward on the reference backend. Inputs are f64 where the op admits it (differences in
// double are accurate to ~1e-9), else f32 with a step and tolerance sized for single
// precision. The loss is sum(op(x...) * w) with a fixed random w, so the cotangent is not
// uniform and a rule that ignores it fails.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "autodiff/autodiff.h"
#include "backends/reference/reference_backend.h"
#include "ir/graph/builder.h"
#include "ops/registry.h"
#include "ops/typing.h"
#include "autodiff/gradcheck.h"
#include "autodiff/gradient_rule.h"

namespace rung {

TEST(Gradcheck, EveryRegistryOpHasARuleOrIsDeclaredNotDifferentiable) {
  EXPECT_EQ(autodiff::ops_without_gradient(), std::vector<std::string>{});
  EXPECT_FALSE(autodiff::non_differentiable_ops().empty());
}

// Every differentiable op: each built-in case passes gradcheck against binary64 central
// differences, and the f64 path's forward agrees with the op's own kernel.
TEST(Gradcheck, EveryDifferentiableOp) {
  autodiff::GradcheckOptions o;
  std::size_t checked = 0;
  for (const ops::OpDef* op : ops::op_registry().all()) {
    if (op->gradient && !op->gradient->differentiable()) continue;
    auto cases = autodiff::builtin_cases(op->name);
    EXPECT_FALSE(cases.empty()) << op->name << " has no gradcheck case";
    for (const auto& c : cases) {
      SCOPED_TRACE(c.label);
      DiagnosticSink d;
      auto rep = autodiff::gradcheck_op(c, o, d);
      ASSERT_TRUE(rep) << (d.empty() ? "" : d.all()[0].code + " " + d.all()[0].message);
      EXPECT_TRUE(rep->ok()) << rep->table(o);
      EXPECT_FALSE(rep->inputs.empty());
      ++checked;
    }
  }
  EXPECT_GT(checked, 60u);
}

// A wrong rule must fail: sin's rule is swapped for one with the sign flipped, and for
// one that ignores the incoming cotangent; gradcheck reports both, then the rule is restored.
TEST(Gradcheck, DetectsWrongRules) {
  autodiff::ensure_gradient_rules();
  const ops::OpDef* sin = ops::op_registry().find("sin");
  const ops::GradientRule* good = sin->gradient;
  ops::GradientRule flipped([](autodiff::Emitter& e, const autodiff::GradArgs& a) -> std::vector<std::optional<ValueRef>> {
    return {e.op("neg", {e.op("mul", {a.output_grads[0], e.op("cos", {a.inputs[0]})})})};
  });
  ops::GradientRule no_cotangent([](autodiff::Emitter& e, const autodiff::GradArgs& a) -> std::vector<std::optional<ValueRef>> {
    return {e.op("cos", {a.inputs[0]})};
  });
  autodiff::OpCase c{"sin", {{{4}, DType::f32, autodiff::OpCase::Input::Kind::real, 0, std::nullopt}}, {}, "sin"};
  autodiff::GradcheckOptions o;
  for (const ops::GradientRule* wrong : {&flipped, &no_cotangent}) {
    ops::op_registry().set_gradient(sin->id, wrong);
    DiagnosticSink d;
    auto rep = autodiff::gradcheck_op(c, o, d);
    ops::op_registry().set_gradient(sin->id, good);
    ASSERT_TRUE(rep);
    EXPECT_FALSE(rep->ok());
    EXPECT_NE(rep->table(o).find("FAIL"), std::string::npos);
  }
  DiagnosticSink d;
  EXPECT_TRUE(autodiff::gradcheck_op(c, o, d)->ok());
}

TEST(Autodiff, SharedValuesAccumulateAndParametersWithoutPathGetZeros) {
  Graph g;
  GraphBuilder b(g);
  auto t = tensor(DType::f64, {Dim::fixed(3)});
  auto x = b.param("x", 0, t);
  auto unused = b.param("u", 1, t);
  auto y = b.op("mul", {x, x}, t);  // x used twice by one node, and again below
  auto z = b.op("add", {y, x}, t);
  auto loss = b.op("sum", {z}, tensor(DType::f64, {}), {{"axes", std::vector<std::int64_t>{}}, {"keepdims", false}});
  RegionId f = b.region("f", {x, unused}, {loss});
  DiagnosticSink d;
  std::vector<std::size_t> wrt{0, 1};
  auto gr = autodiff::differentiate(g, f, wrt, d);
  ASSERT_TRUE(gr);
  double xs[3] = {1, 2, -3};
  std::vector<ops::HostTensor> args = {ops::HostTensor::from_f64({3}, xs), ops::HostTensor::from_f64({3}, xs)};
  auto out = reference::run_region(g, *gr, args, d);
  ASSERT_TRUE(out);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ((*out)[1].load_f64(i), 2 * xs[i] + 1);  // d/dx (x^2 + x)
    EXPECT_EQ((*out)[2].load_f64(i), 0.0);
  }
  // Bit-identical on a second differentiation of an equal graph.
  Graph g2;
  GraphBuilder b2(g2);
  (void)b2;
  EXPECT_EQ(g.region(*gr).hash, g.region(*autodiff::differentiate(g, f, wrt, d)).hash);
}

TEST(Autodiff, ErrorsAreDiagnostics) {
  Graph g;
  GraphBuilder b(g);
  auto t = tensor(DType::f32, {Dim::fixed(3)});
  auto x = b.param("x", 0, t);
  RegionId not_scalar = b.region("f", {x}, {b.op("exp", {x}, t)});
  DiagnosticSink d;
  std::vector<std::size_t> wrt{0};
  EXPECT_FALSE(autodiff::differentiate(g, not_scalar, wrt, d));
  EXPECT_TRUE(d.contains("D0001"));
  // Through an op declared not differentiable: D0002 names it.
  auto t32 = tensor(DType::f32, {Dim::fixed(32)});
  auto x32 = b.param("x", 0, t32);
  auto q = b.op("quantize", {x32}, tensor(DType::q8_0, {Dim::fixed(32)}), {{"to", DType::q8_0}});
  auto back = b.op("dequantize", {q}, t32, {{"to", DType::f32}});
  auto s = b.op("sum", {back}, tensor(DType::f32, {}), {{"axes", std::vector<std::int64_t>{}}, {"keepdims", false}});
  RegionId no_rule = b.region("g", {x32}, {s});
  DiagnosticSink d2;
  EXPECT_FALSE(autodiff::differentiate(g, no_rule, wrt, d2));
  ASSERT_TRUE(d2.contains("D0002"));
  EXPECT_NE(d2.all()[0].message.find("`dequantize` is not differentiable"), std::string::npos) << d2.all()[0].message;
  // A rule that cannot handle this node: D0004 with the reason (rope needs a static sequence length).
  auto sym = tensor(DType::f32, {Dim::symbol("S"), Dim::fixed(4)});
  auto xs = b.param("x", 0, sym);
  auto roped = b.op("rope", {xs}, sym);
  RegionId dyn = b.region("h", {xs}, {b.op("sum", {roped}, tensor(DType::f32, {}), {{"axes", std::vector<std::int64_t>{}}, {"keepdims", false}})});
  DiagnosticSink d4;
  EXPECT_FALSE(autodiff::differentiate(g, dyn, wrt, d4));
  ASSERT_TRUE(d4.contains("D0004"));
  EXPECT_NE(d4.all()[0].message.find("static sequence length"), std::string::npos) << d4.all()[0].message;
  DiagnosticSink d3;
  std::vector<std::size_t> bad{5};
  EXPECT_FALSE(autodiff::differentiate(g, no_rule, bad, d3));
  EXPECT_TRUE(d3.contains("D0003"));
}

TEST(Autodiff, SoftmaxRegressionLearns) {
  // loss = -mean(sum(onehot * log_softmax(x W + b), axis 1)); a few steps of gradient
  // descent on a separable toy problem must lower it.
  Graph g;
  GraphBuilder b(g);
  auto f32 = [](std::initializer_list<Dim> d) { return tensor(DType::f32, d); };
  Dim N = Dim::symbol("N");
  auto x = b.param("x", 0, f32({N, Dim::fixed(2)}));
  auto y = b.param("y", 1, f32({N, Dim::fixed(2)}));
  auto w = b.param("w", 2, f32({Dim::fixed(2), Dim::fixed(2)}));
  auto bias = b.param("b", 3, f32({Dim::fixed(2)}));
  auto logits = b.op("add", {b.op("matmul", {x, w}, f32({N, Dim::fixed(2)})), bias}, f32({N, Dim::fixed(2)}));
  auto lsm = b.op("log_softmax", {logits}, f32({N, Dim::fixed(2)}), {{"axis", std::int64_t{-1}}});
  auto picked = b.op("sum", {b.op("mul", {y, lsm}, f32({N, Dim::fixed(2)}))}, f32({N}),
                     {{"axes", std::vector<std::int64_t>{1}}, {"keepdims", false}});
  auto loss = b.op("neg", {b.op("mean", {picked}, f32({}), {{"axes", std::vector<std::int64_t>{}}, {"keepdims", false}})}, f32({}));
  RegionId f = b.region("loss", {x, y, w, bias}, {loss});
  DiagnosticSink d;
  std::vector<std::size_t> wrt{2, 3};
  auto gr = autodiff::differentiate(g, f, wrt, d);
  ASSERT_TRUE(gr) << (d.empty() ? "" : d.all()[0].message);

  float xs[8] = {1, 0, 0.9f, 0.2f, 0, 1, 0.1f, 0.8f}, ys[8] = {1, 0, 1, 0, 0, 1, 0, 1};
  std::vector<float> wv(4, 0.0f), bv(2, 0.0f);
  float first = 0, last = 0;
  for (int step = 0; step < 20; ++step) {
    std::vector<ops::HostTensor> args = {ops::HostTensor::from_f32({4, 2}, xs), ops::HostTensor::from_f32({4, 2}, ys),
                                         ops::HostTensor::from_f32({2, 2}, wv), ops::HostTensor::from_f32({2}, bv)};
    auto out = reference::run_region(g, *gr, args, d);
    ASSERT_TRUE(out);
    float l = (*out)[0].load_f32(0);
    if (step == 0) first = l;
    last = l;
    for (int i = 0; i < 4; ++i) wv[i] -= 1.0f * (*out)[1].load_f32(i);
    for (int i = 0; i < 2; ++i) bv[i] -= 1.0f * (*out)[2].load_f32(i);
  }
  EXPECT_NEAR(first, std::log(2.0f), 1e-6);
  EXPECT_LT(last, 0.25f * first);
}

}  // namespace rung


#include "ops/numerics/reduce_tree.h"

namespace rung {

// A value with 40 uses: its gradient is the sum of 40 contributions, which must be added in
// the canonical reduction tree's order (reverse topological order of the uses), not as a
// left fold. The constants are chosen so the two orders round differently.
TEST(Autodiff, ContributionsAddInTheCanonicalReductionOrder) {
  Graph g;
  GraphBuilder b(g);
  auto t1 = tensor(DType::f32, {Dim::fixed(1)});
  auto x = b.param("x", 0, t1);
  std::vector<float> c(40);
  for (int k = 0; k < 40; ++k) c[k] = (k % 3 == 0 ? 1e8f : k % 3 == 1 ? 1.0f : -1e8f) * (1.0f + 0.01f * static_cast<float>(k));
  std::vector<ValueRef> ys;
  for (int k = 0; k < 40; ++k) ys.push_back(b.op("mul", {x, b.constant_f32({Dim::fixed(1)}, std::span<const float>(&c[k], 1))}, t1));
  auto all = b.op("concat", ys, tensor(DType::f32, {Dim::fixed(40)}));
  auto loss = b.op("sum", {all}, tensor(DType::f32, {}), {{"axes", std::vector<std::int64_t>{}}, {"keepdims", false}});
  RegionId f = b.region("f", {x}, {loss});
  DiagnosticSink d;
  std::vector<std::size_t> wrt{0};
  auto gr = autodiff::differentiate(g, f, wrt, d);
  ASSERT_TRUE(gr) << (d.empty() ? "" : d.all()[0].message);
  float one = 1.0f;
  std::vector<ops::HostTensor> args = {ops::HostTensor::from_f32({1}, std::span<const float>(&one, 1))};
  auto out = reference::run_region(g, *gr, args, d);
  ASSERT_TRUE(out);
  // Contributions arrive in reverse topological order of the uses: c[39], c[38], ..., c[0].
  float canonical = num::canonical_sum<float>(40, [&](std::uint64_t i) { return c[39 - i]; });
  float left_fold = c[39];
  for (int k = 38; k >= 0; --k) left_fold = left_fold + c[k];
  ASSERT_NE(canonical, left_fold);  // the orders differ for these values, so the check means something
  EXPECT_EQ((*out)[1].load_f32(0), canonical);
}

}  // namespace rung
