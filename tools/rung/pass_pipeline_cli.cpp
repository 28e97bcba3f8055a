#include "pass_pipeline_cli.h"

#include <cstdio>
#include <sstream>
#include <vector>

#include "ir/block/verify.h"
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

namespace {

// Every compute statement of the program, nested ones included (iteratively: depth is data).
template <typename F>
void for_each_compute(block::Program& p, F&& f) {
  std::vector<std::vector<block::Stmt>*> stack;
  for (auto& fn : p.functions) stack.push_back(&fn.body);
  while (!stack.empty()) {
    auto* list = stack.back();
    stack.pop_back();
    for (auto& s : *list) {
      if (s.kind == block::StmtKind::compute) f(s);
      for (auto* nested : {&s.cond_body, &s.body, &s.else_body}) stack.push_back(nested);
    }
  }
}

}  // namespace

bool run_pass_pipeline(block::Program& p, const PipelineArgs& args, DiagnosticSink& diags) {
  Graph& g = p.graph;
  const std::map<std::string, RegionId> own = g.exports();
  std::map<Hash256, std::string> alias;  // region a statement computes in -> its export for the run
  bool missing = false;
  for_each_compute(p, [&](const block::Stmt& s) {
    auto r = g.find_region(s.region);
    if (!r) {
      missing = true;
      return;
    }
    auto [it, fresh] = alias.emplace(s.region, "%blockir/" + s.region.hex());
    if (fresh) g.set_export(it->second, *r);
  });
  if (missing) return block::verify(p, diags);  // B0002 names the statement
  if (!run_pass_pipeline(g, args, diags)) return false;
  std::map<Hash256, Hash256> renamed;
  for (const auto& [old_hash, name] : alias) renamed.emplace(old_hash, g.region(g.exports().at(name)).hash);
  for_each_compute(p, [&](block::Stmt& s) { s.region = renamed.at(s.region); });
  // The same nodes and regions (same ids), with the program's own exports only.
  Graph out;
  out.reserve(g.node_count());
  for (const auto& n : g.nodes()) out.adopt_node(n);
  for (const auto& r : g.regions()) out.adopt_region(r);
  for (const auto& [name, r] : own) out.set_export(name, g.exports().at(name));
  g = std::move(out);
  return block::verify(p, diags);
}

}  // namespace rung::cli
