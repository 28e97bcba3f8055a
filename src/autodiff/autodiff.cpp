#include "autodiff/autodiff.h"

#include <unordered_map>
#include <unordered_set>

#include "autodiff/gradient_rule.h"
#include "autodiff/sweep.h"
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
    if (node.opcode == opcode::kCall && !node.attrs.count(kCustomGradAttr)) {  // custom ops stay calls
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
  std::unordered_set<NodeId> depends;
  for (std::size_t i : wrt) depends.insert(f.params[i]);
  for (NodeId n : order)
    for (const auto& in : g.node(n).inputs)
      if (depends.count(in.node)) depends.insert(n);

  Emitter e(g);
  Sweep sweep(e);
  ValueRef loss = results[0];
  sweep.seed(loss, e.scalar(g.node(loss.node).outputs[loss.output].dtype, 1.0));
  if (auto err = sweep.run(order, depends)) {
    auto& d = diags.error(err->code, "cannot differentiate `" + f.name + "`: " + err->message);
    d.note("it lies on the path from the parameters to the loss (" + describe_node(g, err->node) + ")");
    return std::nullopt;
  }

  Region grad;
  grad.name = f.name + ".grad";
  grad.params = f.params;
  grad.results = results;
  for (std::size_t i : wrt) {
    ValueRef p{f.params[i], 0};
    auto gsum = sweep.total(p);
    grad.results.push_back(gsum ? *gsum : e.op("zeros_like", {p}));
  }
  return g.add_region(std::move(grad));
}

std::vector<std::string> ops_without_gradient() {
  ensure_gradient_rules();
  std::vector<std::string> out;
  for (const ops::OpDef* op : ops::op_registry().all())
    if (!op->gradient) out.push_back(op->name);  // neither a rule nor a declaration that there is none
  return out;
}

std::vector<std::pair<std::string, std::string>> non_differentiable_ops() {
  ensure_gradient_rules();
  std::vector<std::pair<std::string, std::string>> out;
  for (const ops::OpDef* op : ops::op_registry().all())
    if (op->gradient && !op->gradient->differentiable()) out.emplace_back(op->name, op->gradient->not_differentiable);
  return out;
}

}  // namespace rung::autodiff
