// Human-readable listings of GraphIR: the region view (`rung show --rung graph`) and the
// per-node table (`rung inspect --nodes`). JSON forms live beside them for tools.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "ir/graph/graph.h"

namespace rung {

// One line per node in storage order:  #3  1a2b3c4d5e6f  matmul  (#1.0, #2.0) -> f32[B, 128]  {..}
std::string list_nodes(const Graph& g);
// Regions as functions over SSA values:  region @forward(%0: f32[B, 784]) -> (f32[B, 10]) { ... }
std::string print_regions(const Graph& g);

nlohmann::json node_to_json(const Graph& g, NodeId id);

}  // namespace rung
