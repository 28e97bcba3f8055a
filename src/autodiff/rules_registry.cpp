#include <deque>
#include <mutex>
#include <unordered_set>

#include "autodiff/decompose.h"
#include "autodiff/rules_common.h"
#include "autodiff/sweep.h"
#include "base/check.h"
#include "ops/registry.h"

namespace rung::autodiff {
namespace {

std::deque<ops::GradientRule>& rule_store() {
  static std::deque<ops::GradientRule> rules;  // stable addresses for the registry's pointers
  return rules;
}

// The nodes strictly between `inputs` and `outputs` (decomposition nodes), in topological order.
std::vector<NodeId> nodes_between(const Graph& g, const std::vector<ValueRef>& outputs, const std::unordered_set<NodeId>& stop) {
  std::vector<NodeId> order;
  std::unordered_set<NodeId> seen;
  std::vector<std::pair<NodeId, bool>> stack;
  for (const auto& v : outputs) stack.push_back({v.node, false});
  while (!stack.empty()) {
    auto [n, expanded] = stack.back();
    stack.pop_back();
    if (expanded) {
      order.push_back(n);
      continue;
    }
    if (stop.count(n) || !seen.insert(n).second) continue;
    stack.push_back({n, true});
    for (const auto& in : g.node(n).inputs) stack.push_back({in.node, false});
  }
  return order;
}

}  // namespace

void define_rule(std::string_view op, GradFn fn) {
  const ops::OpDef* def = ops::op_registry().find(op);
  RUNG_CHECK(def != nullptr, "a gradient rule names an op the registry does not have");
  rule_store().emplace_back(std::move(fn));
  ops::op_registry().set_gradient(def->id, &rule_store().back());
}

void declare_not_differentiable(std::string_view op, std::string reason) {
  const ops::OpDef* def = ops::op_registry().find(op);
  RUNG_CHECK(def != nullptr, "a non-differentiable declaration names an op the registry does not have");
  rule_store().emplace_back(std::move(reason), true);
  ops::op_registry().set_gradient(def->id, &rule_store().back());
}

GradFn rule_by_decomposition() {
  return [](Emitter& e, const GradArgs& a) -> Grads {
    std::vector<ValueRef> inputs(a.inputs.begin(), a.inputs.end());
    auto outs = decompose(e, a.node.opcode, inputs, a.attrs, DecomposeFor::gradient);
    if (!outs) return Grads(inputs.size());
    std::unordered_set<NodeId> stop, depends;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      stop.insert(inputs[k].node);
      if (a.wanted[k]) depends.insert(inputs[k].node);
    }
    std::vector<NodeId> order = nodes_between(e.builder().graph(), *outs, stop);
    for (NodeId n : order)
      for (const auto& in : e.builder().graph().node(n).inputs)
        if (depends.count(in.node)) depends.insert(n);
    Sweep sweep(e);
    for (std::size_t o = 0; o < outs->size(); ++o) sweep.seed((*outs)[o], a.output_grads[o]);
    if (auto err = sweep.run(order, depends)) {
      e.fail("(through its decomposition): " + err->message);
      return Grads(inputs.size());
    }
    Grads grads(inputs.size());
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      bool repeated = false;  // the same value passed twice: its total goes to the first slot only
      for (std::size_t j = 0; j < k; ++j) repeated = repeated || (inputs[j] == inputs[k]);
      if (a.wanted[k] && !repeated) grads[k] = sweep.total(inputs[k]);
    }
    return grads;
  };
}

void register_non_differentiable() {
  for (const char* op : {"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "logical_not"})
    declare_not_differentiable(op, "boolean result");
  for (const char* op : {"argmax", "argmin", "bit_shift"}) declare_not_differentiable(op, "integer result");
  for (const char* op : {"iota", "arange", "one_hot"}) declare_not_differentiable(op, "generated from attributes and integer indices");
  for (const char* op : {"random_bits", "random_uniform", "random_normal"})
    declare_not_differentiable(op, "random source: no tensor operand");
  declare_not_differentiable("quantize", "quantized result");
  declare_not_differentiable("dequantize", "quantized operand");
  declare_not_differentiable("csr_from_coo", "a gradient w.r.t. the COO values (through duplicate summing) is not implemented yet");
  for (const char* op : {"sgd_update", "adam_update"})
    declare_not_differentiable(op, "an optimizer step, applied after the gradient");
}

void ensure_gradient_rules() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_elementwise_rules();
    register_linalg_rules();
    register_reduce_rules();
    register_nn_rules();
    register_conv_rules();
    register_shape_rules();
    register_non_differentiable();
  });
}

}  // namespace rung::autodiff
