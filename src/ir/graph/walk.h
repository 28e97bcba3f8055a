// Graph walks shared by passes, printers and backends. All iterative: a graph read from a
// file can be arbitrarily deep, and recursion would turn depth into a stack overflow.
#pragma once

#include <vector>

#include "ir/graph/graph.h"

namespace rung {

// Nodes a region reaches from its results (params included), inputs before users.
std::vector<NodeId> nodes_in_region(const Graph& g, const Region& r);

}  // namespace rung
