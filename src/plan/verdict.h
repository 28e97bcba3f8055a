// Verdicts against a memory budget. green: the plan fits; yellow: it fits with warnings
// (inputs streamed, ops split for the binding limit); red: refused, with the reasons and
// suggestions, each one verified by planning again with the change applied:
//   - a smaller batch (the largest that fits, found by bisection over the batch dim),
//   - streaming the inputs in chunks (the largest chunk that fits),
//   - bf16 storage for the activations kept for backward.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "plan/memory_plan.h"
#include "runtime/backend_registry.h"

namespace rung::plan {

enum class Verdict { green, yellow, red };
std::string_view verdict_name(Verdict v);

struct PlanSuggestion {
  std::string what;       // "batch 1497 -> 96", "stream inputs in chunks of 128 rows", "bf16 activations"
  PlanOptions options;    // the options that realise it
  std::uint64_t required = 0;  // arena bytes of the re-plan
  std::uint64_t peak = 0;      // live bytes at the re-plan's peak
  bool fits = false;
};

struct Assessment {
  Verdict verdict = Verdict::green;
  std::uint64_t budget = 0;
  std::string budget_source;           // "--budget", "/proc/meminfo MemAvailable"
  std::uint64_t required = 0;          // arena bytes (after reuse) the plan needs
  std::vector<std::string> reasons;    // why red
  std::vector<std::string> warnings;   // why yellow
  std::vector<PlanSuggestion> suggestions;
};

// The memory a device offers when no --budget is given: cpu from /proc/meminfo; cuda and
// webgpu from their backend in `registry`, created with `settings` (OpBackend::
// device_memory_bytes). nullopt with an L0004 error naming the reason otherwise: the backend
// is not built, there is no device, or it reports no size.
std::optional<std::uint64_t> device_memory(Device d, std::string& source, DiagnosticSink& diags,
                                           const runtime::BackendRegistry* registry = nullptr,
                                           const runtime::BackendSettings& settings = {});

Assessment assess(const block::Program& p, const PlanOptions& opts, const MemoryPlan& plan, std::uint64_t budget);

}  // namespace rung::plan
