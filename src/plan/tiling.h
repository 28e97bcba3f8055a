// The per-binding limit (WebGPU's maxStorageBufferBindingSize, 128 MiB by default): a
// dispatch whose operand or result is larger is split along dim 0 into tiles that each
// fit. Splittable: elementwise ops (operands that broadcast along dim 0 stay whole) and
// rank-2 matmul (rows of the left operand; the right one stays whole and must fit). Each
// output row depends on the same input row only, so the split changes no bits.
//
// annotate_tiling marks the plan's dispatches (a tiling with tiles == 0 cannot be split:
// the verdict is red). tile_region rewrites a region the same way in the graph (slices,
// per-tile ops, concat), so the split can be executed and compared bit for bit.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <optional>
#include <vector>

#include "base/diagnostic.h"
#include "ir/graph/graph.h"
#include "plan/memory_plan.h"

namespace rung::plan {

inline constexpr std::uint64_t kWebGpuBindingLimit = 128ull << 20;

void annotate_tiling(MemoryPlan& plan, const Graph& g, std::uint64_t limit);

// A copy of region `r` with every oversized splittable node split, its symbolic dims
// replaced by their extents in `dims` (a run binds them from its arguments). Returns the
// new region and, in `split`, how many nodes were split; L0006 for a symbolic dim `dims`
// does not bind, L0010 for a node over the limit that cannot be split.
std::optional<RegionId> tile_region(Graph& g, RegionId r, std::uint64_t limit, std::size_t& split, DiagnosticSink& diags,
                                    const std::map<std::string, std::uint64_t>& dims = {});

}  // namespace rung::plan
