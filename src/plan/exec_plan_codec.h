// The ExecPlan as bytes: the payload of the optional `exec_plan` section of a .keg file
// (docs/keg-format.md frames it; this layer owns what is inside). The encoding carries every
// field the plan's content hash covers plus what `rung show --rung plan` prints; derived
// figures (peak, classes, arenas) are recomputed on decoding and the stored offsets and the
// stored content hash must agree with the recomputation.
//
// Decoding treats the bytes as hostile: counts bounded by what is left, every index
// checked, strings valid UTF-8, events consistent with buffer lifetimes. Every problem is a
// K0020 diagnostic at the file offset where it was found.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "base/diagnostic.h"
#include "base/hash.h"
#include "plan/memory_plan.h"

namespace rung::plan {

inline constexpr std::uint32_t kExecPlanEncodingVersion = 1;

struct StoredPlan {
  MemoryPlan plan;
  Hash256 hash;     // the content hash (exec_plan_hash), verified against the content
  Hash256 program;  // the BlockIR hash of the program that was planned
};

std::vector<std::uint8_t> encode_exec_plan(const MemoryPlan& plan, const Hash256& program_hash);

// `file_offset`: where `payload` starts in the file `source` (for diagnostics).
std::optional<StoredPlan> decode_exec_plan(std::span<const std::uint8_t> payload, std::uint64_t file_offset, SourceId source,
                                           DiagnosticSink& diags);

}  // namespace rung::plan
