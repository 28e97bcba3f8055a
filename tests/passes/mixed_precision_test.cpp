// mixed_bf16: the heavy ops compute in bf16 while parameters, the loss and the update stay
// f32; a least-squares fit still converges with the gradient regions rewritten too.
#include <gtest/gtest.h>

#include <cmath>

#include "autodiff/autodiff.h"
#include "backends/reference/reference_backend.h"
#include "ir/graph/builder.h"
#include "ops/evaluate.h"
#include "passes/pass.h"

namespace rung {

TEST(MixedBf16, HeavyOpsComputeInBf16AndTrainingStillConverges) {
  Graph g;
  GraphBuilder b(g);
  auto f32 = [](std::initializer_list<Dim> d) { return tensor(DType::f32, d); };
  auto x = b.param("x", 0, f32({Dim::fixed(8), Dim::fixed(4)}));
  auto y = b.param("y", 1, f32({Dim::fixed(8), Dim::fixed(2)}));
  auto w = b.param("w", 2, f32({Dim::fixed(4), Dim::fixed(2)}));
  auto pred = b.op("matmul", {x, w}, f32({Dim::fixed(8), Dim::fixed(2)}));
  auto loss = b.op("mse", {pred, y}, f32({}));
  RegionId f = b.region("loss", {x, y, w}, {loss});
  DiagnosticSink d;
  std::vector<std::size_t> wrt{2};
  auto gr = autodiff::differentiate(g, f, wrt, d);
  ASSERT_TRUE(gr);
  g.set_export("step", *gr);

  PipelineOptions o;
  o.passes = {"mixed_bf16", "dce"};
  PassManager pm(o);
  PassContext ctx{d};
  Graph mixed = g;
  ASSERT_TRUE(pm.run(mixed, ctx)) << (d.empty() ? "" : d.all()[0].message);
  std::size_t bf16_matmuls = 0;
  for (const auto& n : mixed.nodes()) {
    if (n.opcode != "matmul") continue;
    EXPECT_EQ(n.outputs[0].dtype, DType::bf16);
    ++bf16_matmuls;
  }
  EXPECT_EQ(bf16_matmuls, 2u);  // the forward and dW = x^T g
  const Region& step = mixed.region(mixed.exports().at("step"));
  EXPECT_EQ(step.results[1].node != 0, true);
  EXPECT_EQ(mixed.node(step.results[1].node).outputs[step.results[1].output].dtype, DType::f32);  // the gradient stays f32

  // y = x W* for a fixed W*; plain gradient descent on f32 master weights.
  std::vector<float> xs(32), ys(16), ws(8, 0.0f), truth = {0.5f, -1.0f, 1.5f, 0.25f, -0.75f, 2.0f, 1.0f, -0.5f};
  std::uint32_t state = 12345;  // a small LCG: well-conditioned, reproducible inputs
  for (int i = 0; i < 32; ++i) {
    state = state * 1664525u + 1013904223u;
    xs[i] = static_cast<float>(state >> 8) / 16777216.0f * 2.0f - 1.0f;
  }
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 2; ++c) {
      float acc = 0;
      for (int k = 0; k < 4; ++k) acc += xs[r * 4 + k] * truth[k * 2 + c];
      ys[r * 2 + c] = acc;
    }
  float first = 0, last = 0;
  for (int it = 0; it < 200; ++it) {
    std::vector<ops::HostTensor> args = {ops::HostTensor::from_f32({8, 4}, xs), ops::HostTensor::from_f32({8, 2}, ys),
                                         ops::HostTensor::from_f32({4, 2}, ws)};
    auto out = reference::run_region(mixed, mixed.exports().at("step"), args, d);
    ASSERT_TRUE(out) << (d.empty() ? "" : d.all()[0].message);
    if (it == 0) first = (*out)[0].load_f32(0);
    last = (*out)[0].load_f32(0);
    for (int i = 0; i < 8; ++i) ws[i] -= 0.5f * (*out)[1].load_f32(i);  // the f32 master update
  }
  EXPECT_LT(last, 1e-3f * first);
  for (int i = 0; i < 8; ++i) EXPECT_NEAR(ws[i], truth[i], 0.05f);  // bf16 compute, f32 weights: close, not exact
}

}  // namespace rung
