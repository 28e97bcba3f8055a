#include "autodiff/autodiff.h"

#include <map>
#include <unordered_map>

#include "autodiff/gradient_rule.h"
#include "base/check.h"
#include "ir/graph/walk.h"
#include "ops/registry.h"
#include "ops/typing.h"
#include "passes/inline.h"

namespace rung::autodiff {
namespace {

bool is_float(const TensorType& t) { return dtype_info(t.dtype).is_float; }

// f's results with every call inlined (into the same graph; unchanged nodes are shared).
std::vector<ValueRef> flatten(Graph& g, const Region& f) {
  GraphBuilder b(g);
  std::unordered_map<NodeId, std::vector<ValueRef>> mapped;
  for (NodeId n : nodes_in_region(g, f)) {
    Node node = g.node(n);  // copy: g grows
    if (node.opcode == opcode::kParam) {
      mapped[n] = {ValueRef{n, 0}};
      continue;
    }
    std::vector<ValueRef> inputs;
    for (const auto& in : node.inputs) inputs.push_back(mapped.at(in.node).at(in.output));
    if (node.opcode == opcode::kCall) {
      mapped[n] = inline_call(b, node, inputs);
      continue;
    }
    std::size_t outs = node.outputs.size();
    node.inputs = std::move(inputs);
    NodeId id = g.add(std::move(node));
    for (std::uint32_t i = 0; i < outs; ++i) mapped[n].push_back({id, i});
  }
  std::vector<ValueRef> results;
  for (const auto& v : f.results) results.push_back(mapped.at(v.node).at(v.output));
  return results;
}

struct ValueKey {
  NodeId node;
  std::uint32_t output;
  bool operator<(const ValueKey& o) const { return node != o.node ? node < o.node : output < o.output; }
};

}  // namespace

std::optional<RegionId> differentiate(Graph& g, RegionId fid, std::span<const std::size_t> wrt, DiagnosticSink& diags) {
  ensure_gradient_rules();
  const Region f = g.region(fid);  // copy: g grows
  if (f.results.empty() || g.node(f.results[0].node).outputs[f.results[0].output].rank() != 0 ||
      !is_float(g.node(f.results[0].node).outputs[f.results[0].output])) {
    diags.error("D0001", "cannot differentiate `" + f.name + "`: its first result must be a floating-point scalar (a loss)");
    return std::nullopt;
  }
  for (std::size_t i : wrt)
    if (i >= f.params.size() || !is_float(g.node(f.params[i]).outputs[0])) {
      diags.error("D0003", "cannot differentiate `" + f.name + "` with respect to parameter " + std::to_string(i) +
                               (i < f.params.size() ? " of type " + g.node(f.params[i]).outputs[0].to_string() + " (not floating point)"
                                                    : " (it has " + std::to_string(f.params.size()) + ")"));
      return std::nullopt;
    }

  std::vector<ValueRef> results = flatten(g, f);
  Region flat{f.name, f.params, results, {}};
  std::vector<NodeId> order = nodes_in_region(g, flat);

  // Which nodes depend on a requested parameter (only those need cotangents).
  std::unordered_map<NodeId, bool> depends;
  for (std::size_t i : wrt) depends[f.params[i]] = true;
  for (NodeId n : order)
    for (const auto& in : g.node(n).inputs)
      if (depends[in.node]) depends[n] = true;

  Emitter e(g);
  std::map<ValueKey, std::vector<ValueRef>> contributions;
  auto total = [&](ValueRef v) -> std::optional<ValueRef> {
    auto it = contributions.find({v.node, v.output});
    if (it == contributions.end() || it->second.empty()) return std::nullopt;
    ValueRef acc = it->second[0];
    for (std::size_t k = 1; k < it->second.size(); ++k) acc = e.op("add", {acc, it->second[k]});
    return acc;
  };
  ValueRef loss = results[0];
  contributions[{loss.node, loss.output}].push_back(e.scalar(g.node(loss.node).outputs[loss.output].dtype, 1.0));

  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    NodeId n = *it;
    const Node node = g.node(n);  // copy: g grows
    if (!depends[n] || node.opcode == opcode::kParam) continue;
    std::vector<ValueRef> outs, grads;
    bool any = false;
    for (std::uint32_t o = 0; o < node.outputs.size(); ++o) {
      outs.push_back({n, o});
      auto gsum = total({n, o});
      any = any || gsum.has_value();
      grads.push_back(gsum ? *gsum : e.op("zeros_like", {ValueRef{n, o}}));
    }
    if (!any) continue;  // nothing flows back through this node
    const ops::OpDef* def = ops::op_registry().find(node.opcode);
    if (!def || !def->gradient) {
      diags.error("D0002", "cannot differentiate `" + f.name + "`: op `" + node.opcode + "` has no gradient rule")
          .note("it lies on the path from the parameters to the loss (" + describe_node(g, n) + ")");
      return std::nullopt;
    }
    std::vector<TensorType> in_types;
    for (const auto& in : node.inputs) in_types.push_back(g.node(in.node).outputs[in.output]);
    std::vector<std::string> errors;
    auto typed = ops::infer_types(*def, in_types, node.attrs, errors);
    RUNG_CHECK(typed.has_value(), "a validated node no longer type-checks");
    std::vector<ValueRef> inputs(node.inputs.begin(), node.inputs.end());
    GradArgs args{node, typed->attrs, inputs, outs, grads};
    auto in_grads = def->gradient->fn(e, args);
    RUNG_CHECK(in_grads.size() == node.inputs.size(), "a gradient rule must return one cotangent per input");
    for (std::size_t k = 0; k < in_grads.size(); ++k)
      if (in_grads[k] && depends[node.inputs[k].node])
        contributions[{node.inputs[k].node, node.inputs[k].output}].push_back(*in_grads[k]);
  }

  Region grad;
  grad.name = f.name + ".grad";
  grad.params = f.params;
  grad.results = results;
  for (std::size_t i : wrt) {
    ValueRef p{f.params[i], 0};
    auto gsum = total(p);
    grad.results.push_back(gsum ? *gsum : e.op("zeros_like", {p}));
  }
  return g.add_region(std::move(grad));
}

std::vector<std::string> ops_without_gradient() {
  ensure_gradient_rules();
  std::vector<std::string> out;
  for (const ops::OpDef* op : ops::op_registry().all()) {
    if (op->gradient) continue;
    bool float_result = false;
    for (const auto& r : op->results) {
      const ops::TypeVar* tv = op->find_type_var(r.type);
      if (tv ? tv->allowed.contains(DType::f32) : (r.type == "f32" || r.type == "f64"))
        float_result = true;
    }
    if (float_result) out.push_back(op->name);
  }
  return out;
}

}  // namespace rung::autodiff
