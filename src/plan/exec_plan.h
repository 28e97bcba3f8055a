// The ExecPlan: the concrete dispatch list (op, buffers with arena offsets, shapes, tiles)
// and the memory plan, as JSON, with a SHA3-256 content hash over its canonical encoding
// (domain "rung/plan/exec"). Equal plans have equal hashes on every machine.
#pragma once

#include <nlohmann/json.hpp>

#include "base/hash.h"
#include "plan/memory_plan.h"
#include "plan/verdict.h"

namespace rung::plan {

Hash256 exec_plan_hash(const MemoryPlan& plan);
// The whole plan; `assessment` adds the verdict when given.
nlohmann::json to_json(const MemoryPlan& plan, const Assessment* assessment = nullptr);
// The human summary: class table, peak, where, arenas, reuse, tiling.
std::string summary_text(const MemoryPlan& plan);
// The dispatch list, one line per dispatch (for `rung show --rung plan`).
std::string dispatch_text(const MemoryPlan& plan);

}  // namespace rung::plan
