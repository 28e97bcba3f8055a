// Rebuilding a graph is how every pass changes GraphIR: nodes are immutable and
// content-addressed, so a pass walks the old graph and inserts into a new one, deciding
// per node what it becomes. Because insertion re-interns, nodes a rewrite makes equal are
// merged on the spot (CSE is a property of the rebuild, not a separate pass), and nodes no
// kept region reaches are simply never copied (dead-code elimination falls out).
#pragma once

#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "ir/graph/builder.h"
#include "ir/graph/walk.h"

namespace rung {

struct RebuildHooks {
  // Called for each non-param node reached, with its inputs already mapped into `out`.
  // Return the new values for its outputs, or nullopt to copy the node unchanged.
  // (call nodes are handed to `rewrite` too; their `callee` attribute already points at
  // the rebuilt callee region.)
  std::function<std::optional<std::vector<ValueRef>>(GraphBuilder& out, const Node& node,
                                                     const std::vector<ValueRef>& inputs)>
      rewrite;
  // Like `rewrite`, for passes that decide per node of the input graph (fusion): also gets
  // the node's id in `in`, the name of the region being rebuilt, and the mapping of any
  // value of `in` of this region (`map_old` builds a value not rebuilt yet on demand, with
  // the nodes it needs: it must not depend on the node being rewritten). Tried before
  // `rewrite`.
  std::function<std::optional<std::vector<ValueRef>>(GraphBuilder& out, NodeId old_id, const Node& node,
                                                     const std::vector<ValueRef>& inputs, std::string_view region,
                                                     const std::function<ValueRef(ValueRef)>& map_old)>
      rewrite_node;
  // Keep regions that no export reaches (a pass that must not drop library functions).
  bool keep_unexported_regions = false;
};

struct RebuildStats {
  std::size_t nodes_before = 0, nodes_after = 0;
  std::size_t regions_before = 0, regions_after = 0;
};

// Rebuilds `in` region by region (callees before callers). `in` must be valid.
Graph rebuild(const Graph& in, const RebuildHooks& hooks, RebuildStats* stats = nullptr);

// Region ids of `g` in callee-before-caller order (every region, reachable or not).
std::vector<RegionId> regions_callees_first(const Graph& g);

}  // namespace rung
