// Fused elementwise regions: a `call` node with attrs fusion = "elementwise" whose callee
// holds only elementwise / compare / cast / where ops on operands whose shapes broadcast to
// the output's (what the fusion pass produces). The CPU backend runs such a call chunk by
// chunk (kFusedChunk elements of the output): a broadcast operand is gathered per chunk (its
// elements for those output indices, broadcast_chunk.h), then every node of the callee runs
// its own CPU kernel on chunk-sized tensors, so intermediates never exist at full size and each element sees exactly the
// operation sequence (and the roundings to each node's dtype) of the unfused graph.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "backends/cpu/thread_pool.h"
#include "base/diagnostic.h"
#include "ir/graph/graph.h"
#include "ops/host_tensor.h"

namespace rung::cpu {

inline constexpr std::uint64_t kFusedChunk = 16384;  // 64 KiB per f32 value: a region's values stay in L2

bool is_fused_elementwise_call(const Graph& g, const Node& call);

// The call's results, or nullopt after a diagnostic (H0002 when the callee is not a fusible
// elementwise region; the registry's N-codes for kernel failures).
std::optional<std::vector<ops::HostTensor>> run_fused_elementwise(const Graph& g, const Node& call,
                                                                  std::span<const ops::HostTensor> args, ThreadPool& pool,
                                                                  DiagnosticSink& diags, bool poison_uninitialized = false);

}  // namespace rung::cpu
