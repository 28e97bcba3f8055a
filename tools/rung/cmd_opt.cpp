// `rung opt`: run GraphIR passes over a .keg file, validating after every pass. A file with
// a blockir section stays a whole program: its compute statements follow their regions.
#include <cstdio>

#include "base/file_io.h"
#include "command.h"
#include "pass_pipeline_cli.h"
#include "ir/block/fingerprint.h"
#include "ir/block/keg_program.h"
#include "ir/graph/keg.h"
#include "passes/pass.h"

namespace rung::cli {
namespace {

struct OptArgs {
  std::string file, out, passes, print_after;
  bool stats = false, list = false;
};

int run_opt(const OptArgs& a, const GlobalOptions& global) {
  if (a.list) {
    for (const auto& p : all_passes()) std::printf("%-10s %s\n", std::string(p->name()).c_str(), std::string(p->summary()).c_str());
    std::string def;
    for (const auto& n : default_pipeline()) def += (def.empty() ? "" : ",") + n;
    std::printf("default pipeline: %s\n", def.c_str());
    return kExitOk;
  }
  SourceMap sources;
  DiagnosticSink diags;
  if (a.file.empty()) {
    std::fprintf(stderr, "rung opt: FILE is required (or --list-passes)\n");
    return kExitUsage;
  }
  auto keg = load_keg(a.file, sources, diags);
  if (!keg) return report(diags, sources, global);
  PipelineArgs pa{a.passes, a.print_after, a.stats};
  if (block::blockir_section(*keg)) {  // a whole program: its BlockIR follows the regions the passes rewrite
    Graph g = std::move(keg->graph);
    auto program = block::read_blockir(*keg, std::move(g), diags);
    if (!program) return report(diags, sources, global);
    Hash256 before = block::program_fingerprint(*program);
    if (!run_pass_pipeline(*program, pa, diags) || a.out.empty()) return report(diags, sources, global);
    auto bytes = block::write_program_keg(*program, {}, diags);
    if (bytes && write_file_atomic(a.out, *bytes, diags))
      std::printf("wrote %s (%zu nodes; fingerprint %s -> %s)\n", a.out.c_str(), program->graph.node_count(),
                  before.short_hex(16).c_str(), block::program_fingerprint(*program).short_hex(16).c_str());
    return report(diags, sources, global);
  }
  Graph g = std::move(keg->graph);
  Hash256 before = g.fingerprint();
  bool ok = run_pass_pipeline(g, pa, diags);
  if (ok && !a.out.empty() && write_file_atomic(a.out, write_keg(g), diags))
    std::printf("wrote %s (%zu nodes; fingerprint %s -> %s)\n", a.out.c_str(), g.node_count(), before.short_hex(16).c_str(),
                g.fingerprint().short_hex(16).c_str());
  return report(diags, sources, global);
}

RUNG_COMMAND("opt", "Run GraphIR passes over a .keg file (validated after every pass)",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto a = std::make_shared<OptArgs>();
               sub.add_option("FILE", a->file, "the .keg file");
               sub.add_option("-o,--output", a->out, "write the optimised graph here");
               sub.add_option("--passes", a->passes, "comma-separated pass names (default: the default pipeline)");
               sub.add_option("--print-after", a->print_after, "print the IR after these passes (comma-separated, or all)");
               sub.add_flag("--stats", a->stats, "per-pass statistics: runs, changes, nodes added/removed, time");
               sub.add_flag("--list-passes", a->list, "list the passes and the default pipeline");
               return [a, &global] { return run_opt(*a, global); };
             });

}  // namespace
}  // namespace rung::cli
