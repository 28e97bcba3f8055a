// Optimizer ops: hand-computed steps (every operation rounds in the documented order), a
// convergence property on a quadratic, and shape errors.
#include <gtest/gtest.h>

#include <cmath>

#include "op_test_util.h"
#include "ops/evaluate.h"

namespace rung::ops {
namespace {
using namespace testing;

std::vector<HostTensor> eval(std::string_view op, std::vector<HostTensor> in, const AttrMap& attrs) {
  DiagnosticSink d;
  auto out = evaluate(op, in, attrs, d);
  EXPECT_TRUE(out) << (d.empty() ? "" : d.all()[0].message);
  return out ? *out : std::vector<HostTensor>{};
}

}  // namespace

TEST(Optim, SgdMomentumStep) {
  auto out = eval("sgd_update", {f32({2}, {1.0f, -2.0f}), f32({2}, {0.5f, 0.25f}), f32({2}, {0.1f, 0.0f})},
                  {{"lr", 0.1}, {"momentum", 0.9}});
  float v0 = 0.9f * 0.1f;
  v0 = v0 + 0.5f;
  float s0 = 0.1f * v0;
  EXPECT_EQ(bits(out[0].load_f32(0)), bits(1.0f - s0));
  EXPECT_EQ(bits(out[1].load_f32(0)), bits(v0));
  EXPECT_EQ(out[1].load_f32(1), 0.25f);
}

TEST(Optim, AdamFirstStepMovesByLrTimesSign) {
  // With pows = [1, 1] the first bias-corrected step is g/|g| (up to eps): p' = p - lr*sign(g).
  auto out = eval("adam_update", {f32({3}, {1, 1, 1}), f32({3}, {0.5f, -4.0f, 0.0f}), f32({3}, {0, 0, 0}), f32({3}, {0, 0, 0}),
                                  f32({2}, {1, 1})},
                  {{"lr", 0.01}});
  EXPECT_NEAR(out[0].load_f32(0), 0.99f, 1e-6);
  EXPECT_NEAR(out[0].load_f32(1), 1.01f, 1e-6);
  EXPECT_EQ(out[0].load_f32(2), 1.0f);
  EXPECT_EQ(bits(out[3].load_f32(0)), bits(0.9f));
  EXPECT_EQ(bits(out[3].load_f32(1)), bits(static_cast<float>(0.999)));
}

TEST(Optim, AdamWDecaysWeightsDirectly) {
  AttrMap a{{"lr", 0.1}, {"weight_decay", 0.5}, {"decoupled", true}};
  auto out = eval("adam_update", {f32({1}, {2}), f32({1}, {0}), f32({1}, {0}), f32({1}, {0}), f32({2}, {1, 1})}, a);
  float u = 0.5f * 2.0f;
  EXPECT_EQ(bits(out[0].load_f32(0)), bits(2.0f - 0.1f * u));  // zero gradient: only the decay moves p
}

TEST(Optim, AdamMinimisesAQuadratic) {
  HostTensor p = f32({2}, {3, -2}), m = f32({2}, {0, 0}), v = f32({2}, {0, 0}), pows = f32({2}, {1, 1});
  for (int step = 0; step < 500; ++step) {
    HostTensor g = f32({2}, {2 * p.load_f32(0), 2 * p.load_f32(1)});  // d/dp |p|^2
    auto out = eval("adam_update", {p, g, m, v, pows}, {{"lr", 0.05}});
    p = out[0], m = out[1], v = out[2], pows = out[3];
  }
  EXPECT_LT(std::fabs(p.load_f32(0)), 1e-2);
  EXPECT_LT(std::fabs(p.load_f32(1)), 1e-2);
}

TEST(Optim, StateMustMatchTheParameter) {
  EXPECT_EQ(eval_codes("sgd_update", {f32({2}, {1, 2}), f32({3}, {1, 2, 3}), f32({2}, {0, 0})}), std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval_codes("adam_update", {f32({1}, {1}), f32({1}, {1}), f32({1}, {0}), f32({1}, {0}), f32({3}, {1, 1, 1})}),
            std::vector<std::string>{"N0011"});
}

}  // namespace rung::ops
