// Custom ops: a call with a user-written gradient region is differentiated with that
// region (not by inlining), and verify_custom_gradient gradchecks the region against the
// op's own forward: a correct gradient passes, a wrong one or a wrong signature does not.
#include <gtest/gtest.h>

#include <cmath>

#include "autodiff/autodiff.h"
#include "autodiff/gradcheck.h"
#include "backends/reference/reference_backend.h"
#include "ir/graph/builder.h"
#include "ir/graph/walk.h"

namespace rung {
namespace {

const TensorType kVec = tensor(DType::f32, {Dim::fixed(4)});
const TensorType kScalar = tensor(DType::f32, {});

struct Softplus {
  Graph g;
  RegionId op = 0, good = 0, wrong = 0, bad_signature = 0;
};

// softplus(x) = log(1 + e^x); its gradient g * sigmoid(x); a wrong one g * e^x.
Softplus make() {
  Softplus s;
  GraphBuilder b(s.g);
  float one = 1.0f;
  auto x = b.param("x", 0, kVec);
  s.op = b.region("softplus", {x}, {b.op("log", {b.op("add", {b.op("exp", {x}, kVec), b.constant_f32({}, std::span<const float>(&one, 1))}, kVec)}, kVec)});
  auto gx = b.param("x", 0, kVec), gg = b.param("g", 1, kVec);
  s.good = b.region("softplus_grad", {gx, gg}, {b.op("mul", {gg, b.op("sigmoid", {gx}, kVec)}, kVec)});
  s.wrong = b.region("softplus_grad_wrong", {gx, gg}, {b.op("mul", {gg, b.op("exp", {gx}, kVec)}, kVec)});
  s.bad_signature = b.region("softplus_grad_bad", {gx}, {b.op("sigmoid", {gx}, kVec)});
  return s;
}

}  // namespace

TEST(CustomOp, DifferentiateUsesTheUserGradient) {
  Softplus s = make();
  GraphBuilder b(s.g);
  auto x = b.param("x", 0, kVec);
  auto y = b.op_multi("call", {x}, {kVec}, {{"callee", s.g.region(s.op).hash}, {autodiff::kCustomGradAttr, s.g.region(s.good).hash}})[0];
  auto loss = b.op("sum", {y}, kScalar, {{"axes", std::vector<std::int64_t>{}}, {"keepdims", false}});
  RegionId f = b.region("loss", {x}, {loss});
  DiagnosticSink d;
  std::vector<std::size_t> wrt{0};
  auto gr = autodiff::differentiate(s.g, f, wrt, d);
  ASSERT_TRUE(gr) << (d.empty() ? "" : d.all()[0].message);
  bool calls_grad = false;
  for (NodeId n : nodes_in_region(s.g, s.g.region(*gr))) {
    const Node& node = s.g.node(n);
    if (node.opcode == "call" && node.attrs.at("callee").as<Hash256>() == s.g.region(s.good).hash) calls_grad = true;
  }
  EXPECT_TRUE(calls_grad);
  float xs[4] = {-2.0f, -0.5f, 0.0f, 1.5f};
  std::vector<ops::HostTensor> args = {ops::HostTensor::from_f32({4}, xs)};
  auto out = reference::run_region(s.g, *gr, args, d);
  ASSERT_TRUE(out);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR((*out)[1].load_f32(i), 1.0 / (1.0 + std::exp(-xs[i])), 1e-6);
}

TEST(CustomOp, VerificationPassesACorrectGradientAndRejectsWrongOnes) {
  Softplus s = make();
  autodiff::GradcheckOptions o;
  DiagnosticSink d;
  auto good = autodiff::verify_custom_gradient(s.g, s.op, s.good, o, d);
  ASSERT_TRUE(good) << (d.empty() ? "" : d.all()[0].message);
  EXPECT_TRUE(good->ok()) << good->table(o);
  auto wrong = autodiff::verify_custom_gradient(s.g, s.op, s.wrong, o, d);
  ASSERT_TRUE(wrong);
  EXPECT_FALSE(wrong->ok());
  DiagnosticSink d2;
  EXPECT_FALSE(autodiff::verify_custom_gradient(s.g, s.op, s.bad_signature, o, d2));
  EXPECT_TRUE(d2.contains("D0021"));
}

}  // namespace rung
