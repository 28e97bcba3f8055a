// The host walk: evaluates a GraphIR region node by node on host tensors, in a topological
// order, with one node evaluator (a backend's kernels; by default the op registry's scalar
// reference kernels, which makes it the reference backend). Values die after their last use;
// an elementwise op whose operand dies there writes into the operand's storage (in_place.h);
// every value it makes is counted by the active memory meter (memory_meter.h). The reference
// backend (backends/reference) and the CPU backend run regions with it, and it is
// OpBackend::run_region's default; device backends walk regions with device_walk.h instead.
//
// Diagnostics: R0001..R0004 (walk_common.h); kernel failures arrive as the registry's N-codes
// with the node named in a note.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "ir/graph/graph.h"
#include "ops/host_tensor.h"
#include "ops/registry.h"
#include "ops/tier.h"

namespace rung::runtime {

// Evaluates one node's op: a backend plugs its kernels into the walk with it
// (OpBackend::run_region). Null: the registry's reference kernels.
using NodeEvaluator = std::function<std::optional<std::vector<ops::HostTensor>>(
    const ops::OpDef& op, std::span<const ops::HostTensor> inputs, const AttrMap& attrs, DiagnosticSink& diags)>;

// A backend's own executor for some `call` nodes (a fused region, say): returns true when it
// took the node (results in `out`, or nullopt after a diagnostic), false to let the walk
// recurse into the callee as usual.
using CallEvaluator = std::function<bool(const Graph& g, const Node& call, std::span<const ops::HostTensor> inputs,
                                         DiagnosticSink& diags, std::optional<std::vector<ops::HostTensor>>& out)>;

struct WalkOptions {
  ops::Tier tier = ops::Tier::debug;
  int max_call_depth = 64;
  NodeEvaluator evaluate;
  CallEvaluator call;
};

// Arguments a caller hands over to the region it runs next (the BlockIR executor does so
// for slots whose value dies at that `compute`): the walk moves them in instead of copying
// and frees each after its last use inside the region, like the region's own values. Set
// for the current thread with ScopedHandOver around one backend call; the first top-level
// walk_region given exactly `args` (same storage) takes them and sets `taken`. A backend
// that runs regions another way leaves them untaken; the caller then frees them after the
// call, as before.
struct HandOver {
  std::vector<ops::HostTensor>* args = nullptr;
  std::vector<bool> owned;  // per argument
  bool taken = false;
};
class ScopedHandOver {
 public:
  explicit ScopedHandOver(HandOver* h);
  ~ScopedHandOver();
  ScopedHandOver(const ScopedHandOver&) = delete;
  ScopedHandOver& operator=(const ScopedHandOver&) = delete;

 private:
  HandOver* previous_;
};

// Where each node came from in the source, by node hash (the front end's debug info,
// block::Program::node_spans): a node whose evaluation fails puts its span on the
// diagnostic as the primary label, so a run-time error underlines the op, not the function.
// Set for the current thread around one backend call, like ScopedHandOver.
using NodeSpans = std::map<Hash256, Span>;
class ScopedNodeSpans {
 public:
  explicit ScopedNodeSpans(const NodeSpans* spans);
  ~ScopedNodeSpans();
  ScopedNodeSpans(const ScopedNodeSpans&) = delete;
  ScopedNodeSpans& operator=(const ScopedNodeSpans&) = delete;

 private:
  const NodeSpans* previous_;
};
// Labels the last diagnostic with node `n`'s span when one is known and it has no primary label.
void locate_failure(const Node& n, DiagnosticSink& diags);

std::optional<std::vector<ops::HostTensor>> walk_region(const Graph& g, RegionId region,
                                                        std::span<const ops::HostTensor> args, DiagnosticSink& diags,
                                                        const WalkOptions& options = {});

}  // namespace rung::runtime
