#include "autodiff/sweep.h"

#include "autodiff/autodiff.h"
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

// A call of a custom op: its user-written gradient region G(params..., cotangents...) gives
// one cotangent per floating-point parameter, in order.
std::optional<SweepError> Sweep::custom_gradient(NodeId n, const Node& node, const std::vector<ValueRef>& grads,
                                                 const std::unordered_set<NodeId>& depends) {
  Graph& g = e_.builder().graph();
  auto it = node.attrs.find(kCustomGradAttr);
  auto grad = it != node.attrs.end() && it->second.is<Hash256>() ? g.find_region(it->second.as<Hash256>()) : std::nullopt;
  if (!grad) return SweepError{"D0002", "a call has no gradient (calls are inlined first; only custom ops stay calls)", n};
  std::vector<ValueRef> args(node.inputs.begin(), node.inputs.end());
  args.insert(args.end(), grads.begin(), grads.end());
  std::vector<ValueRef> cot = e_.builder().call(*grad, args);
  std::size_t k = 0;
  for (const auto& in : node.inputs) {
    if (!dtype_info(g.node(in.node).outputs[in.output].dtype).is_float) continue;
    if (k >= cot.size()) return SweepError{"D0021", "the custom gradient returns fewer cotangents than the op has float operands", n};
    if (depends.count(in.node)) contributions_[key(in)].push_back(cot[k]);
    ++k;
  }
  return std::nullopt;
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
    if (node.opcode == opcode::kCall) {
      if (auto err = custom_gradient(n, node, grads, depends)) return err;
      continue;
    }
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
