// The ExecPlan of one entry lowered to the C++ of a standalone wasm module: the plan's host
// arena as one static array, each dispatch a straight-line call into backends/wasm/kernels
// with offsets and shapes as constants, region results and slot copies as memmoves, and the
// ABI exports (rung_abi, input_ptr, output_ptr, run). Nothing is allocated at run time.
//
// The entry must be straight-line BlockIR: compute statements, assignments and one return
// (T0004 names the first other statement); every op needs a wasm kernel (T0002).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backends/wasm/emit_ops.h"
#include "base/diagnostic.h"
#include "ir/block/block.h"
#include "plan/memory_plan.h"

namespace rung::wasm {

inline constexpr std::uint32_t kAbiVersion = 1;

struct PortInfo {
  std::string name;   // the slot's name ("x", "p.w1", "result")
  ArenaTensor where;  // arena offset, dtype, shape
};

struct ModuleSource {
  std::string cpp;
  std::vector<PortInfo> inputs, outputs;
  std::uint64_t arena_bytes = 0;
};

std::optional<ModuleSource> lower_entry(const block::Program& program, const plan::MemoryPlan& plan, DiagnosticSink& diags);

}  // namespace rung::wasm
