// Passes and the pass manager. A pass maps a valid graph to a valid graph computing the
// same values bit for bit (the numeric contract: a pass may not reorder a reduction or
// contract a*b+c). The manager runs a pipeline to a bounded fixpoint and runs the GraphIR
// validator after every pass that changed something; a failure names the pass.
#pragma once

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/diagnostic.h"
#include "ir/graph/graph.h"
#include "ir/graph/validator.h"

namespace rung {

struct PassContext {
  DiagnosticSink& diags;
  const OpSignatures* signatures = nullptr;  // the op registry, when linked in
};

class Pass {
 public:
  virtual ~Pass() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view summary() const = 0;
  virtual Graph run(const Graph& in, PassContext& ctx) = 0;
  // A cheap scan: false means run() would return a graph equal to `in`, so the manager
  // skips it (a pipeline's last, confirming iteration then costs scans, not rebuilds).
  // Must never answer false when run() would change something.
  virtual bool applies(const Graph&) const { return true; }
  // Every pass keeps results bit for bit, except opt-in precision transforms (mixed_bf16),
  // which say so here; they are never in the default pipeline.
  virtual bool exact() const { return true; }
};

// Every pass rung knows, by name (one list: the CLI, docs and tests read it).
std::vector<std::unique_ptr<Pass>> all_passes();
std::unique_ptr<Pass> make_pass(std::string_view name);  // nullptr if unknown
std::vector<std::string> default_pipeline();

struct PassStats {
  std::string pass;
  std::size_t runs = 0, changed = 0;
  std::size_t nodes_added = 0, nodes_removed = 0;  // summed over runs, by node count
  double milliseconds = 0;
};

struct PipelineOptions {
  std::vector<std::string> passes;       // empty: default_pipeline()
  std::set<std::string> print_after;     // pass names, or "all"
  int max_iterations = 10;               // of the whole pipeline
  // Receives the IR after a pass named in print_after (changed == false: "(unchanged)").
  std::function<void(std::string_view pass, int iteration, const Graph& g, bool changed)> print;
};

class PassManager {
 public:
  explicit PassManager(PipelineOptions opts) : opts_(std::move(opts)) {}
  // With explicit pass objects (tests, embedders); opts.passes is then ignored.
  PassManager(PipelineOptions opts, std::vector<std::unique_ptr<Pass>> pipeline)
      : opts_(std::move(opts)), custom_(std::move(pipeline)) {}

  // Runs the pipeline on `g` in place. Returns false (with diagnostics) if a pass broke an
  // invariant (P0001), a pass name is unknown (P0003), or the pipeline did not reach a
  // fixpoint within max_iterations (P0002). `g` is left as the last valid graph.
  bool run(Graph& g, PassContext& ctx);

  const std::vector<PassStats>& stats() const { return stats_; }
  int iterations() const { return iterations_; }

 private:
  PipelineOptions opts_;
  std::vector<std::unique_ptr<Pass>> custom_;
  std::vector<PassStats> stats_;
  int iterations_ = 0;
};

std::string format_stats(const std::vector<PassStats>& stats);

}  // namespace rung
