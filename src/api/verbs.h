// What the tool verbs of the public API (inspect.h, build.h, plan.h, conform.h, eval.h,
// registry.h) share inside the library: a Source's text in a SourceMap, a program loaded
// through Module::load and Program::compile with every diagnostic kept in one sink, and the
// pass pipeline over a graph or a whole program. Private to src/api/.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/impl.h"
#include "base/diagnostic.h"
#include "base/source.h"
#include "ir/block/block.h"
#include "ir/graph/graph.h"
#include "plan/memory_plan.h"
#include "rung/build.h"
#include "rung/module.h"
#include "rung/program.h"

namespace rung::api {

// A Source's text added to `sources`: a file read as the CLI reads it (`-` is standard input;
// C0002 past the size limit), bytes in memory under their name.
std::optional<SourceId> add_source(const Source& src, SourceMap& sources, DiagnosticSink& diags);

// A .rung source checked and lowered: a file with its imports next to it, or text in memory.
std::optional<block::Program> lower_rung(const Source& src, SourceMap& sources, DiagnosticSink& diags);

// A device a plan is made for (cpu | cuda | webgpu); L0008 for another name.
std::optional<plan::Device> plan_device(const std::string& name, DiagnosticSink& diags);
// Symbolic dims bound up front, each "NAME=EXTENT" (L0008 for one that is not).
void bind_dims(const std::vector<std::string>& dims, plan::PlanOptions& o, DiagnosticSink& diags);

// Diagnostics of the library's own form moved into one sink: what `from` reported (its spans
// point into `from`'s sources, which `sources` becomes when it is still unset).
void take(const Diagnostics& from, DiagnosticSink& diags, std::shared_ptr<const SourceMap>& sources);

// How a verb that runs nothing asks for the determinism (`rung show`, `rung plan`).
struct LoadDeterminism {
  std::optional<std::string> tier;       // overrides a declared tier (C0016)
  std::optional<std::string> tolerance;  // overrides a declared class (C0016)
  // A file that declares none (a bare .keg graph): this tier, class exact.
  std::optional<std::string> fallback_tier;
  // The given tier stands in for the missing declaration too (as `fallback_tier`): a verb
  // that runs nothing needs no class.
  bool tier_as_fallback = false;
};

// Module::load then Program::compile; load warnings, compile warnings (C0016) and errors go
// to `diags`, with `sources` the map they point into (the module's).
std::optional<Program> load_program(const Source& src, const LoadDeterminism& det, DiagnosticSink& diags,
                                    std::shared_ptr<const SourceMap>& sources);

// The pass pipeline as `rung build -O` and `rung opt` run it, validating after every pass:
// over a graph, or over a whole program (its compute statements follow their regions, the
// result verified). False when a pass or the validator reported an error.
bool run_pipeline(Graph& g, const PassPipeline& pipeline, DiagnosticSink& diags);
bool run_pipeline(block::Program& p, const PassPipeline& pipeline, DiagnosticSink& diags);

// Text to a callback that may be empty.
inline void emit(const std::function<void(std::string_view)>& to, std::string_view text) {
  if (to) to(text);
}

}  // namespace rung::api
