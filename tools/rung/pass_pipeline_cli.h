// The pass pipeline as `rung build -O` and `rung opt` run it: --passes (default pipeline when
// empty), --print-after (comma-separated or `all`; each printed graph goes to stdout) and
// --stats. One place, so that the two commands cannot drift apart.
#pragma once

#include <string>

#include "base/diagnostic.h"
#include "ir/block/block.h"
#include "ir/graph/graph.h"

namespace rung::cli {

struct PipelineArgs {
  std::string passes;       // comma-separated pass names; empty: the default pipeline
  std::string print_after;  // comma-separated pass names, or `all`
  bool stats = false;
};

// Runs the pipeline over `g`, validating after every pass; false when a pass or the
// validator reported an error (in `diags`).
bool run_pass_pipeline(Graph& g, const PipelineArgs& args, DiagnosticSink& diags);

// The pipeline over a whole program's graph: every region its BlockIR computes in is kept
// (exported under a name no function can have for the run: passes keep exports by name),
// then each compute statement names what the passes made of its region (a region's hash is
// its content) and the program's own exports are restored. The result is verified.
bool run_pass_pipeline(block::Program& p, const PipelineArgs& args, DiagnosticSink& diags);

}  // namespace rung::cli
