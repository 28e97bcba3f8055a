// A fused elementwise call (attrs fusion = "elementwise", emitted by the fuse pass) run as
// ONE generated kernel on device values: fused_codegen.cpp writes it, fused_module.cpp
// compiles it with NVRTC. A region the generator cannot handle is not an error: the caller
// runs the callee node by node and records that (counted in the Context, warning U0005).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "backends/cuda/cuda_context.h"
#include "ir/graph/graph.h"

namespace rung::cuda {

bool is_fused_elementwise(const Node& call);

enum class FusedOutcome { ran, op_by_op, failed };

// ran: `out` holds the call's results. op_by_op: `why` says what the generator could not
// handle (or that the arguments do not fit one element space); nothing was enqueued.
// failed: a diagnostic was added (U0006 the generated kernel did not compile or load; U0002
// a CUDA call failed).
FusedOutcome run_fused_call(Context& ctx, const Graph& g, const Region& callee, std::span<const DevTensor> args,
                            std::vector<DevTensor>& out, std::string& why, DiagnosticSink& diags);

}  // namespace rung::cuda
