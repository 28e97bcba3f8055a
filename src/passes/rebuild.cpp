#include "passes/rebuild.h"

#include <algorithm>
#include <functional>
#include <unordered_map>

#include "base/check.h"

namespace rung {

namespace {
std::optional<RegionId> callee_of(const Graph& g, const Node& n) {
  if (n.opcode != opcode::kCall) return std::nullopt;
  auto it = n.attrs.find("callee");
  if (it == n.attrs.end() || !it->second.is<Hash256>()) return std::nullopt;
  return g.find_region(it->second.as<Hash256>());
}

}  // namespace

std::vector<RegionId> regions_callees_first(const Graph& g) {
  // DFS over the call graph (acyclic: a caller names its callee by hash).
  // Roots in an order fixed by content, not by region ids (a graph read from a .keg numbers
  // its regions differently from the one the front end built): the exports by name, then
  // every other region by hash. A pass that meets a node shared by two regions (hash-consing
  // shares identical subgraphs) first in one of them so decides the same way on either graph.
  std::vector<RegionId> roots;
  for (const auto& [name, r] : g.exports()) roots.push_back(r);
  std::vector<RegionId> rest;
  for (RegionId r = 0; r < g.region_count(); ++r) rest.push_back(r);
  std::sort(rest.begin(), rest.end(), [&](RegionId a, RegionId b) { return g.region(a).hash < g.region(b).hash; });
  roots.insert(roots.end(), rest.begin(), rest.end());
  std::vector<RegionId> order;
  std::vector<std::uint8_t> state(g.region_count(), 0);
  for (RegionId root : roots) {
    std::vector<std::pair<RegionId, bool>> stack{{root, false}};
    while (!stack.empty()) {
      auto [r, expanded] = stack.back();
      stack.pop_back();
      if (expanded) {
        if (state[r] != 2) {
          state[r] = 2;
          order.push_back(r);
        }
        continue;
      }
      if (state[r] != 0) continue;
      state[r] = 1;
      stack.push_back({r, true});
      for (NodeId n : nodes_in_region(g, g.region(r)))
        if (auto c = callee_of(g, g.node(n)); c && state[*c] == 0) stack.push_back({*c, false});
    }
  }
  return order;
}

Graph rebuild(const Graph& in, const RebuildHooks& hooks, RebuildStats* stats) {
  Graph out;
  out.reserve(in.node_count());
  GraphBuilder b(out);
  // mapped values live in one flat array: node n's outputs start at first[n] (no
  // per-node allocation; rebuilding is the inner loop of every pass).
  std::vector<std::size_t> first(in.node_count() + 1, 0);
  for (NodeId n = 0; n < in.node_count(); ++n) first[n + 1] = first[n] + in.node(n).outputs.size();
  std::vector<ValueRef> flat(first.back());
  std::vector<bool> done(in.node_count(), false);
  std::unordered_map<RegionId, RegionId> region_map;

  std::vector<bool> keep(in.region_count(), hooks.keep_unexported_regions);
  for (RegionId r : in.reachable_regions()) keep[r] = true;

  std::function<ValueRef(ValueRef)> map_value = [&](ValueRef v) {
    RUNG_CHECK(done[v.node], "inputs are rebuilt before their users");
    return flat[first[v.node] + v.output];
  };
  auto set = [&](NodeId n, const std::vector<ValueRef>& values) {
    std::copy(values.begin(), values.end(), flat.begin() + static_cast<long>(first[n]));
    done[n] = true;
  };

  // One node of the region being rebuilt; `build_old` also builds a value's node on demand
  // (with the nodes it needs) for a rewrite that emits a replacement before the walk
  // reaches that node's inputs (fusion building a call with several results).
  const Region* current = nullptr;
  std::function<void(NodeId)> build_node;
  std::function<ValueRef(ValueRef)> build_old = [&](ValueRef v) {
    if (!done[v.node]) {  // the unbuilt nodes it needs, inputs first, without recursion (chains may be long)
      std::vector<std::pair<NodeId, bool>> stack{{v.node, false}};  // node, inputs pushed
      while (!stack.empty()) {
        auto [n, expanded] = stack.back();
        if (done[n]) {
          stack.pop_back();
          continue;
        }
        if (expanded) {
          stack.pop_back();
          build_node(n);  // its inputs are built
          continue;
        }
        stack.back().second = true;
        for (const auto& operand : in.node(n).inputs)
          if (!done[operand.node]) stack.push_back({operand.node, false});
      }
    }
    return flat[first[v.node] + v.output];
  };
  build_node = [&](NodeId n) {
    const Node& node = in.node(n);
    if (node.opcode == opcode::kParam) {
      Node copy = node;
      set(n, {ValueRef{out.add(std::move(copy)), 0}});
      return;
    }
    std::vector<ValueRef> inputs;
    inputs.reserve(node.inputs.size());
    for (const auto& v : node.inputs) inputs.push_back(build_old(v));

    Node copy = node;
    // A custom op's gradient (attribute custom_grad) is consumed by autodiff when the front
    // end lowers value_and_grad; passes run after, so the reference is dropped rather than
    // left pointing at a region the rebuild may not keep.
    copy.attrs.erase("custom_grad");
    if (auto c = callee_of(in, node)) {
      RUNG_CHECK(region_map.count(*c), "callee rebuilt before its caller");
      copy.attrs.at("callee") = AttrValue(out.region(region_map.at(*c)).hash);
    }
    std::optional<std::vector<ValueRef>> rewritten;
    if (hooks.rewrite_node) rewritten = hooks.rewrite_node(b, n, copy, inputs, current->name, build_old);
    if (!rewritten && hooks.rewrite) rewritten = hooks.rewrite(b, copy, inputs);
    if (rewritten) {
      RUNG_CHECK(rewritten->size() == node.outputs.size(), "a rewrite must produce one value per output");
      set(n, *rewritten);
      return;
    }
    copy.inputs = inputs;
    std::size_t outs = copy.outputs.size();
    NodeId id = out.add(std::move(copy));
    std::vector<ValueRef> result;
    for (std::uint32_t i = 0; i < outs; ++i) result.push_back({id, i});
    set(n, result);
  };
  for (RegionId rid : regions_callees_first(in)) {
    if (!keep[rid]) continue;
    const Region& r = in.region(rid);
    current = &r;
    for (NodeId n : nodes_in_region(in, r))
      if (!done[n]) build_node(n);
    Region nr;
    nr.name = r.name;
    for (NodeId p : r.params) {
      if (!done[p]) {  // a parameter the results do not use
        Node copy = in.node(p);
        set(p, {ValueRef{out.add(std::move(copy)), 0}});
      }
      ValueRef pv = map_value({p, 0});
      RUNG_CHECK(out.node(pv.node).opcode == opcode::kParam, "parameters stay parameters");
      nr.params.push_back(pv.node);
    }
    for (const auto& v : r.results) nr.results.push_back(map_value(v));
    region_map[rid] = out.add_region(std::move(nr));
  }
  for (const auto& [name, r] : in.exports()) out.set_export(name, region_map.at(r));

  if (stats) {
    stats->nodes_before = in.node_count();
    stats->nodes_after = out.node_count();
    stats->regions_before = in.region_count();
    stats->regions_after = out.region_count();
  }
  return out;
}

}  // namespace rung
