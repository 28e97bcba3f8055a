// The memory plan before running (`rung plan`): the class breakdown, the peak and where it
// happens, a verdict against a budget and, for red, suggestions each verified by planning
// again with the change applied. docs/plan.md describes the plan and the L-codes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rung/diagnostics.h"
#include "rung/environment.h"
#include "rung/export.h"
#include "rung/module.h"

namespace rung {

struct MemoryPlanOptions {
  std::string device = "cpu";  // cpu | cuda | webgpu
  std::string entry;           // the function to plan; empty: the only exported one
  // For a .keg graph that declares none; over a declared tier it overrides (C0016).
  std::optional<std::string> tier;
  // Sizes as written ("2GiB", "512MiB", bytes; L0008 when malformed). budget empty: the
  // device's memory (L0004 when unknown); binding_limit empty: none (webgpu: 128MiB).
  std::string budget, binding_limit;
  std::string stream;                // plan the inputs streamed in chunks of this many rows
  std::vector<std::string> dims;     // symbolic dims, "NAME=EXTENT"
  std::uint64_t batch = 0;           // bind the batch dim to this many rows (0: no)
  bool bf16_activations = false;     // plan the activations kept for backward in bf16
  // The device backend asked for its memory when no budget is given is created with these
  // settings (the webgpu adapter choice, for one).
  Environment environment = Environment::from_process();
};

struct PlanSuggestion {
  std::string what;  // "batch 1497 -> 96", "stream inputs in chunks of 128 rows", "bf16 activations"
  std::uint64_t peak = 0, required = 0;
  bool fits = false;  // verified by re-planning
};

struct MemoryPlan {
  std::string entry, device;
  std::string summary;  // the plan for people: classes, peak and where, arenas
  std::string verdict;  // green (fits) | yellow (fits, with warnings) | red (refused)
  std::uint64_t budget = 0;
  std::string budget_source;  // "--budget", "/proc/meminfo MemAvailable"
  std::uint64_t required = 0;  // arena bytes after reuse
  std::vector<std::string> reasons;   // why red
  std::vector<std::string> warnings;  // why yellow
  std::vector<PlanSuggestion> suggestions;
  std::string json;  // the whole plan and its verdict, indented by two spaces
};

RUNG_API Result<MemoryPlan> plan_memory(const Source& source, const MemoryPlanOptions& options = {});

// A size for people: "1.42 MiB", "812 B".
RUNG_API std::string format_bytes(std::uint64_t bytes);

}  // namespace rung
