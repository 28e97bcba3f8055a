// fuse: elementwise fusion. A group of elementwise nodes (families elementwise, compare,
// cast — `where` included) with one root, that all produce the same shape S, whose operands
// have a shape that broadcasts to S (S itself, rank 0, [B,T,1] or [D] against [B,T,D], ...),
// and whose inner values are used only by members (once or several times: a DAG), becomes
// one `call` node:
//   call(externals...) {callee = hash of region `<parent>.fused.<k>`, fusion = "elementwise"}
// The region holds the original nodes unchanged, so each element goes through exactly the
// same operation sequence: fusion never changes a bit (the reference evaluates the call
// node by node). Backends may run a fused call as one loop without materialising the
// intermediates (docs/passes.md, "Elementwise fusion"). A fusible value also used outside
// may join as an extra result of the call when the group stays convex
// (join_extra_results); otherwise it stays outside, as an input: fusion never recomputes.
#include <algorithm>
#include <cstdlib>
#include <cstring>
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
  // root -> the members other than the root that are also results of the call (used
  // outside the group, or region results), canonical_order; absent when only the root is.
  std::unordered_map<NodeId, std::vector<NodeId>> extra;
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

// Several results. A fusible node p that the first phase left out because a value of it is
// used outside (or is a region result) joins the group of one of its consumers c as an
// extra result of the call, when p has the group's shape, lives in the group's region only,
// and the group stays convex: no path leaves a member and comes back into the group through
// a node outside it (the call would depend on itself). c may be a lone node, which then
// roots a new group. Nodes are taken consumers first (the walk of each region backwards),
// so chains of such nodes join one after the other; p's consumers are tried in walk order.
// Every choice follows the graph's structure (walk order), never its node numbering.
template <typename Fusible>
void join_extra_results(const Graph& g, Plan& plan, std::vector<bool>& assigned, Fusible& fusible,
                        const std::vector<std::vector<NodeId>>& users, const std::vector<RegionId>& region_of,
                        const std::vector<bool>& shared, const std::vector<bool>& is_result,
                        const std::vector<std::vector<NodeId>>& walks) {
  const std::size_t N = g.node_count();
  constexpr NodeId kNone = ~NodeId{0};
  std::vector<NodeId> group_of(N, kNone);
  for (const auto& [m, root] : plan.root_of) group_of[m] = root;
  std::vector<std::uint32_t> visited(N, 0);
  std::uint32_t stamp = 0;
  std::vector<NodeId> stack;
  // Would `root`'s group with `p` added be convex? Search forward from every consumer outside
  // the group of every member; node ids are a topological order, so nothing above the root
  // can lead back into the group.
  auto convex_with = [&](NodeId root, NodeId p) {
    ++stamp;
    stack.clear();
    auto inside = [&](NodeId n) { return n == p || n == root || group_of[n] == root; };
    auto push_outside_users = [&](NodeId m) {
      for (NodeId u : users[m])
        if (!inside(u) && u < root && visited[u] != stamp) {
          visited[u] = stamp;
          stack.push_back(u);
        }
    };
    for (NodeId m : plan.members.at(root)) push_outside_users(m);
    push_outside_users(p);
    while (!stack.empty()) {
      NodeId n = stack.back();
      stack.pop_back();
      for (NodeId u : users[n]) {
        if (inside(u)) return false;
        if (u < root && visited[u] != stamp) {
          visited[u] = stamp;
          stack.push_back(u);
        }
      }
    }
    return true;
  };
  std::vector<NodeId> changed;
  for (const auto& walk : walks)
    for (auto it = walk.rbegin(); it != walk.rend(); ++it) {
      NodeId p = *it;
      if (assigned[p] || shared[p] || !fusible(p)) continue;
      const Shape& s = g.node(p).outputs[0].shape;
      for (NodeId c : users[p]) {
        if (shared[c] || region_of[c] != region_of[p] || !fusible(c)) continue;
        NodeId root = group_of[c] != kNone ? group_of[c] : c;
        if (g.node(root).outputs[0].shape != s) continue;
        if (group_of[c] == kNone) {  // a lone consumer roots a new group
          plan.members[c] = {c};
          if (!convex_with(c, p)) {
            plan.members.erase(c);
            continue;
          }
          group_of[c] = c;
          assigned[c] = true;
        } else if (!convex_with(root, p)) {
          continue;
        }
        group_of[p] = root;
        assigned[p] = true;
        plan.members[root].push_back(p);
        changed.push_back(root);
        break;
      }
    }
  std::sort(changed.begin(), changed.end());
  changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
  for (NodeId root : changed) {
    auto& members = plan.members[root];
    members = canonical_order(g, root, members);
    for (NodeId m : members) {
      plan.root_of[m] = root;
      if (m == root) continue;
      bool outside = is_result[m];
      for (NodeId u : users[m]) outside = outside || group_of[u] != root;
      if (outside) plan.extra[root].push_back(m);
    }
  }
}

Plan plan_groups(const Graph& g) {
  const std::size_t N = g.node_count();
  constexpr NodeId kNone = ~NodeId{0};
  std::vector<bool> candidate(N, false), seen(N, false), is_result(N, false), assigned(N, false), fusible_memo(N, false),
      memo_done(N, false);
  std::vector<std::uint32_t> consumers(N, 0);  // distinct consumer nodes
  std::vector<NodeId> last_consumer(N, kNone);
  std::vector<std::vector<NodeId>> users(N);        // the distinct consumers, in walk order
  std::vector<RegionId> region_of(N, ~RegionId{0});
  std::vector<bool> shared(N, false);               // reached from more than one region
  std::vector<std::vector<NodeId>> walks;           // per non-fused region: nodes, inputs before users
  for (RegionId rid : g.reachable_regions()) {
    const Region& r = g.region(rid);
    bool fused = is_fused_region(r.name);
    for (const auto& v : r.results) is_result[v.node] = true;
    std::vector<NodeId> walk = nodes_in_region(g, r);
    for (NodeId n : walk) {
      if (!fused) candidate[n] = true;
      if (region_of[n] != ~RegionId{0} && region_of[n] != rid) shared[n] = true;
      region_of[n] = rid;
      if (seen[n]) continue;
      seen[n] = true;
      for (const auto& in : g.node(n).inputs)
        if (last_consumer[in.node] != n) {
          last_consumer[in.node] = n;
          ++consumers[in.node];
          users[in.node].push_back(n);
        }
    }
    if (!fused) walks.push_back(std::move(walk));
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
  join_extra_results(g, plan, assigned, fusible, users, region_of, shared, is_result, walks);
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
    // The call's results per group root, once built.
    std::unordered_map<NodeId, std::vector<ValueRef>> calls;
    RebuildHooks hooks;
    hooks.rewrite_node = [&](GraphBuilder& b, NodeId id, const Node& node, const std::vector<ValueRef>& inputs,
                             std::string_view region, const std::function<ValueRef(ValueRef)>& map_old)
        -> std::optional<std::vector<ValueRef>> {
      auto r = plan.root_of.find(id);
      if (r == plan.root_of.end()) return std::nullopt;
      const NodeId root = r->second;
      auto extra_it = plan.extra.find(root);
      const std::vector<NodeId>* extra = extra_it == plan.extra.end() ? nullptr : &extra_it->second;
      // A group whose only result is its root is built when the root is reached (every
      // member is then rebuilt); one with extra results when its first member is reached,
      // before anything outside can read one of them (the externals are built on demand:
      // the group is convex, so none depends on a member).
      if (!calls.count(root) && (root == id || extra)) {
        const std::vector<NodeId>& group = plan.members.at(root);
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
        std::vector<ValueRef> results{ValueRef{inner.at(root), 0}};
        std::vector<TensorType> types{in.node(root).outputs[0]};
        if (extra)
          for (NodeId m : *extra) {
            results.push_back(ValueRef{inner.at(m), 0});
            types.push_back(in.node(m).outputs[0]);
          }
        std::string parent(region);
        std::string name = parent + ".fused." + std::to_string(counter[parent]++);
        RegionId fused = b.region(name, params, results);
        std::vector<ValueRef> args;
        for (const auto& v : externals) args.push_back(map_old(v));
        calls[root] = b.op_multi(std::string(opcode::kCall), args, types,
                                 {{"callee", out.region(fused).hash}, {"fusion", std::string("elementwise")}});
      }
      if (id == root) return std::vector<ValueRef>{calls.at(root)[0]};
      if (extra)
        for (std::size_t k = 0; k < extra->size(); ++k)
          if ((*extra)[k] == id) return std::vector<ValueRef>{calls.at(root)[1 + k]};
      // An inner member used only inside: its value in the rebuilt parent is never read.
      (void)node;
      return std::vector<ValueRef>{inputs.empty() ? ValueRef{} : inputs[0]};
    };
    return rebuild(in, hooks);
  }
  bool applies(const Graph& g) const override { return !plan_for(g).members.empty(); }

 private:
  // applies() and run() see the same graph back to back: plan it once. The plan names node
  // ids, so the key holds the numbering too (the fingerprint does not: a rebuilt graph of
  // the same content may number its nodes differently).
  static std::uint64_t numbering(const Graph& g) {
    std::uint64_t h = 1469598103934665603ull;
    for (NodeId n = 0; n < g.node_count(); ++n) {
      std::uint64_t w;
      std::memcpy(&w, g.node(n).hash.bytes.data(), sizeof w);
      h = (h ^ w) * 1099511628211ull;
    }
    return h;
  }
  const Plan& plan_for(const Graph& g) const {
    Hash256 fp = g.fingerprint();
    std::uint64_t ids = numbering(g);
    if (!cached_ || cached_fp_ != fp || cached_nodes_ != g.node_count() || cached_numbering_ != ids) {
      plan_ = plan_groups(g);
      cached_ = true;
      cached_fp_ = fp;
      cached_nodes_ = g.node_count();
      cached_numbering_ = ids;
    }
    return plan_;
  }
  mutable Plan plan_;
  mutable bool cached_ = false;
  mutable Hash256 cached_fp_{};
  mutable std::size_t cached_nodes_ = 0;
  mutable std::uint64_t cached_numbering_ = 0;
};

}  // namespace

std::unique_ptr<Pass> make_fuse_pass() { return std::make_unique<FusePass>(); }
}  // namespace rung
