// inline: replace `call` nodes by a copy of the callee's body. Exists so that later passes
// (folding, fusion, planning) see whole computations; callees are rebuilt before callers,
// so one run inlines nested calls too. Inlining never changes values: the callee's nodes
// are copied exactly, with its parameters replaced by the call's arguments.
#include <unordered_map>

#include "passes/inline.h"
#include "passes/passes.h"
#include "passes/rebuild.h"

namespace rung {

std::vector<ValueRef> inline_call(GraphBuilder& b, const Node& call, const std::vector<ValueRef>& args) {
  Graph& out = b.graph();
  RegionId callee = *out.find_region(call.attrs.at("callee").as<Hash256>());
  const Region r = out.region(callee);  // copy: `out` grows below
  std::unordered_map<NodeId, NodeId> subst;  // callee node -> new node
  std::unordered_map<NodeId, std::uint32_t> param_index;
  for (std::uint32_t i = 0; i < r.params.size(); ++i) param_index[r.params[i]] = i;
  auto value = [&](ValueRef v) -> ValueRef {
    if (auto p = param_index.find(v.node); p != param_index.end()) return args[p->second];
    return {subst.at(v.node), v.output};
  };
  for (NodeId n : nodes_in_region(out, r)) {
    if (param_index.count(n)) continue;
    Node copy = out.node(n);
    for (auto& in : copy.inputs) in = value(in);
    subst[n] = out.add(std::move(copy));
  }
  std::vector<ValueRef> results;
  for (const auto& v : r.results) results.push_back(value(v));
  return results;
}

namespace {

class InlinePass final : public Pass {
 public:
  std::string_view name() const override { return "inline"; }
  std::string_view summary() const override { return "replace calls by the callee's body (all calls but fused regions)"; }
  Graph run(const Graph& in, PassContext&) override {
    RebuildHooks hooks;
    hooks.rewrite = [](GraphBuilder& b, const Node& n, const std::vector<ValueRef>& inputs)
        -> std::optional<std::vector<ValueRef>> {
      // Fused regions (fuse.cpp) stay calls: they are the unit a backend executes in one go.
      if (n.opcode != opcode::kCall || n.attrs.count("fusion")) return std::nullopt;
      return inline_call(b, n, inputs);
    };
    return rebuild(in, hooks);
  }
  bool applies(const Graph& g) const override {
    for (const auto& n : g.nodes())
      if (n.opcode == opcode::kCall && !n.attrs.count("fusion")) return true;
    return false;
  }
};

}  // namespace

std::unique_ptr<Pass> make_inline_pass() { return std::make_unique<InlinePass>(); }
}  // namespace rung
