// `rung check FILE...`: report what is wrong with .rung files without building them.
// Each front-end stage adds its diagnostics (rung::check, rung/inspect.h): syntax (E1xxx),
// then the semantic checks (E2xxx) on trees without syntax errors; a workflow .json document
// is checked by lowering it.
#include <rung/inspect.h>

#include "command.h"

namespace rung::cli {
namespace {

int run_check(const std::vector<std::string>& files, const GlobalOptions& global) {
  std::vector<Source> sources;
  for (const std::string& file : files) sources.push_back(Source::file(file));
  return report(rung::check(sources), global);
}

RUNG_COMMAND("check", "Report the diagnostics of .rung files and workflow .json documents (exit 1 if there are errors)",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto files = std::make_shared<std::vector<std::string>>();
               sub.add_option("FILE", *files, "the .rung files or workflow .json documents (- for standard input)")->required();
               return [files, &global] { return run_check(*files, global); };
             });

}  // namespace
}  // namespace rung::cli
