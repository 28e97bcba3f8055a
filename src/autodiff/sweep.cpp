#include "autodiff/sweep.h"

#include "autodiff/gradient_rule.h"
#include "base/check.h"
#include "ir/graph/walk.h"
#include "ops/registry.h"
#include "ops/typing.h"

namespace rung::autodiff {

std::optional<ValueRef> Sweep::total(ValueRef v) {
  auto it = contributions_.find(key(v));
  if (it == contributions_.end() || it->second.empty()) return std::nullopt;
  if (it->second.size() > 1) it->second = {e_.canonical_add(it->second)};  // summed once, reused
  return it->second[0];
}

std::optional<SweepError> Sweep::run(const std::vector<NodeId>& order, const std::unordered_set<NodeId>& depends) {
  Graph& g = e_.builder().graph();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    NodeId n = *it;
    const Node node = g.node(n);  // copy: g grows
    if (!depends.count(n) || node.opcode == opcode::kParam || node.opcode == opcode::kConst) continue;
    std::vector<ValueRef> outs, grads;
    bool any = false;
    for (std::uint32_t o = 0; o < node.outputs.size(); ++o) {
      outs.push_back({n, o});
      auto gsum = total({n, o});
      any = any || gsum.has_value();
      grads.push_back(gsum ? *gsum : e_.op("zeros_like", {ValueRef{n, o}}));
    }
    if (!any) continue;  // nothing flows back through this node
    const ops::OpDef* def = ops::op_registry().find(node.opcode);
    if (!def || !def->gradient)
      return SweepError{"D0002", "op `" + node.opcode + "` has no gradient rule", n};
    if (!def->gradient->differentiable())
      return SweepError{"D0002", "op `" + node.opcode + "` is not differentiable (" + def->gradient->not_differentiable + ")", n};
    std::vector<TensorType> in_types;
    for (const auto& in : node.inputs) in_types.push_back(g.node(in.node).outputs[in.output]);
    std::vector<std::string> errors;
    auto typed = ops::infer_types(*def, in_types, node.attrs, errors);
    RUNG_CHECK(typed.has_value(), "a validated node no longer type-checks");
    std::vector<ValueRef> inputs(node.inputs.begin(), node.inputs.end());
    std::vector<bool> wanted;
    for (const auto& in : inputs) wanted.push_back(depends.count(in.node) > 0);
    GradArgs args{node, typed->attrs, inputs, outs, grads, wanted};
    auto in_grads = def->gradient->fn(e_, args);
    if (!e_.error().empty()) {
      SweepError err{"D0004", "the gradient of `" + node.opcode + "` " + e_.error(), n};
      e_.clear_error();
      return err;
    }
    RUNG_CHECK(in_grads.size() == node.inputs.size(), "a gradient rule must return one cotangent per input");
    for (std::size_t k = 0; k < in_grads.size(); ++k)
      if (in_grads[k] && wanted[k]) contributions_[key(node.inputs[k])].push_back(*in_grads[k]);
  }
  return std::nullopt;
}

}  // namespace rung::autodiff
