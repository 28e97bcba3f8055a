#include "pass_pipeline_cli.h"

#include <cstdio>
#include <sstream>
#include <vector>

#include "ir/graph/printer.h"
#include "passes/pass.h"

namespace rung::cli {
namespace {

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> v;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) v.push_back(item);
  return v;
}

}  // namespace

bool run_pass_pipeline(Graph& g, const PipelineArgs& args, DiagnosticSink& diags) {
  PipelineOptions po;
  po.passes = split_commas(args.passes);
  for (auto& p : split_commas(args.print_after)) po.print_after.insert(p);
  po.print = [](std::string_view pass, int iter, const Graph& graph, bool changed) {
    std::printf("// ----- after %s (iteration %d)%s\n", std::string(pass).c_str(), iter, changed ? "" : " (unchanged)");
    if (changed) std::printf("%s", print_regions(graph).c_str());
  };
  PassManager pm(po);
  PassContext ctx{diags};
  bool ok = pm.run(g, ctx);
  if (args.stats) std::printf("%s(%d pipeline iterations)\n", format_stats(pm.stats()).c_str(), pm.iterations());
  return ok;
}

}  // namespace rung::cli
