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
