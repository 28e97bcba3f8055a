// Gradcheck: every gradient rule against central finite differences of the op's own
// forward on the reference backend. Inputs are f64 where the op admits it (differences in
// double are accurate to ~1e-9), else f32 with a step and tolerance sized for single
// precision. The loss is sum(op(x...) * w) with a fixed random w, so the cotangent is not
// uniform and a rule that ignores it fails.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "autodiff/autodiff.h"
#include "backends/reference/interpreter.h"
#include "ir/graph/builder.h"
#include "ops/registry.h"
#include "ops/typing.h"

namespace rung {
namespace {

struct Case {
  std::string op;
  std::vector<ops::Extents> shapes;
  AttrMap attrs;
  bool positive = false;  // keep inputs away from 0 (log, sqrt, div's divisor)
  DType dtype = DType::f64;
};

TensorType type_of(DType dt, const ops::Extents& e) {
  TensorType t{dt, {}, MemSpace::host};
  for (auto x : e) t.shape.push_back(Dim::fixed(x));
  return t;
}

ops::HostTensor random_tensor(DType dt, const ops::Extents& shape, std::mt19937_64& rng, bool positive) {
  ops::HostTensor t(dt, shape);
  std::uniform_real_distribution<double> u(positive ? 0.5 : -1.5, 1.5);
  for (std::uint64_t i = 0; i < t.numel(); ++i) t.store_f64(i, u(rng));
  return t;
}

double run_loss(const Graph& g, RegionId r, const std::vector<ops::HostTensor>& args) {
  DiagnosticSink d;
  auto out = reference::run_region(g, r, args, d);
  EXPECT_TRUE(out) << (d.empty() ? "" : d.all()[0].message);
  return out ? (*out)[0].load_f64(0) : NAN;
}

void gradcheck(const Case& c) {
  SCOPED_TRACE(c.op);
  const ops::OpDef* def = ops::op_registry().find(c.op);
  ASSERT_NE(def, nullptr);
  Graph g;
  GraphBuilder b(g);
  std::vector<ValueRef> params;
  std::vector<TensorType> types;
  for (std::size_t i = 0; i < c.shapes.size(); ++i) {
    types.push_back(type_of(c.dtype, c.shapes[i]));
    params.push_back(b.param("x" + std::to_string(i), static_cast<std::int64_t>(i), types.back()));
  }
  std::vector<std::string> errors;
  auto typed = ops::infer_types(*def, types, c.attrs, errors);
  ASSERT_TRUE(typed) << (errors.empty() ? "" : errors[0]);
  ValueRef y = b.op(c.op, params, typed->results[0], typed->attrs.map());
  // w: fixed pseudo-random weights with y's shape (as a constant).
  std::mt19937_64 rng(42);
  const TensorType& yt = typed->results[0];
  ops::Extents ye;
  for (const auto& d : yt.shape) ye.push_back(d.extent());
  ops::HostTensor w = random_tensor(c.dtype, ye, rng, false);
  ValueRef wv = b.constant(yt, Bytes(w.bytes().begin(), w.bytes().end()));
  ValueRef prod = b.op("mul", {y, wv}, yt);
  ValueRef loss = b.op("sum", {prod}, tensor(c.dtype, {}), {{"axes", std::vector<std::int64_t>{}}, {"keepdims", false}});
  RegionId f = b.region("loss", params, {loss});

  std::vector<std::size_t> wrt;
  for (std::size_t i = 0; i < params.size(); ++i) wrt.push_back(i);
  DiagnosticSink d;
  auto gr = autodiff::differentiate(g, f, wrt, d);
  ASSERT_TRUE(gr) << (d.empty() ? "" : d.all()[0].message);

  std::vector<ops::HostTensor> args;
  for (const auto& s : c.shapes) args.push_back(random_tensor(c.dtype, s, rng, c.positive));
  DiagnosticSink d2;
  auto grads = reference::run_region(g, *gr, args, d2);
  ASSERT_TRUE(grads) << (d2.empty() ? "" : d2.all()[0].message);
  ASSERT_EQ(grads->size(), 1 + params.size());

  bool f64 = c.dtype == DType::f64;
  double eps = f64 ? 1e-6 : 1e-2, tol = f64 ? 1e-6 : 2e-2;
  for (std::size_t p = 0; p < params.size(); ++p) {
    const ops::HostTensor& analytic = (*grads)[1 + p];
    for (std::uint64_t i = 0; i < args[p].numel(); ++i) {
      auto plus = args, minus = args;
      double x = args[p].load_f64(i);
      plus[p].store_f64(i, x + eps);
      minus[p].store_f64(i, x - eps);
      double numeric = (run_loss(g, f, plus) - run_loss(g, f, minus)) / (plus[p].load_f64(i) - minus[p].load_f64(i));
      double got = analytic.load_f64(i);
      EXPECT_NEAR(got, numeric, tol * (1 + std::fabs(numeric))) << "input " << p << " element " << i;
    }
  }
}

}  // namespace

TEST(Gradcheck, Elementwise) {
  gradcheck({"add", {{2, 3}, {3}}});
  gradcheck({"sub", {{2, 3}, {2, 1}}});
  gradcheck({"mul", {{2, 3}, {2, 3}}});
  gradcheck({"div", {{2, 3}, {3}}, {}, true});
  gradcheck({"neg", {{4}}});
  gradcheck({"square", {{4}}});
  gradcheck({"sqrt", {{4}}, {}, true});
  gradcheck({"relu", {{2, 5}}});
  gradcheck({"exp", {{5}}, {}, false, DType::f32});
  gradcheck({"log", {{5}}, {}, true, DType::f32});
  gradcheck({"tanh", {{5}}, {}, false, DType::f32});
  gradcheck({"sigmoid", {{5}}, {}, false, DType::f32});
  gradcheck({"maximum", {{2, 3}, {3}}});
  gradcheck({"minimum", {{2, 3}, {2, 3}}});
  gradcheck({"abs", {{6}}});
  gradcheck({"reciprocal", {{4}}, {}, true});
  gradcheck({"rsqrt", {{4}}, {}, true});
  gradcheck({"sin", {{5}}, {}, false, DType::f32});
  gradcheck({"cos", {{5}}, {}, false, DType::f32});
  gradcheck({"silu", {{5}}, {}, false, DType::f32});
}

TEST(Gradcheck, LossesAndPlumbing) {
  gradcheck({"mse", {{2, 3}, {2, 3}}, {}, false, DType::f32});
  gradcheck({"mse", {{2, 3}, {2, 3}}, {{"reduction", "sum"}}, false, DType::f32});
  gradcheck({"mse", {{2, 3}, {2, 3}}, {{"reduction", "none"}}, false, DType::f32});
  gradcheck({"transpose", {{2, 3, 4}}, {{"perm", std::vector<std::int64_t>{2, 0, 1}}}});
  gradcheck({"transpose", {{2, 3}}});
  gradcheck({"broadcast_to", {{3}}, {{"shape", Shape{Dim::fixed(2), Dim::fixed(3)}}}});
}

TEST(Gradcheck, LinearAlgebra) {
  gradcheck({"matmul", {{2, 3}, {3, 4}}});
  gradcheck({"matmul", {{3, 2}, {3, 4}}, {{"transpose_a", true}}});
  gradcheck({"matmul", {{2, 3}, {4, 3}}, {{"transpose_b", true}}});
  gradcheck({"matmul", {{3, 2}, {4, 3}}, {{"transpose_a", true}, {"transpose_b", true}}});
  gradcheck({"matmul", {{2, 2, 3}, {3, 4}}});  // batch broadcast: B's gradient sums over the batch
  gradcheck({"linear", {{2, 3}, {4, 3}, {4}}});
  gradcheck({"linear", {{2, 2, 3}, {4, 3}}});
}

TEST(Gradcheck, Reductions) {
  gradcheck({"sum", {{2, 3}}, {{"axes", std::vector<std::int64_t>{1}}}});
  gradcheck({"sum", {{2, 3, 2}}, {{"axes", std::vector<std::int64_t>{0, 2}}, {"keepdims", true}}});
  gradcheck({"mean", {{2, 3}}, {{"axes", std::vector<std::int64_t>{0}}}});
  gradcheck({"mean", {{2, 3}}});
  gradcheck({"softmax", {{2, 4}}, {}, false, DType::f32});
  gradcheck({"log_softmax", {{2, 4}}, {{"axis", std::int64_t{0}}}, false, DType::f32});
  gradcheck({"logsumexp", {{2, 4}}, {{"axes", std::vector<std::int64_t>{1}}}, false, DType::f32});
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
  auto s = b.op("sum", {b.op("erf", {x}, t)}, tensor(DType::f32, {}), {{"axes", std::vector<std::int64_t>{}}, {"keepdims", false}});
  RegionId no_rule = b.region("g", {x}, {s});
  DiagnosticSink d2;
  EXPECT_FALSE(autodiff::differentiate(g, no_rule, wrt, d2));
  ASSERT_TRUE(d2.contains("D0002"));
  EXPECT_NE(d2.all()[0].message.find("`erf`"), std::string::npos);
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

namespace rung {

// cross_entropy takes integer targets, so it gets its own harness: logits are the only
// parameter, targets a constant (with one ignored row in the ignore_index case).
void gradcheck_cross_entropy(const std::string& reduction, bool with_ignore) {
  SCOPED_TRACE(reduction + (with_ignore ? " with ignore_index" : ""));
  Graph g;
  GraphBuilder b(g);
  auto lt = tensor(DType::f32, {Dim::fixed(3), Dim::fixed(4)});
  auto logits = b.param("logits", 0, lt);
  std::int64_t tv[3] = {2, 0, 3};
  ops::HostTensor tt = ops::HostTensor::from_i64({3}, tv);
  auto targets = b.constant(tensor(DType::i64, {Dim::fixed(3)}), Bytes(tt.bytes().begin(), tt.bytes().end()));
  AttrMap attrs{{"reduction", reduction}};
  if (with_ignore) attrs.emplace("ignore_index", std::int64_t{0});
  TensorType out = reduction == "none" ? tensor(DType::f32, {Dim::fixed(3)}) : tensor(DType::f32, {});
  auto y = b.op("cross_entropy", {logits, targets}, out, attrs);
  float wv[3] = {0.7f, -1.3f, 2.0f};
  ValueRef loss = y;
  if (reduction == "none")
    loss = b.op("sum", {b.op("mul", {y, b.constant_f32({Dim::fixed(3)}, wv)}, out)}, tensor(DType::f32, {}),
                {{"axes", std::vector<std::int64_t>{}}, {"keepdims", false}});
  RegionId f = b.region("loss", {logits}, {loss});
  DiagnosticSink d;
  std::vector<std::size_t> wrt{0};
  auto gr = autodiff::differentiate(g, f, wrt, d);
  ASSERT_TRUE(gr) << (d.empty() ? "" : d.all()[0].message);
  float lv[12] = {0.1f, -0.4f, 1.2f, 0.3f, -1.0f, 0.5f, 0.0f, 0.8f, 0.6f, -0.2f, 0.9f, -1.5f};
  std::vector<ops::HostTensor> args = {ops::HostTensor::from_f32({3, 4}, lv)};
  auto grads = reference::run_region(g, *gr, args, d);
  ASSERT_TRUE(grads) << (d.empty() ? "" : d.all()[0].message);
  for (int i = 0; i < 12; ++i) {
    auto plus = args, minus = args;
    plus[0].store_f32(i, lv[i] + 1e-2f);
    minus[0].store_f32(i, lv[i] - 1e-2f);
    double numeric = (run_loss(g, f, plus) - run_loss(g, f, minus)) / (plus[0].load_f64(i) - minus[0].load_f64(i));
    EXPECT_NEAR((*grads)[1].load_f64(i), numeric, 2e-2 * (1 + std::fabs(numeric))) << "element " << i;
  }
}

TEST(Gradcheck, CrossEntropy) {
  gradcheck_cross_entropy("mean", false);
  gradcheck_cross_entropy("sum", false);
  gradcheck_cross_entropy("none", false);
  gradcheck_cross_entropy("mean", true);
}

}  // namespace rung
