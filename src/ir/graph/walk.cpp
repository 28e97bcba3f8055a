#include "ir/graph/walk.h"

namespace rung {

std::vector<NodeId> nodes_in_region(const Graph& g, const Region& r) {
  std::vector<NodeId> order;
  std::vector<std::uint8_t> state(g.node_count(), 0);  // 0 unseen, 1 inputs pending, 2 emitted
  std::vector<NodeId> stack;
  for (const auto& v : r.results) stack.push_back(v.node);
  while (!stack.empty()) {
    NodeId n = stack.back();
    if (state[n] == 2) {
      stack.pop_back();
      continue;
    }
    if (state[n] == 1) {
      state[n] = 2;
      order.push_back(n);
      stack.pop_back();
      continue;
    }
    state[n] = 1;
    for (const auto& in : g.node(n).inputs)
      if (state[in.node] == 0) stack.push_back(in.node);
  }
  return order;
}

}  // namespace rung
