// Gradients of elementwise ops. Binary ops broadcast, so each operand's cotangent is summed
// back to its own shape (Emitter::reduce_like). Rules reuse forward outputs (exp's
// gradient multiplies by y = exp(x) instead of recomputing it).
#include "autodiff/rules_common.h"

namespace rung::autodiff {

void register_elementwise_rules() {
  auto zero_of = [](Emitter& e, ValueRef like) { return e.scalar(e.type(like).dtype, 0.0); };
  auto one_of = [](Emitter& e, ValueRef like) { return e.scalar(e.type(like).dtype, 1.0); };

  define_rule("add", [](Emitter& e, const GradArgs& a) -> Grads {
    return {e.reduce_like(a.output_grads[0], a.inputs[0]), e.reduce_like(a.output_grads[0], a.inputs[1])};
  });
  define_rule("sub", [](Emitter& e, const GradArgs& a) -> Grads {
    ValueRef g = a.output_grads[0];
    return {e.reduce_like(g, a.inputs[0]), e.reduce_like(e.op("neg", {g}), a.inputs[1])};
  });
  define_rule("mul", [](Emitter& e, const GradArgs& a) -> Grads {
    ValueRef g = a.output_grads[0];
    return {e.reduce_like(e.op("mul", {g, a.inputs[1]}), a.inputs[0]), e.reduce_like(e.op("mul", {g, a.inputs[0]}), a.inputs[1])};
  });
  define_rule("div", [](Emitter& e, const GradArgs& a) -> Grads {
    // y = a / b: da = g / b, db = -g * y / b
    ValueRef g = a.output_grads[0], b = a.inputs[1];
    ValueRef da = e.op("div", {g, b});
    ValueRef db = e.op("neg", {e.op("div", {e.op("mul", {g, a.outputs[0]}), b})});
    return {e.reduce_like(da, a.inputs[0]), e.reduce_like(db, b)};
  });
  define_rule("neg", [](Emitter& e, const GradArgs& a) -> Grads { return {e.op("neg", {a.output_grads[0]})}; });
  define_rule("exp", [](Emitter& e, const GradArgs& a) -> Grads { return {e.op("mul", {a.output_grads[0], a.outputs[0]})}; });
  define_rule("log", [](Emitter& e, const GradArgs& a) -> Grads { return {e.op("div", {a.output_grads[0], a.inputs[0]})}; });
  define_rule("square", [](Emitter& e, const GradArgs& a) -> Grads {
    ValueRef two_x = e.op("mul", {a.inputs[0], e.scalar(e.type(a.inputs[0]).dtype, 2.0)});
    return {e.op("mul", {a.output_grads[0], two_x})};
  });
  define_rule("sqrt", [](Emitter& e, const GradArgs& a) -> Grads {
    ValueRef two_y = e.op("mul", {a.outputs[0], e.scalar(e.type(a.outputs[0]).dtype, 2.0)});
    return {e.op("div", {a.output_grads[0], two_y})};
  });
  define_rule("tanh", [one_of](Emitter& e, const GradArgs& a) -> Grads {
    ValueRef y = a.outputs[0];
    return {e.op("mul", {a.output_grads[0], e.op("sub", {one_of(e, y), e.op("square", {y})})})};
  });
  define_rule("sigmoid", [one_of](Emitter& e, const GradArgs& a) -> Grads {
    ValueRef y = a.outputs[0];
    return {e.op("mul", {a.output_grads[0], e.op("mul", {y, e.op("sub", {one_of(e, y), y})})})};
  });
  define_rule("relu", [zero_of](Emitter& e, const GradArgs& a) -> Grads {
    // The derivative at 0 is taken as 0 (and NaN inputs pass no gradient).
    ValueRef x = a.inputs[0];
    ValueRef positive = e.op("gt", {x, zero_of(e, x)});
    return {e.op("where", {positive, a.output_grads[0], zero_of(e, x)})};
  });
  define_rule("where", [zero_of](Emitter& e, const GradArgs& a) -> Grads {
    ValueRef g = a.output_grads[0], c = a.inputs[0];
    ValueRef z = zero_of(e, g);
    return {std::nullopt, e.reduce_like(e.op("where", {c, g, z}), a.inputs[1]), e.reduce_like(e.op("where", {c, z, g}), a.inputs[2])};
  });
  define_rule("maximum", [zero_of](Emitter& e, const GradArgs& a) -> Grads {
    // Ties send the gradient to the first operand.
    ValueRef g = a.output_grads[0], x = a.inputs[0], y = a.inputs[1];
    ValueRef first = e.op("ge", {x, y});
    return {e.reduce_like(e.op("where", {first, g, zero_of(e, g)}), x), e.reduce_like(e.op("where", {first, zero_of(e, g), g}), y)};
  });
  define_rule("minimum", [zero_of](Emitter& e, const GradArgs& a) -> Grads {
    ValueRef g = a.output_grads[0], x = a.inputs[0], y = a.inputs[1];
    ValueRef first = e.op("le", {x, y});
    return {e.reduce_like(e.op("where", {first, g, zero_of(e, g)}), x), e.reduce_like(e.op("where", {first, zero_of(e, g), g}), y)};
  });
  define_rule("abs", [zero_of](Emitter& e, const GradArgs& a) -> Grads {
    // sign(x) * g, with 0 at x == 0.
    ValueRef x = a.inputs[0], g = a.output_grads[0], z = zero_of(e, x);
    ValueRef neg_part = e.op("where", {e.op("lt", {x, z}), e.op("neg", {g}), z});
    return {e.op("where", {e.op("gt", {x, z}), g, neg_part})};
  });
  define_rule("reciprocal", [](Emitter& e, const GradArgs& a) -> Grads {
    ValueRef y = a.outputs[0];
    return {e.op("neg", {e.op("mul", {a.output_grads[0], e.op("square", {y})})})};
  });
  define_rule("rsqrt", [](Emitter& e, const GradArgs& a) -> Grads {
    // y = x^-1/2: dx = -g * y^3 / 2
    ValueRef y = a.outputs[0];
    ValueRef y3 = e.op("mul", {e.op("square", {y}), y});
    ValueRef half = e.scalar(e.type(y).dtype, 0.5);
    return {e.op("neg", {e.op("mul", {e.op("mul", {a.output_grads[0], y3}), half})})};
  });
  define_rule("sin", [](Emitter& e, const GradArgs& a) -> Grads {
    return {e.op("mul", {a.output_grads[0], e.op("cos", {a.inputs[0]})})};
  });
  define_rule("cos", [](Emitter& e, const GradArgs& a) -> Grads {
    return {e.op("neg", {e.op("mul", {a.output_grads[0], e.op("sin", {a.inputs[0]})})})};
  });
  define_rule("silu", [one_of](Emitter& e, const GradArgs& a) -> Grads {
    // y = x s(x): dy/dx = s + x s (1 - s)
    ValueRef x = a.inputs[0];
    ValueRef s = e.op("sigmoid", {x});
    ValueRef xs1 = e.op("mul", {e.op("mul", {x, s}), e.op("sub", {one_of(e, s), s})});
    return {e.op("mul", {a.output_grads[0], e.op("add", {s, xs1})})};
  });
  define_rule("expand_like", [](Emitter& e, const GradArgs& a) -> Grads {
    // y = x broadcast (with re-inserted axes) to like: sum back.
    ValueRef g = a.output_grads[0];
    const auto& axes = a.attrs.integers("axes");
    if (!axes.empty()) g = e.op("sum", {g}, {{"axes", axes}, {"keepdims", false}});
    return {e.reduce_like(g, a.inputs[0]), std::nullopt};
  });
}

}  // namespace rung::autodiff
