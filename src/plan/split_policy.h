// Executing what the plan says: a runtime::SplitPolicy that runs computations in chunks of
// rows under --stream (row_split.h: row-local regions; the others run whole, as the plan
// states) and splits dispatches over a binding limit (tiling.h: the same splits the plan
// lists; a dispatch it cannot split is refused with L0010, as the plan says red).
#pragma once

#include "plan/memory_plan.h"
#include "runtime/interpreter.h"

namespace rung::plan {

// `o.stream_rows` and `o.binding_limit` select what is split; L0011 for both at once.
std::optional<runtime::SplitPolicy> make_split_policy(const Graph& g, const PlanOptions& o, DiagnosticSink& diags);

}  // namespace rung::plan
