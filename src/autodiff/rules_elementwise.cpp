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
  define_rule("remainder", [](Emitter& e, const GradArgs& a) -> Grads {
    // y = a - trunc(a / b) * b: da = g, db = -g * trunc(a / b) = -g * (a - y) / b (a step
    // function of a and b, so its own derivative is 0 away from the jumps).
    ValueRef g = a.output_grads[0], x = a.inputs[0], b = a.inputs[1];
    ValueRef q = e.op("div", {e.op("sub", {x, a.outputs[0]}), b});
    return {e.reduce_like(g, x), e.reduce_like(e.op("neg", {e.op("mul", {g, q})}), b)};
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
  for (const char* op : {"floor", "ceil", "round"}) {
    // Piecewise constant: the derivative is 0 wherever it exists (as in PyTorch and JAX).
    define_rule(op, [](Emitter& e, const GradArgs& a) -> Grads { return {e.op("zeros_like", {a.inputs[0]})}; });
  }
  define_rule("asin", [one_of](Emitter& e, const GradArgs& a) -> Grads {
    // d asin(x) = 1 / sqrt(1 - x^2); d acos(x) is its negation.
    ValueRef x = a.inputs[0];
    return {e.op("div", {a.output_grads[0], e.op("sqrt", {e.op("sub", {one_of(e, x), e.op("square", {x})})})})};
  });
  define_rule("acos", [one_of](Emitter& e, const GradArgs& a) -> Grads {
    ValueRef x = a.inputs[0];
    return {e.op("neg", {e.op("div", {a.output_grads[0], e.op("sqrt", {e.op("sub", {one_of(e, x), e.op("square", {x})})})})})};
  });
  define_rule("atan", [one_of](Emitter& e, const GradArgs& a) -> Grads {
    ValueRef x = a.inputs[0];
    return {e.op("div", {a.output_grads[0], e.op("add", {one_of(e, x), e.op("square", {x})})})};
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
  define_rule("erf", [](Emitter& e, const GradArgs& a) -> Grads {
    // d erf(x) = 2/sqrt(pi) e^(-x^2)
    ValueRef x = a.inputs[0];
    DType dt = e.type(x).dtype;
    ValueRef d = e.op("mul", {e.op("exp", {e.op("neg", {e.op("square", {x})})}), e.scalar(dt, 1.1283791670955126)});
    return {e.op("mul", {a.output_grads[0], d})};
  });
  define_rule("gelu", [one_of](Emitter& e, const GradArgs& a) -> Grads {
    ValueRef x = a.inputs[0];
    DType dt = e.type(x).dtype;
    auto k = [&](double v) { return e.scalar(dt, v); };
    ValueRef d;
    if (a.attrs.string("approximate") == "tanh") {
      // t = tanh(c (x + 0.044715 x^3)): d = (1 + t)/2 + x (1 - t^2) c (1 + 3 * 0.044715 x^2) / 2
      ValueRef x2 = e.op("square", {x});
      ValueRef u = e.op("mul", {e.op("add", {x, e.op("mul", {e.op("mul", {x2, x}), k(0.044715)})}), k(0.7978845608028654)});
      ValueRef t = e.op("tanh", {u});
      ValueRef du = e.op("mul", {e.op("add", {one_of(e, x), e.op("mul", {x2, k(3 * 0.044715)})}), k(0.7978845608028654)});
      ValueRef sech2 = e.op("sub", {one_of(e, x), e.op("square", {t})});
      d = e.op("mul", {e.op("add", {e.op("add", {one_of(e, x), t}), e.op("mul", {e.op("mul", {x, sech2}), du})}), k(0.5)});
    } else {
      // Phi(x) + x phi(x), Phi(x) = (1 + erf(x / sqrt 2)) / 2, phi(x) = e^(-x^2/2) / sqrt(2 pi)
      ValueRef cdf = e.op("mul", {e.op("add", {one_of(e, x), e.op("erf", {e.op("mul", {x, k(0.7071067811865476)})})}), k(0.5)});
      ValueRef pdf = e.op("mul", {e.op("exp", {e.op("mul", {e.op("square", {x}), k(-0.5)})}), k(0.3989422804014327)});
      d = e.op("add", {cdf, e.op("mul", {x, pdf})});
    }
    return {e.op("mul", {a.output_grads[0], d})};
  });
  define_rule("pow", [zero_of, one_of](Emitter& e, const GradArgs& a) -> Grads {
    // y = a^b: da = g b a^(b-1); db = g y log(a) for a > 0, else 0 (log is not real there).
    ValueRef x = a.inputs[0], b = a.inputs[1], g = a.output_grads[0], y = a.outputs[0];
    Grads out{std::nullopt, std::nullopt};
    if (a.wanted[0])
      out[0] = e.reduce_like(e.op("mul", {e.op("mul", {g, b}), e.op("pow", {x, e.op("sub", {b, one_of(e, b)})})}), x);
    if (a.wanted[1]) {
      ValueRef positive = e.op("gt", {x, zero_of(e, x)});
      ValueRef db = e.op("where", {positive, e.op("mul", {e.op("mul", {g, y}), e.op("log", {x})}), zero_of(e, g)});
      out[1] = e.reduce_like(db, b);
    }
    return out;
  });
  define_rule("clamp", [zero_of](Emitter& e, const GradArgs& a) -> Grads {
    // g where min <= x <= max (the bounds pass the gradient), else 0.
    ValueRef x = a.inputs[0];
    DType dt = e.type(x).dtype;
    ValueRef inside = e.op("logical_and", {e.op("ge", {x, e.scalar(dt, a.attrs.real("min"))}),
                                           e.op("le", {x, e.scalar(dt, a.attrs.real("max"))})});
    return {e.op("where", {inside, a.output_grads[0], zero_of(e, x)})};
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
