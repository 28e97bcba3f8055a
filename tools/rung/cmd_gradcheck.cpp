// `rung gradcheck OP|FILE [--fn NAME]`: checks gradients against central finite
// differences of the forward evaluated in binary64 (src/autodiff/gradcheck.h).
//   OP    a registry op: every built-in case of it;
//   FILE  a .rung source: the exported function NAME (or every pure export with a
//         floating-point parameter and result), at generated arguments.
// Prints a table of max abs/rel error per input; exit 1 when a check fails.
#include <cstdio>
#include <map>
#include <sstream>

#include "autodiff/autodiff.h"
#include "autodiff/gradcheck.h"
#include "autodiff/gradient_rule.h"
#include "command.h"
#include "frontend/frontend.h"
#include "ops/registry.h"

namespace rung::cli {
namespace {

struct GradcheckArgs {
  std::string target, fn;
  std::vector<std::string> dims;  // NAME=VALUE bindings for symbolic dims
  autodiff::GradcheckOptions opts;
  std::int64_t int_max = 1;
};

int check_op(const GradcheckArgs& a, const GlobalOptions& global) {
  SourceMap sources;
  DiagnosticSink diags;
  autodiff::ensure_gradient_rules();
  const ops::OpDef* def = ops::op_registry().find(a.target);
  if (def->gradient && !def->gradient->differentiable()) {
    diags.error("D0013", "op `" + a.target + "` is declared not differentiable (" + def->gradient->not_differentiable + ")");
    return report(diags, sources, global);
  }
  auto cases = autodiff::builtin_cases(a.target);
  if (cases.empty()) {
    diags.error("D0013", "op `" + a.target + "` has no built-in gradcheck case");
    return report(diags, sources, global);
  }
  bool ok = true;
  for (const auto& c : cases) {
    auto rep = autodiff::gradcheck_op(c, a.opts, diags);
    if (!rep) return report(diags, sources, global);
    std::printf("%s", rep->table(a.opts).c_str());
    ok = ok && rep->ok();
  }
  int rc = report(diags, sources, global);
  return ok ? rc : kExitDiagnostics;
}

int check_file(const GradcheckArgs& a, const GlobalOptions& global) {
  SourceMap sources;
  DiagnosticSink diags;
  std::map<std::string, std::uint64_t> dims;
  for (const auto& b : a.dims) {
    auto eq = b.find('=');
    if (eq == std::string::npos) {
      std::fprintf(stderr, "rung gradcheck: --dim takes NAME=VALUE, got `%s`\n", b.c_str());
      return kExitUsage;
    }
    dims[b.substr(0, eq)] = std::stoull(b.substr(eq + 1));
  }
  auto program = frontend::compile_file(a.target, sources, diags);
  if (!program) return report(diags, sources, global);
  Graph g = program->graph;
  std::vector<std::pair<std::string, RegionId>> targets;
  for (const auto& [name, rid] : g.exports())
    if (a.fn.empty() || name == a.fn) targets.push_back({name, rid});
  if (targets.empty()) {
    std::string known;
    for (const auto& [name, rid] : g.exports()) known += (known.empty() ? "" : ", ") + name;
    diags.error("D0015", a.fn.empty() ? "`" + a.target + "` exports no pure function" : "no exported function `" + a.fn + "` in `" + a.target + "`")
        .note("exported: " + (known.empty() ? std::string("none") : known));
    return report(diags, sources, global);
  }
  bool ok = true, any = false;
  for (const auto& [name, rid] : targets) {
    const Region r = g.region(rid);
    std::vector<std::size_t> wrt;
    for (std::size_t i = 0; i < r.params.size(); ++i)
      if (dtype_info(g.node(r.params[i]).outputs[0].dtype).is_float) wrt.push_back(i);
    if (wrt.empty()) {
      if (!a.fn.empty()) diags.error("D0016", "`" + name + "` has no floating-point parameter to differentiate");
      continue;
    }
    auto args = autodiff::generate_args(g, r, dims, 0, a.opts.seed, a.int_max, diags);
    if (!args) break;
    auto rep = autodiff::gradcheck_region(g, rid, *args, wrt, a.opts, diags);
    if (!rep) break;
    any = true;
    std::printf("%s", rep->table(a.opts).c_str());
    ok = ok && rep->ok();
  }
  int rc = report(diags, sources, global);
  if (rc != kExitOk) return rc;
  if (!any) {
    std::fprintf(stderr, "rung gradcheck: no exported function of `%s` has a floating-point parameter\n", a.target.c_str());
    return kExitDiagnostics;
  }
  return ok ? kExitOk : kExitDiagnostics;
}

int run_gradcheck(const GradcheckArgs& a, const GlobalOptions& global) {
  autodiff::ensure_gradient_rules();
  if (ops::op_registry().find(a.target)) return check_op(a, global);
  if (a.target.size() > 5 && a.target.substr(a.target.size() - 5) == ".rung") return check_file(a, global);
  SourceMap sources;
  DiagnosticSink diags;
  diags.error("D0012", "`" + a.target + "` is neither a registry op nor a .rung file")
      .note("`rung ops` lists the ops");
  return report(diags, sources, global);
}

RUNG_COMMAND("gradcheck", "Check gradients against binary64 central differences (a registry op or a .rung function)",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto a = std::make_shared<GradcheckArgs>();
               sub.add_option("TARGET", a->target, "a registry op name, or a .rung file")->required();
               sub.add_option("--fn", a->fn, "the exported function of FILE to check (default: every one)");
               sub.add_option("--dim", a->dims, "bind a symbolic dim, NAME=VALUE (repeatable)");
               sub.add_option("--step", a->opts.step, "finite-difference step (default 1e-6)");
               sub.add_option("--tolerance", a->opts.tolerance, "allowed |analytic - numeric| / (1 + |numeric|) (default 1e-6)");
               sub.add_option("--max-elements", a->opts.max_elements, "elements checked per input (default 64)");
               sub.add_option("--seed", a->opts.seed, "seed of the generated arguments and weights");
               sub.add_option("--int-max", a->int_max, "integer arguments are drawn from [0, int-max] (default 1)");
               return [a, &global] { return run_gradcheck(*a, global); };
             });

}  // namespace
}  // namespace rung::cli
