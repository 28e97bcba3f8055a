// Streaming executed: which computations can run in chunks of rows, and the region copies
// that run them. A region is row-local when every result row depends only on the same row
// of the split arguments (those whose leading extent is the rows being streamed): elementwise
// ops (other operands broadcast along dim 0) and rank-2 matmul with the rows on the left
// operand. Anything else that touches the split rows (reductions across them, reshapes,
// calls) is not split: the region runs whole and the plan says why. Chunks of a row-local
// region compute exactly the rows of the whole run, so the bits are the same.
//
// The planner (planner.cpp) and the runtime policy (RowChunker) take the same decision from
// the same shapes, so what the plan says is streamed is what the executor streams.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/graph/graph.h"

namespace rung::plan {

struct RowSplit {
  bool ok = false;
  std::string why;          // not ok: why (empty when no argument has more rows than a chunk)
  std::uint64_t rows = 0;   // the leading extent of the split arguments
  std::vector<bool> split;  // per region parameter
};

// `args`: the arguments' concrete shapes. Rows: the largest leading extent above `chunk`.
RowSplit row_split(const Graph& g, RegionId r, const std::vector<std::vector<std::uint64_t>>& args, std::uint64_t chunk);

// The runtime side: decisions for each region, and copies of row-local regions whose split
// rows are a symbol (so one copy runs chunks of any size). Owns a copy of the graph.
class RowChunker {
 public:
  RowChunker(const Graph& g, std::uint64_t chunk_rows) : g_(g), chunk_(chunk_rows) {}
  struct Decision {
    RegionId region = 0;      // what to run (a copy when chunked)
    std::uint64_t rows = 0;   // > 0: chunked
    std::uint64_t chunk = 0;
    std::vector<bool> split;
  };
  Decision decide(RegionId r, const std::vector<std::vector<std::uint64_t>>& args);
  const Graph& graph() const { return g_; }

 private:
  Graph g_;
  std::uint64_t chunk_;
  std::map<std::pair<RegionId, std::uint64_t>, RegionId> copies_;
};

}  // namespace rung::plan
