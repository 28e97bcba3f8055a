// `rung check FILE...`: report what is wrong with .rung files without building them.
// Each front-end stage adds its diagnostics; today that is syntax (E1xxx). Later stages
// (names, types and shapes, effects, ownership) take the tree check_syntax returns.
#include "command.h"
#include "syntax/load.h"
#include "syntax/parse.h"
#include "frontend/frontend.h"
#include "workflow/workflow.h"

namespace rung::cli {
namespace {

int run_check(const std::vector<std::string>& files, const GlobalOptions& global) {
  SourceMap sources;
  DiagnosticSink diags;
  for (const std::string& file : files) {
    std::optional<SourceId> id = syntax::load_source(file, sources, diags);
    if (!id) continue;
    if (file.size() > 5 && file.ends_with(".json")) {  // a workflow document: checked by lowering it
      (void)workflow::lower(*id, sources, diags);
      continue;
    }
    std::size_t errors_before = diags.error_count();
    syntax::SyntaxTree tree = syntax::check_syntax(sources, *id, diags);
    // The semantic stage (E2xxx) runs on trees without syntax errors.
    if (diags.error_count() == errors_before) frontend::check(tree, sources, *id, diags);
  }
  return report(diags, sources, global);
}

RUNG_COMMAND("check", "Report the diagnostics of .rung files and workflow .json documents (exit 1 if there are errors)",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto files = std::make_shared<std::vector<std::string>>();
               sub.add_option("FILE", *files, "the .rung files or workflow .json documents (- for standard input)")->required();
               return [files, &global] { return run_check(*files, global); };
             });

}  // namespace
}  // namespace rung::cli
