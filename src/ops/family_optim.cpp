// Optimizers as graph ops with explicit state (ids 860-869), so a training step is one
// content-addressed computation and its bits follow the same contract as every other op.
// Each update is defined element by element in f32 with the operation order written below
// and no contraction (every * and + rounds).
//
//   sgd_update(p, g, vel) -> (p', vel')        attrs lr, momentum, weight_decay
//     g1   = g + weight_decay * p              (skipped when weight_decay == 0)
//     vel' = momentum * vel + g1
//     p'   = p - lr * vel'
//
//   adam_update(p, g, m, v, pows) -> (p', m', v', pows')
//        attrs lr, beta1, beta2, eps, weight_decay, decoupled (true: AdamW)
//     pows = [beta1^t, beta2^t] before this step (start at [1, 1]); pows' = pows * [beta1, beta2]
//     g1   = g + weight_decay * p              (Adam with L2; skipped when decoupled or 0)
//     m'   = beta1 * m + (1 - beta1) * g1
//     v'   = beta2 * v + (1 - beta2) * (g1 * g1)
//     mhat = m' / (1 - pows'[0]);  vhat = v' / (1 - pows'[1])
//     u    = mhat / (sqrt(vhat) + eps)         (sqrt correctly rounded)
//     p'   = p - lr * u                        (Adam)
//     p'   = p - lr * (u + weight_decay * p)   (AdamW)
// The bias-correction powers are state, multiplied once per step, rather than pow(beta, t):
// one rounding per step, identical on every backend, no transcendental needed.
#include "ops/numerics/ieee.h"
#include "ops/registry.h"
#include "ops/shape_rules.h"

namespace rung::ops {
namespace {

ShapeResult rule_same_shapes(const ShapeArgs& a, std::size_t n_state, bool pows) {
  const Shape& p = a.inputs[0].shape;
  for (std::size_t i = 1; i < 1 + 1 + n_state; ++i)
    if (a.inputs[i].shape.size() != p.size() ||
        !std::equal(p.begin(), p.end(), a.inputs[i].shape.begin(), [](const Dim& x, const Dim& y) { return same_dim(x, y); }))
      return ShapeResult::fail("operand " + std::to_string(i) + " has shape " + shape_to_string(a.inputs[i].shape) +
                               "; the gradient and optimizer state must have the parameter's shape " + shape_to_string(p));
  std::vector<Shape> out(1 + n_state, p);
  if (pows) {
    const Shape& s = a.inputs.back().shape;
    if (s.size() != 1 || !s[0].is_static() || s[0].extent() != 2)
      return ShapeResult::fail("pows must be f32[2] ([beta1^t, beta2^t]), got " + shape_to_string(s));
    out.push_back(s);
  }
  return ShapeResult::ok(std::move(out));
}

void sgd_kernel(KernelContext& c) {
  const HostTensor &p = c.inputs[0], &g = c.inputs[1], &vel = c.inputs[2];
  const float lr = static_cast<float>(c.attrs.real("lr")), mom = static_cast<float>(c.attrs.real("momentum")),
              wd = static_cast<float>(c.attrs.real("weight_decay"));
  for (std::uint64_t i = 0; i < p.numel(); ++i) {
    float pi = p.load_f32(i), gi = g.load_f32(i);
    if (wd != 0.0f) {
      float d = wd * pi;
      gi = gi + d;
    }
    float m = mom * vel.load_f32(i);
    float v1 = m + gi;
    float step = lr * v1;
    c.outputs[0].store_f32(i, pi - step);
    c.outputs[1].store_f32(i, v1);
  }
}

void adam_kernel(KernelContext& c) {
  const HostTensor &p = c.inputs[0], &g = c.inputs[1], &m = c.inputs[2], &v = c.inputs[3], &pows = c.inputs[4];
  const float lr = static_cast<float>(c.attrs.real("lr")), b1 = static_cast<float>(c.attrs.real("beta1")),
              b2 = static_cast<float>(c.attrs.real("beta2")), eps = static_cast<float>(c.attrs.real("eps")),
              wd = static_cast<float>(c.attrs.real("weight_decay"));
  const bool decoupled = c.attrs.boolean("decoupled");
  const float p1 = pows.load_f32(0) * b1, p2 = pows.load_f32(1) * b2;
  const float c1 = 1.0f - p1, c2 = 1.0f - p2, one_b1 = 1.0f - b1, one_b2 = 1.0f - b2;
  for (std::uint64_t i = 0; i < p.numel(); ++i) {
    float pi = p.load_f32(i), gi = g.load_f32(i);
    if (!decoupled && wd != 0.0f) {
      float d = wd * pi;
      gi = gi + d;
    }
    float ma = b1 * m.load_f32(i), mb = one_b1 * gi, m1 = ma + mb;
    float g2 = gi * gi;
    float va = b2 * v.load_f32(i), vb = one_b2 * g2, v1 = va + vb;
    float mhat = m1 / c1, vhat = v1 / c2;
    float denom = num::sqrt_f32(vhat) + eps;  // correctly rounded
    float u = mhat / denom;
    if (decoupled && wd != 0.0f) {
      float d = wd * pi;
      u = u + d;
    }
    float step = lr * u;
    c.outputs[0].store_f32(i, pi - step);
    c.outputs[1].store_f32(i, m1);
    c.outputs[2].store_f32(i, v1);
  }
  c.outputs[3].store_f32(0, p1);
  c.outputs[3].store_f32(1, p2);
}

}  // namespace

void register_family_optim(OpRegistry& r) {
  using TC = TolClass;
  DTypeSet f32only{DType::f32};
  r.add(OpDef("sgd_update", 860)
            .doc("one SGD step with momentum: (p, g, velocity) -> (p', velocity')")
            .type_var("T", f32only)
            .input("p", "T").input("g", "T").input("velocity", "T")
            .output("p_next", "T").output("velocity_next", "T")
            .attr("lr", 0.01, "learning rate").attr("momentum", 0.0, "momentum factor")
            .attr("weight_decay", 0.0, "L2 penalty added to the gradient")
            .shape([](const ShapeArgs& a) { return rule_same_shapes(a, 1, false); })
            .kernel(sgd_kernel)
            .tolerance_classes(TC::exact, TC::exact, TC::exact));
  r.add(OpDef("adam_update", 861)
            .doc("one Adam/AdamW step: (p, g, m, v, pows) -> (p', m', v', pows'); pows = [beta1^t, beta2^t]")
            .type_var("T", f32only)
            .input("p", "T").input("g", "T").input("m", "T").input("v", "T").input("pows", "T")
            .output("p_next", "T").output("m_next", "T").output("v_next", "T").output("pows_next", "T")
            .attr("lr", 1e-3, "learning rate").attr("beta1", 0.9, "first-moment decay").attr("beta2", 0.999, "second-moment decay")
            .attr("eps", 1e-8, "added to sqrt(v-hat)").attr("weight_decay", 0.0, "L2 (Adam) or decoupled (AdamW) decay")
            .attr("decoupled", false, "AdamW: decay the weights directly instead of through the gradient")
            .shape([](const ShapeArgs& a) { return rule_same_shapes(a, 2, true); })
            .kernel(adam_kernel)
            .tolerance_classes(TC::exact, TC::exact, TC::exact));
}

}  // namespace rung::ops
