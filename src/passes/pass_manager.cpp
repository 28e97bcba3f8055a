#include "passes/pass.h"

#include <chrono>
#include <cstdio>
#include <optional>

namespace rung {

namespace {
// A pass changed the graph when the computation (fingerprint) or the stored node set did.
bool same_graph(const Graph& a, const Graph& b) {
  return a.node_count() == b.node_count() && a.region_count() == b.region_count() && a.fingerprint() == b.fingerprint();
}
}  // namespace

bool PassManager::run(Graph& g, PassContext& ctx) {
  std::vector<std::string> names = opts_.passes.empty() ? default_pipeline() : opts_.passes;
  std::vector<std::unique_ptr<Pass>> pipeline = std::move(custom_);
  custom_.clear();
  if (!pipeline.empty()) names.clear();
  for (const auto& n : names) {
    auto p = make_pass(n);
    if (!p) {
      std::string known;
      for (const auto& k : all_passes()) known += (known.empty() ? "" : ", ") + std::string(k->name());
      ctx.diags.error("P0003", "unknown pass `" + n + "`").note("known passes: " + known);
      return false;
    }
    pipeline.push_back(std::move(p));
  }
  stats_.clear();
  for (const auto& p : pipeline) stats_.push_back({std::string(p->name())});
  bool print_all = opts_.print_after.count("all") > 0;

  for (iterations_ = 1; iterations_ <= opts_.max_iterations; ++iterations_) {
    bool any_change = false;
    for (std::size_t i = 0; i < pipeline.size(); ++i) {
      Pass& pass = *pipeline[i];
      auto t0 = std::chrono::steady_clock::now();
      std::optional<Graph> next;
      if (pass.applies(g)) next = pass.run(g, ctx);
      auto t1 = std::chrono::steady_clock::now();
      PassStats& st = stats_[i];
      ++st.runs;
      st.milliseconds += std::chrono::duration<double, std::milli>(t1 - t0).count();
      if (ctx.diags.has_errors()) return false;  // the pass itself reported a user error
      bool changed = next && !same_graph(g, *next);
      if (changed) {
        DiagnosticSink inner;
        ValidateOptions vo;
        vo.signatures = ctx.signatures;
        if (!validate(*next, inner, vo)) {
          auto& d = ctx.diags.error("P0001", "pass `" + std::string(pass.name()) + "` produced invalid GraphIR (a bug in the pass)");
          for (const auto& v : inner.all()) d.note("[" + v.code + "] " + v.message);
          return false;
        }
        ++st.changed;
        if (next->node_count() > g.node_count()) st.nodes_added += next->node_count() - g.node_count();
        else st.nodes_removed += g.node_count() - next->node_count();
        g = std::move(*next);
        any_change = true;
      }
      if (opts_.print && (print_all || opts_.print_after.count(std::string(pass.name()))))
        opts_.print(pass.name(), iterations_, g, changed);
    }
    if (!any_change) return true;
  }
  ctx.diags.error("P0002", "the pass pipeline did not reach a fixpoint in " + std::to_string(opts_.max_iterations) + " iterations")
      .note("a pass keeps changing the graph; run with --print-after=all to see which");
  return false;
}

std::string format_stats(const std::vector<PassStats>& stats) {
  std::string out = "pass            runs  changed  +nodes  -nodes      ms\n";
  char line[160];
  for (const auto& s : stats) {
    std::snprintf(line, sizeof line, "%-14s %5zu %8zu %7zu %7zu %7.2f\n", s.pass.c_str(), s.runs, s.changed, s.nodes_added,
                  s.nodes_removed, s.milliseconds);
    out += line;
  }
  return out;
}

}  // namespace rung
