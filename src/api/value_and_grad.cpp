// rung::graph::value_and_grad (include/rung/graph.h): the autodiff layer's region
// `<name>.grad`, extracted into a graph of its own and named like the rest of the API.
#include <algorithm>

#include "api/graph_impl.h"
#include "api/impl.h"
#include "autodiff/autodiff.h"

namespace rung::graph {
namespace {

// The part of `g` that region `root` needs (its nodes, and the regions its calls name),
// exported as `name`. Node and region hashes are content hashes, so the copies keep them.
Graph extract(const Graph& g, RegionId root, const std::string& name) {
  std::vector<bool> used(g.node_count()), region_used(g.region_count());
  std::vector<NodeId> stack;
  std::vector<RegionId> regions{root};
  while (!regions.empty() || !stack.empty()) {
    if (!regions.empty()) {
      RegionId r = regions.back();
      regions.pop_back();
      if (region_used[r]) continue;
      region_used[r] = true;
      for (NodeId p : g.region(r).params) stack.push_back(p);
      for (const auto& v : g.region(r).results) stack.push_back(v.node);
      continue;
    }
    NodeId n = stack.back();
    stack.pop_back();
    if (used[n]) continue;
    used[n] = true;
    const Node& node = g.node(n);
    for (const auto& in : node.inputs) stack.push_back(in.node);
    if (auto callee = node.attrs.find("callee"); node.opcode == opcode::kCall && callee != node.attrs.end())
      if (auto r = g.find_region(callee->second.as<Hash256>())) regions.push_back(*r);
  }
  Graph out;
  std::vector<NodeId> mapped(g.node_count());
  for (NodeId id = 0; id < g.node_count(); ++id) {
    if (!used[id]) continue;
    Node copy = g.node(id);
    for (auto& in : copy.inputs) in.node = mapped[in.node];
    mapped[id] = out.add(std::move(copy));
  }
  RegionId new_root = 0;
  for (RegionId r = 0; r < g.region_count(); ++r) {
    if (!region_used[r]) continue;
    Region copy = g.region(r);
    for (auto& p : copy.params) p = mapped[p];
    for (auto& v : copy.results) v.node = mapped[v.node];
    RegionId id = out.add_region(std::move(copy));
    if (r == root) new_root = id;
  }
  out.set_export(name, new_root);
  return out;
}

// Differentiates region `rid` of (a copy of) `g` whose parameters are named `params` and
// results `results`; the function holds f's results, then one gradient per `wrt` name.
Result<Function> differentiate(Graph g, RegionId rid, const std::string& name, const std::vector<std::string>& params,
                               const std::vector<std::string>& results, std::span<const std::string> wrt) {
  std::vector<std::size_t> indices;
  std::vector<std::string> names = results;
  for (const auto& w : wrt) {
    auto it = std::find(params.begin(), params.end(), w);
    if (it == params.end()) {
      std::string list;
      for (const auto& p : params) list += (list.empty() ? "" : ", ") + p;
      return Diagnostics::error("D0003", "cannot differentiate `" + name + "` with respect to `" + w + "`: it has no such parameter",
                                {"its parameters: " + (list.empty() ? std::string("none") : list)});
    }
    indices.push_back(static_cast<std::size_t>(it - params.begin()));
    names.push_back("grad." + w);
  }
  if (indices.empty()) return Diagnostics::error("D0003", "value_and_grad of `" + name + "` names no parameter in wrt");
  DiagnosticSink diags;
  auto grad = autodiff::differentiate(g, rid, indices, diags);
  SourceMap none;
  if (!grad) return api::diagnostics_of(diags, none);
  std::string grad_name = name + ".grad";
  return detail::make_function(extract(g, *grad, grad_name), grad_name, names);
}

}  // namespace

Result<Function> value_and_grad(const Function& f, std::span<const std::string> wrt) {
  const block::Program& p = f.impl().program;
  const block::Function& fn = p.functions.at(0);
  std::vector<std::string> params, results;
  for (auto s : fn.params) params.push_back(fn.slots[s].name);
  for (auto s : fn.results) results.push_back(fn.slots[s].name);
  return differentiate(p.graph, p.graph.exports().at(fn.name), fn.name, params, results, wrt);
}

Result<Program> value_and_grad(const Program& prog, std::string_view entry, std::span<const std::string> wrt) {
  auto info = prog.entry(entry);
  if (!info) return info.diagnostics();
  // The entry as the module declares it (before the passes), so every op has its rule.
  const block::Program& p = prog.module().impl().program;
  const block::Function* fn = p.find(info->name);
  auto not_one_region = [&](std::string why) {
    return Result<Program>(Diagnostics::error("M0034", "cannot differentiate entry `" + info->name + "`: " + why,
                                              {"value_and_grad takes an entry whose body is one graph region (no loops, "
                                               "conditionals, prints or reads); `value_and_grad(f)` in the language "
                                               "differentiates any function"}));
  };
  if (!fn || fn->body.size() != 2 || fn->body[0].kind != block::StmtKind::compute || fn->body[1].kind != block::StmtKind::ret)
    return not_one_region("its body is not one compute statement");
  const block::Stmt& compute = fn->body[0];
  if (compute.args != fn->params || compute.results != fn->body[1].args)
    return not_one_region("its region does not take its parameters and give its results as they are");
  auto rid = p.graph.find_region(compute.region);
  if (!rid) return not_one_region("its region is not in the program's graph");
  std::vector<std::string> params, results;
  for (auto s : fn->params) params.push_back(fn->slots[s].name);
  for (auto s : fn->results) results.push_back(fn->slots[s].name);
  auto grad = differentiate(p.graph, *rid, info->name, params, results, wrt);
  if (!grad) return grad.diagnostics();
  auto module = grad->module();
  if (!module) return module.diagnostics();
  return Program::compile(*module, CompileOptions{prog.tier(), prog.tolerance()});
}

}  // namespace rung::graph
