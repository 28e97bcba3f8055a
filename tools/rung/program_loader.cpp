#include "program_loader.h"

#include <filesystem>

#include "ir/block/from_graph.h"
#include "ir/graph/keg.h"
#include "ops/signatures.h"

namespace rung::cli {

std::optional<block::Program> load_program(const std::string& path, const LoadOptions& opts, SourceMap& sources,
                                           DiagnosticSink& diags) {
  std::filesystem::path p(path);
  std::string ext = p.extension().string();
  if (ext == ".keg") {
    ops::RegistrySignatures signatures;
    auto keg = load_keg(path, sources, diags, &signatures);
    if (!keg) return std::nullopt;
    if (opts.tier.empty()) {
      diags.error("C0010", "a .keg file declares no determinism tier: pass --tier debug|prod|fast")
          .note("rung never picks a tier for you; `debug` is bit-exact, `prod` deterministic within a tolerance class");
      return std::nullopt;
    }
    return block::program_from_graph(std::move(keg->graph), p.stem().string(),
                                     {opts.tier, opts.tolerance.empty() ? std::string("exact") : opts.tolerance});
  }
  diags.error("C0011", "cannot run '" + path + "': expected a .keg file")
      .note(".rung sources and workflow .json documents are accepted once the language front end is built in");
  return std::nullopt;
}

}  // namespace rung::cli
