// fuse: elementwise fusion. A group of elementwise nodes (families elementwise, compare,
// cast — `where` included) with one root, that all produce the same shape S, whose operands
// have a shape that broadcasts to S (S itself, rank 0, [B,T,1] or [D] against [B,T,D], ...),
// and whose inner values are used only by members (once or several times: a DAG), becomes
// one `call` node:
//   call(externals...) {callee = hash of region `<parent>.fused.<k>`, fusion = "elementwise"}
// The region holds the original nodes unchanged, so each element goes through exactly the
// same operation sequence: fusion never changes a bit (the reference evaluates the call
// node by node). Backends may run a fused call as one loop without materialising the
// intermediates (docs/passes.md, "Elementwise fusion"). Values also used outside the group
// stay outside (as region inputs): fusion never recomputes anything.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <queue>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ops/registry.h"
#include "ops/shape_rules.h"
#include "passes/passes.h"
#include "passes/rebuild.h"

namespace rung {
namespace {

bool is_fused_region(std::string_view name) { return name.find(".fused.") != std::string_view::npos; }

// Whether `operand` broadcasts to `to` under the registry's rules (numpy, trailing-aligned;
// a symbolic dim only with itself or a static 1) without widening `to`.
bool broadcasts_to(const Shape& operand, const Shape& to) {
  if (operand == to) return true;
  Shape both[2] = {operand, to};
  std::string error;
  auto b = ops::broadcast_shapes(both, error);
  return b && *b == to;
}

// Per opcode: does it belong to a fusible family? (Cached: the registry lookup is a map.)
class FamilyCache {
 public:
  bool fusible(const std::string& opcode) {
    auto it = cache_.find(opcode);
    if (it != cache_.end()) return it->second;
    const ops::OpDef* def = ops::op_registry().find(opcode);
    bool yes = def && (def->family == "elementwise" || def->family == "compare" || def->family == "cast");
    cache_.emplace(opcode, yes);
    return yes;
  }

 private:
  std::unordered_map<std::string, bool> cache_;
};

struct Plan {
  std::unordered_map<NodeId, NodeId> root_of;               // member -> its group's root
  std::unordered_map<NodeId, std::vector<NodeId>> members;  // root -> members, canonical_order
};

// A group's members in an order that depends only on the graph's content: post-order from
// the root, operands first to last. Node ids do not qualify: a graph read back from a .keg
// numbers its nodes differently from the one the front end built, and the fused region's
// parameter order (so its hash and the caller's fingerprint) must not depend on that.
std::vector<NodeId> canonical_order(const Graph& g, NodeId root, const std::vector<NodeId>& group) {
  std::unordered_set<NodeId> member(group.begin(), group.end()), emitted;
  std::vector<NodeId> order;
  std::vector<std::pair<NodeId, std::size_t>> stack{{root, 0}};  // node, next operand to visit
  while (!stack.empty()) {
    auto& [n, next] = stack.back();
    const auto& inputs = g.node(n).inputs;
    if (next < inputs.size()) {
      NodeId p = inputs[next++].node;
      if (member.count(p) && !emitted.count(p)) stack.push_back({p, 0});
      continue;
    }
    if (emitted.insert(n).second) order.push_back(n);
    stack.pop_back();
  }
  return order;
}

Plan plan_groups(const Graph& g) {
  const std::size_t N = g.node_count();
  constexpr NodeId kNone = ~NodeId{0};
  std::vector<bool> candidate(N, false), seen(N, false), is_result(N, false), assigned(N, false), fusible_memo(N, false),
      memo_done(N, false);
  std::vector<std::uint32_t> consumers(N, 0);  // distinct consumer nodes
  std::vector<NodeId> last_consumer(N, kNone);
  for (RegionId rid : g.reachable_regions()) {
    const Region& r = g.region(rid);
    bool fused = is_fused_region(r.name);
    for (const auto& v : r.results) is_result[v.node] = true;
    for (NodeId n : nodes_in_region(g, r)) {
      if (!fused) candidate[n] = true;
      if (seen[n]) continue;
      seen[n] = true;
      for (const auto& in : g.node(n).inputs)
        if (last_consumer[in.node] != n) {
          last_consumer[in.node] = n;
          ++consumers[in.node];
        }
    }
  }
  FamilyCache families;
  auto fusible = [&](NodeId n) {
    if (memo_done[n]) return static_cast<bool>(fusible_memo[n]);
    memo_done[n] = true;
    const Node& node = g.node(n);
    if (!candidate[n] || node.outputs.size() != 1 || !families.fusible(node.opcode)) return false;
    const Shape& s = node.outputs[0].shape;
    for (const auto& in : node.inputs) {
      const TensorType& t = g.node(in.node).outputs[in.output];
      if (!broadcasts_to(t.shape, s)) return false;
    }
    fusible_memo[n] = true;
    return true;
  };
  Plan plan;
  // Members are taken from the root down, highest node id first: every consumer of a node
  // has a higher id, so when a node comes up every consumer that will ever be a member
  // already is one, and the node joins when all of its consumers are members (a DAG with
  // one root: a value used twice inside the group is computed once, inside).
  std::vector<std::uint32_t> member_uses(N, 0);  // distinct consumers of a node among the group's members
  std::vector<NodeId> group, touched;
  std::priority_queue<NodeId> pending;
  auto take_operands = [&](NodeId c) {
    const auto& inputs = g.node(c).inputs;
    for (std::size_t j = 0; j < inputs.size(); ++j) {
      NodeId p = inputs[j].node;
      bool repeat = false;
      for (std::size_t q = 0; q < j && !repeat; ++q) repeat = inputs[q].node == p;
      if (repeat) continue;
      if (member_uses[p]++ == 0) {
        touched.push_back(p);
        pending.push(p);
      }
    }
  };
  for (NodeId root = static_cast<NodeId>(N); root-- > 0;) {  // node ids are a topological order
    if (assigned[root] || !fusible(root)) continue;
    const Shape& s = g.node(root).outputs[0].shape;
    group.assign(1, root);
    assigned[root] = true;
    take_operands(root);
    while (!pending.empty()) {
      NodeId p = pending.top();
      pending.pop();
      if (assigned[p] || is_result[p] || member_uses[p] != consumers[p] || !fusible(p) || g.node(p).outputs[0].shape != s)
        continue;
      assigned[p] = true;
      group.push_back(p);
      take_operands(p);
    }
    for (NodeId t : touched) member_uses[t] = 0;
    touched.clear();
    if (group.size() < 2) {
      assigned[root] = false;  // a lone node stays an ordinary node
      continue;
    }
    group = canonical_order(g, root, group);
    for (NodeId m : group) plan.root_of[m] = root;
    plan.members[root] = group;
  }
  return plan;
}

class FusePass final : public Pass {
 public:
  std::string_view name() const override { return "fuse"; }
  std::string_view summary() const override {
    return "elementwise fusion: elementwise trees of one shape (operands broadcast to it) become calls of `<fn>.fused.<k>` regions";
  }
  Graph run(const Graph& in, PassContext&) override {
    const Plan& plan = plan_for(in);
    // <k> continues after the fused regions a parent already has (a later iteration of the
    // pipeline may fuse more), so names stay unique per parent.
    std::map<std::string, int, std::less<>> counter;
    for (RegionId r : in.reachable_regions()) {
      const std::string& name = in.region(r).name;
      auto at = name.rfind(".fused.");
      if (at == std::string::npos) continue;
      int& next = counter[name.substr(0, at)];
      next = std::max(next, std::atoi(name.c_str() + at + 7) + 1);
    }
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
  bool applies(const Graph& g) const override { return !plan_for(g).members.empty(); }

 private:
  // applies() and run() see the same graph back to back: plan it once.
  const Plan& plan_for(const Graph& g) const {
    Hash256 fp = g.fingerprint();
    if (!cached_ || cached_fp_ != fp || cached_nodes_ != g.node_count()) {
      plan_ = plan_groups(g);
      cached_ = true;
      cached_fp_ = fp;
      cached_nodes_ = g.node_count();
    }
    return plan_;
  }
  mutable Plan plan_;
  mutable bool cached_ = false;
  mutable Hash256 cached_fp_{};
  mutable std::size_t cached_nodes_ = 0;
};

}  // namespace

std::unique_ptr<Pass> make_fuse_pass() { return std::make_unique<FusePass>(); }
}  // namespace rung
