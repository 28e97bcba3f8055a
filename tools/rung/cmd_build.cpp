// `rung build FILE.rung -o FILE.keg`: check and lower a rung source, then write its GraphIR
// (every pure function is an export) as a .keg file. With -O (implied by --passes,
// --print-after and --stats) the GraphIR goes through the pass pipeline first.
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "base/file_io.h"
#include "command.h"
#include "frontend/frontend.h"
#include "ir/graph/keg.h"
#include "ir/graph/printer.h"
#include "passes/pass.h"

namespace rung::cli {
namespace {

struct BuildArgs {
  std::string file, out, passes, print_after;
  bool optimize = false, stats = false;
};

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> v;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) v.push_back(item);
  return v;
}

int run_build(const BuildArgs& a, const GlobalOptions& global) {
  SourceMap sources;
  DiagnosticSink diags;
  auto program = frontend::compile_file(a.file, sources, diags);
  if (!program) return report(diags, sources, global);
  std::string out = a.out.empty() ? std::filesystem::path(a.file).replace_extension(".keg").string() : a.out;
  Graph g = program->graph;
  if (a.optimize || !a.passes.empty() || !a.print_after.empty() || a.stats) {
    PipelineOptions po;
    po.passes = split_commas(a.passes);
    for (auto& p : split_commas(a.print_after)) po.print_after.insert(p);
    po.print = [](std::string_view pass, int iter, const Graph& graph, bool changed) {
      std::printf("// ----- after %s (iteration %d)%s\n", std::string(pass).c_str(), iter, changed ? "" : " (unchanged)");
      if (changed) std::printf("%s", print_regions(graph).c_str());
    };
    PassManager pm(po);
    PassContext ctx{diags};
    bool ok = pm.run(g, ctx);
    if (a.stats) std::printf("%s(%d pipeline iterations)\n", format_stats(pm.stats()).c_str(), pm.iterations());
    if (!ok) return report(diags, sources, global);
  }
  if (write_file_atomic(out, write_keg(g), diags))
    std::printf("wrote %s  fingerprint %s  blockir %s\n", out.c_str(), g.fingerprint().hex().c_str(), program->hash().hex().c_str());
  return report(diags, sources, global);
}

RUNG_COMMAND("build", "Check a .rung source and write its GraphIR as a .keg file",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto a = std::make_shared<BuildArgs>();
               sub.add_option("FILE", a->file, "the .rung source")->required();
               sub.add_option("-o,--output", a->out, "the .keg file to write (default: FILE with .keg)");
               sub.add_flag("-O,--optimize", a->optimize, "run the pass pipeline (default pipeline unless --passes)");
               sub.add_option("--passes", a->passes, "comma-separated pass names (implies -O)");
               sub.add_option("--print-after", a->print_after, "print the IR after these passes, or all (implies -O)");
               sub.add_flag("--stats", a->stats, "per-pass statistics: runs, changes, nodes added/removed, time (implies -O)");
               return [a, &global] { return run_build(*a, global); };
             });

}  // namespace
}  // namespace rung::cli
