// Gradients of reductions and the softmax family. A reduction's cotangent is spread back
// over the reduced axes with expand_like (which takes the shape from the input, so
// symbolic dims work); mean divides by the element count computed as a sum of ones, the
// same n the forward divided by.
#include "autodiff/rules_common.h"

namespace rung::autodiff {
namespace {

// The axes expand_like must re-insert: none when the reduction kept its dims; all dims
// when it reduced everything; otherwise its axes, normalised.
std::vector<std::int64_t> dropped_axes(const ops::Attrs& attrs, std::size_t rank) {
  if (attrs.boolean("keepdims")) return {};
  std::vector<std::int64_t> axes = attrs.integers("axes");
  if (axes.empty())
    for (std::size_t i = 0; i < rank; ++i) axes.push_back(static_cast<std::int64_t>(i));
  for (auto& a : axes)
    if (a < 0) a += static_cast<std::int64_t>(rank);
  return axes;
}

}  // namespace

void register_reduce_rules() {
  define_rule("cumsum", [](Emitter& e, const GradArgs& a) -> Grads {
    // x_i reaches every y_j with j after it (before it, reversed): the cotangent summed the
    // other way, with the same exclusivity.
    return {e.op("cumsum", {a.output_grads[0]}, {{"axis", a.attrs.integer("axis")}, {"exclusive", a.attrs.boolean("exclusive")},
                                                 {"reverse", !a.attrs.boolean("reverse")}})};
  });
  define_rule("sum", [](Emitter& e, const GradArgs& a) -> Grads {
    ValueRef x = a.inputs[0];
    return {e.op("expand_like", {a.output_grads[0], x}, {{"axes", dropped_axes(a.attrs, e.type(x).rank())}})};
  });
  define_rule("mean", [](Emitter& e, const GradArgs& a) -> Grads {
    ValueRef x = a.inputs[0];
    ValueRef n = e.op("sum", {e.op("ones_like", {x})}, {{"axes", a.attrs.integers("axes")}, {"keepdims", a.attrs.boolean("keepdims")}});
    ValueRef g = e.op("div", {a.output_grads[0], n});
    return {e.op("expand_like", {g, x}, {{"axes", dropped_axes(a.attrs, e.type(x).rank())}})};
  });
  // max/min: the cotangent goes to the elements equal to the result, split evenly among
  // ties (the average of the one-sided derivatives; deterministic).
  for (const char* op : {"max", "min"})
    define_rule(op, [](Emitter& e, const GradArgs& a) -> Grads {
      ValueRef x = a.inputs[0];
      DType dt = e.type(x).dtype;
      AttrMap spread{{"axes", dropped_axes(a.attrs, e.type(x).rank())}};
      ValueRef hit = e.op("cast", {e.op("eq", {x, e.op("expand_like", {a.outputs[0], x}, spread)})}, {{"to", dt}});
      ValueRef ties = e.op("sum", {hit}, {{"axes", a.attrs.integers("axes")}, {"keepdims", a.attrs.boolean("keepdims")}});
      ValueRef share = e.op("div", {a.output_grads[0], ties});
      return {e.op("mul", {hit, e.op("expand_like", {share, x}, spread)})};
    });
  define_rule("prod", [](Emitter& e, const GradArgs& a) -> Grads {
    // d prod / d x_i = prod / x_i (an input of exactly 0 gives inf/NaN: documented).
    ValueRef x = a.inputs[0];
    AttrMap spread{{"axes", dropped_axes(a.attrs, e.type(x).rank())}};
    ValueRef gy = e.op("expand_like", {e.op("mul", {a.output_grads[0], a.outputs[0]}), x}, spread);
    return {e.op("div", {gy, x})};
  });
  define_rule("variance", [](Emitter& e, const GradArgs& a) -> Grads {
    // y = sum((x - mean)^2) / (n - correction): dx = 2 (x - mean) g / (n - correction)
    ValueRef x = a.inputs[0];
    DType dt = e.type(x).dtype;
    const auto& axes = a.attrs.integers("axes");
    bool keep = a.attrs.boolean("keepdims");
    ValueRef d = e.op("sub", {x, e.op("mean", {x}, {{"axes", axes}, {"keepdims", true}})});
    ValueRef n = e.op("sum", {e.op("ones_like", {x})}, {{"axes", axes}, {"keepdims", keep}});
    n = e.op("sub", {n, e.scalar(dt, static_cast<double>(a.attrs.integer("correction")))});
    ValueRef scale = e.op("div", {e.op("mul", {a.output_grads[0], e.scalar(dt, 2.0)}), n});
    AttrMap spread{{"axes", dropped_axes(a.attrs, e.type(x).rank())}};
    return {e.op("mul", {d, e.op("expand_like", {scale, x}, spread)})};
  });
  define_rule("logsumexp", [](Emitter& e, const GradArgs& a) -> Grads {
    ValueRef x = a.inputs[0];
    AttrMap spread{{"axes", dropped_axes(a.attrs, e.type(x).rank())}};
    ValueRef y = e.op("expand_like", {a.outputs[0], x}, spread);
    ValueRef g = e.op("expand_like", {a.output_grads[0], x}, spread);
    return {e.op("mul", {g, e.op("exp", {e.op("sub", {x, y})})})};
  });
  define_rule("softmax", [](Emitter& e, const GradArgs& a) -> Grads {
    ValueRef y = a.outputs[0], g = a.output_grads[0];
    AttrMap along{{"axes", std::vector<std::int64_t>{a.attrs.integer("axis")}}, {"keepdims", true}};
    ValueRef dot = e.op("sum", {e.op("mul", {g, y})}, along);
    return {e.op("mul", {y, e.op("sub", {g, dot})})};
  });
  define_rule("log_softmax", [](Emitter& e, const GradArgs& a) -> Grads {
    ValueRef y = a.outputs[0], g = a.output_grads[0];
    AttrMap along{{"axes", std::vector<std::int64_t>{a.attrs.integer("axis")}}, {"keepdims", true}};
    ValueRef total = e.op("sum", {g}, along);
    return {e.op("sub", {g, e.op("mul", {e.op("exp", {y}), total})})};
  });
}

}  // namespace rung::autodiff
