#include "program_loader.h"

#include <filesystem>

#include "ir/block/from_graph.h"
#include "ir/block/keg_program.h"
#include "ir/graph/keg.h"
#include "ops/signatures.h"
#include "base/file_io.h"
#include "workflow/workflow.h"
#include "frontend/frontend.h"

namespace rung::cli {
namespace {

// --tier and --tolerance over what the program declares: allowed, never silent (C0016).
void apply_overrides(block::Program& program, const LoadOptions& opts, const char* what, DiagnosticSink& diags) {
  if (!opts.tier.empty() && opts.tier != program.determinism.tier) {
    diags.warning("C0016", "--tier " + opts.tier + " overrides the " + what + "'s declared tier " + program.determinism.tier);
    program.determinism.tier = opts.tier;
  }
  if (!opts.tolerance.empty() && opts.tolerance != program.determinism.tolerance) {
    diags.warning("C0016", "--tolerance " + opts.tolerance + " overrides the " + what + "'s declared tolerance " +
                               program.determinism.tolerance);
    program.determinism.tolerance = opts.tolerance;
  }
}

}  // namespace

std::optional<block::Program> load_program(const std::string& path, const LoadOptions& opts, SourceMap& sources,
                                           DiagnosticSink& diags) {
  std::filesystem::path p(path);
  std::string ext = p.extension().string();
  if (ext == ".keg") {
    ops::RegistrySignatures signatures;
    auto keg = load_keg(path, sources, diags, &signatures);
    if (!keg) return std::nullopt;
    if (opts.keg_attachments) *opts.keg_attachments = keg->attachments;
    if (opts.keg_source) *opts.keg_source = keg->source;
    // A file `rung build` wrote carries the whole program, its declared determinism included.
    if (block::blockir_section(*keg)) {
      Graph g = std::move(keg->graph);
      auto program = block::read_blockir(*keg, std::move(g), diags);
      if (program) apply_overrides(*program, opts, "module", diags);
      return program;
    }
    std::string tier = opts.tier.empty() ? opts.fallback_tier : opts.tier;
    if (tier.empty()) {
      diags.error("C0010", "this .keg file is a bare graph (no blockir section) and declares no determinism tier: pass --tier debug|prod|fast")
          .note("rung never picks a tier for you; `debug` is bit-exact, `prod` deterministic within a tolerance class")
          .note("a .keg that `rung build` writes carries its program, declared tier included");
      return std::nullopt;
    }
    return block::program_from_graph(std::move(keg->graph), p.stem().string(),
                                     {tier, opts.tolerance.empty() ? std::string("exact") : opts.tolerance});
  }
  if (ext == ".json") {
    auto text = read_file(path, diags);
    if (!text) return std::nullopt;
    SourceId src = sources.add(path, std::move(*text));
    auto program = workflow::lower(src, sources, diags);
    if (program && !opts.tier.empty() && opts.tier != program->determinism.tier) {
      diags.warning("C0016", "--tier " + opts.tier + " overrides the workflow's declared tier " + program->determinism.tier);
      program->determinism.tier = opts.tier;
    }
    return program;
  }
  if (ext == ".rung") {
    auto program = frontend::compile_file(path, sources, diags);
    if (program) apply_overrides(*program, opts, "module", diags);
    return program;
  }
  diags.error("C0011", "cannot load '" + path + "': expected a .rung source, a .keg file or a workflow .json document");
  return std::nullopt;
}

}  // namespace rung::cli
