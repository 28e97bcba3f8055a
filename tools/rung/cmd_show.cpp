// `rung show --rung block|graph FILE`: the program a source (or .keg, or workflow) lowers
// to, as BlockIR text or as GraphIR regions.
#include <cstdio>

#include "command.h"
#include "ir/block/printer.h"
#include "ir/graph/printer.h"
#include "plan/exec_plan.h"
#include "program_loader.h"

namespace rung::cli {
namespace {

int run_show(const std::string& file, const std::string& what, const GlobalOptions& global) {
  SourceMap sources;
  DiagnosticSink diags;
  LoadOptions lo;
  lo.tier = "debug";  // .keg files declare none; showing does not run anything
  auto program = load_program(file, lo, sources, diags);
  if (!program) return report(diags, sources, global);
  std::string text;
  if (what == "plan") {  // the ExecPlan (cpu, symbolic dims need `rung plan --dim`)
    auto mp = plan::plan_program(*program, {}, diags);
    if (!mp) return report(diags, sources, global);
    text = plan::dispatch_text(*mp) + plan::summary_text(*mp);
  } else {
    text = what == "block" ? block::print(*program) : print_regions(program->graph);
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  return report(diags, sources, global);
}

RUNG_COMMAND("show", "Print the BlockIR or GraphIR a program lowers to",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto file = std::make_shared<std::string>();
               auto what = std::make_shared<std::string>("block");
               sub.add_option("FILE", *file, "a .rung source, .keg file or workflow .json")->required();
               sub.add_option("--rung", *what, "which IR: block | graph | plan")->check(CLI::IsMember({"block", "graph", "plan"}))->capture_default_str();
               return [file, what, &global] { return run_show(*file, *what, global); };
             });

}  // namespace
}  // namespace rung::cli
