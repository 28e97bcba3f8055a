// `rung opt`: run GraphIR passes over a .keg file, validating after every pass (rung::optimize,
// rung/build.h). A file with a blockir section stays a whole program: its compute statements
// follow their regions.
#include <rung/build.h>
#include <rung/registry.h>

#include <cstdio>

#include "command.h"
#include "pipeline_args.h"

namespace rung::cli {
namespace {

struct OptArgs {
  std::string file, out;
  PipelineArgs pipeline;
  bool list = false;
};

int run_opt(const OptArgs& a, const GlobalOptions& global) {
  if (a.list) {
    PassList passes = pass_list();
    for (const auto& p : passes.passes) std::printf("%-10s %s\n", p.name.c_str(), p.summary.c_str());
    std::string def;
    for (const auto& n : passes.default_pipeline) def += (def.empty() ? "" : ",") + n;
    std::printf("default pipeline: %s\n", def.c_str());
    return kExitOk;
  }
  if (a.file.empty()) {
    std::fprintf(stderr, "rung opt: FILE is required (or --list-passes)\n");
    return kExitUsage;
  }
  auto r = optimize(Source::file(a.file), {a.out, pipeline_of(a.pipeline)});
  if (r && r->written)
    std::printf("wrote %s (%llu nodes; fingerprint %s -> %s)\n", r->path.c_str(), static_cast<unsigned long long>(r->nodes),
                r->fingerprint_before.substr(0, 16).c_str(), r->fingerprint_after.substr(0, 16).c_str());
  return report(r.diagnostics(), global);
}

RUNG_COMMAND("opt", "Run GraphIR passes over a .keg file (validated after every pass)",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto a = std::make_shared<OptArgs>();
               sub.add_option("FILE", a->file, "the .keg file");
               sub.add_option("-o,--output", a->out, "write the optimised graph here");
               sub.add_option("--passes", a->pipeline.passes, "comma-separated pass names (default: the default pipeline)");
               sub.add_option("--print-after", a->pipeline.print_after, "print the IR after these passes (comma-separated, or all)");
               sub.add_flag("--stats", a->pipeline.stats, "per-pass statistics: runs, changes, nodes added/removed, time");
               sub.add_flag("--list-passes", a->list, "list the passes and the default pipeline");
               return [a, &global] { return run_opt(*a, global); };
             });

}  // namespace
}  // namespace rung::cli
