// fuse: elementwise fusion. A tree of elementwise nodes (families elementwise, compare,
// cast — `where` included) that all produce the same shape, whose operands have that
// shape or are rank-0, and whose inner values have no other use, becomes one `call` node:
//   call(externals...) {callee = hash of region `<parent>.fused.<k>`, fusion = "elementwise"}
// The region holds the original nodes unchanged, so each element goes through exactly the
// same operation sequence: fusion never changes a bit (the reference evaluates the call
// node by node). Backends may run a fused call as one loop without materialising the
// intermediates (docs/passes.md, "Elementwise fusion"). Values with several uses stay
// outside (as region inputs): fusion never recomputes anything.
#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "ops/registry.h"
#include "passes/passes.h"
#include "passes/rebuild.h"

namespace rung {
namespace {

bool is_fused_region(std::string_view name) { return name.find(".fused.") != std::string_view::npos; }

bool elementwise_family(std::string_view opcode) {
  const ops::OpDef* def = ops::op_registry().find(opcode);
  return def && (def->family == "elementwise" || def->family == "compare" || def->family == "cast");
}

struct Plan {
  std::unordered_map<NodeId, NodeId> root_of;           // member -> its group's root
  std::unordered_map<NodeId, std::vector<NodeId>> members;  // root -> members, increasing id (root last)
};

Plan plan_groups(const Graph& g) {
  std::unordered_set<NodeId> candidates;
  std::unordered_map<NodeId, std::unordered_set<NodeId>> consumers;  // distinct consumer nodes
  std::unordered_set<NodeId> is_result;
  std::unordered_set<NodeId> seen;
  for (RegionId rid : g.reachable_regions()) {
    const Region& r = g.region(rid);
    bool fused = is_fused_region(r.name);
    for (const auto& v : r.results) is_result.insert(v.node);
    for (NodeId n : nodes_in_region(g, r)) {
      if (!fused) candidates.insert(n);
      if (!seen.insert(n).second) continue;
      for (const auto& in : g.node(n).inputs) consumers[in.node].insert(n);
    }
  }
  auto fusible = [&](NodeId n) {
    const Node& node = g.node(n);
    if (!candidates.count(n) || node.outputs.size() != 1 || !elementwise_family(node.opcode)) return false;
    const Shape& s = node.outputs[0].shape;
    for (const auto& in : node.inputs) {
      const TensorType& t = g.node(in.node).outputs[in.output];
      if (t.rank() != 0 && t.shape != s) return false;
    }
    return true;
  };
  Plan plan;
  std::vector<NodeId> order(candidates.begin(), candidates.end());
  std::sort(order.begin(), order.end());  // node ids are a topological order
  std::unordered_map<NodeId, bool> assigned;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    NodeId root = *it;
    if (assigned[root] || !fusible(root)) continue;
    const Shape& s = g.node(root).outputs[0].shape;
    std::vector<NodeId> group{root}, stack{root};
    assigned[root] = true;
    while (!stack.empty()) {
      NodeId c = stack.back();
      stack.pop_back();
      for (const auto& in : g.node(c).inputs) {
        NodeId p = in.node;
        if (assigned[p] || !fusible(p) || g.node(p).outputs[0].shape != s || is_result.count(p)) continue;
        const auto& users = consumers[p];
        if (users.size() != 1 || *users.begin() != c) continue;
        assigned[p] = true;
        group.push_back(p);
        stack.push_back(p);
      }
    }
    if (group.size() < 2) {
      assigned[root] = false;  // a lone node stays an ordinary node
      continue;
    }
    std::sort(group.begin(), group.end());
    for (NodeId m : group) plan.root_of[m] = root;
    plan.members[root] = std::move(group);
  }
  return plan;
}

class FusePass final : public Pass {
 public:
  std::string_view name() const override { return "fuse"; }
  std::string_view summary() const override {
    return "elementwise fusion: same-shape elementwise trees become calls of `<fn>.fused.<k>` regions";
  }
  Graph run(const Graph& in, PassContext&) override {
    Plan plan = plan_groups(in);
    if (plan.members.empty()) return in;
    std::map<std::string, int, std::less<>> counter;
    RebuildHooks hooks;
    hooks.rewrite_node = [&](GraphBuilder& b, NodeId id, const Node& node, const std::vector<ValueRef>& inputs,
                             std::string_view region, const std::function<ValueRef(ValueRef)>& map_old)
        -> std::optional<std::vector<ValueRef>> {
      auto r = plan.root_of.find(id);
      if (r == plan.root_of.end()) return std::nullopt;
      // Inner members are built inside the region when the root is reached; their value in
      // the rebuilt parent is never read (their only user is in the group).
      if (r->second != id) return std::vector<ValueRef>{inputs.empty() ? ValueRef{} : inputs[0]};
      const std::vector<NodeId>& group = plan.members.at(id);
      std::unordered_set<NodeId> member(group.begin(), group.end());
      std::vector<ValueRef> externals;
      std::map<std::pair<NodeId, std::uint32_t>, std::size_t> external_index;
      for (NodeId m : group)
        for (const auto& v : in.node(m).inputs)
          if (!member.count(v.node) && external_index.emplace(std::make_pair(v.node, v.output), externals.size()).second)
            externals.push_back(v);
      Graph& out = b.graph();
      std::vector<ValueRef> params;
      for (std::size_t i = 0; i < externals.size(); ++i)
        params.push_back(b.param("in" + std::to_string(i), static_cast<std::int64_t>(i),
                                 in.node(externals[i].node).outputs[externals[i].output]));
      std::unordered_map<NodeId, NodeId> inner;
      for (NodeId m : group) {
        Node copy = in.node(m);
        for (auto& v : copy.inputs)
          v = member.count(v.node) ? ValueRef{inner.at(v.node), v.output} : params[external_index.at({v.node, v.output})];
        inner[m] = out.add(std::move(copy));
      }
      std::string parent(region);
      std::string name = parent + ".fused." + std::to_string(counter[parent]++);
      RegionId fused = b.region(name, params, {ValueRef{inner.at(id), 0}});
      std::vector<ValueRef> args;
      for (const auto& v : externals) args.push_back(map_old(v));
      return b.op_multi(std::string(opcode::kCall), args, {node.outputs[0]},
                        {{"callee", out.region(fused).hash}, {"fusion", std::string("elementwise")}});
    };
    return rebuild(in, hooks);
  }
};

}  // namespace

std::unique_ptr<Pass> make_fuse_pass() { return std::make_unique<FusePass>(); }
}  // namespace rung
