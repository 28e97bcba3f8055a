// `rung gradcheck OP|FILE [--fn NAME]`: checks gradients against central finite
// differences of the forward evaluated in binary64 (rung::gradcheck, rung/conform.h).
//   OP    a registry op: every built-in case of it;
//   FILE  a .rung source: the exported function NAME (or every pure export with a
//         floating-point parameter and result), at generated arguments.
// Prints a table of max abs/rel error per input; exit 1 when a check fails.
#include <rung/conform.h>

#include <cstdio>

#include "command.h"

namespace rung::cli {
namespace {

struct GradcheckArgs {
  GradcheckOptions opts;
  std::vector<std::string> dims;  // NAME=VALUE bindings for symbolic dims
};

int run_gradcheck(GradcheckArgs a, const GlobalOptions& global) {
  const std::string& target = a.opts.target;
  if (target.size() > 5 && target.substr(target.size() - 5) == ".rung") {  // dims are a file's (no op name has a dot)
    for (const auto& b : a.dims) {
      auto eq = b.find('=');
      if (eq == std::string::npos) {
        std::fprintf(stderr, "rung gradcheck: --dim takes NAME=VALUE, got `%s`\n", b.c_str());
        return kExitUsage;
      }
      a.opts.dims[b.substr(0, eq)] = std::stoull(b.substr(eq + 1));
    }
  }
  GradcheckReport r = gradcheck(a.opts);
  std::printf("%s", r.text.c_str());
  int rc = report(r.diagnostics, global);
  if (rc != kExitOk) return rc;
  if (r.of_file && r.checked == 0) {
    std::fprintf(stderr, "rung gradcheck: no exported function of `%s` has a floating-point parameter\n", target.c_str());
    return kExitDiagnostics;
  }
  return r.ok ? kExitOk : kExitDiagnostics;
}

RUNG_COMMAND("gradcheck", "Check gradients against binary64 central differences (a registry op or a .rung function)",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto a = std::make_shared<GradcheckArgs>();
               sub.add_option("TARGET", a->opts.target, "a registry op name, or a .rung file")->required();
               sub.add_option("--fn", a->opts.function, "the exported function of FILE to check (default: every one)");
               sub.add_option("--dim", a->dims, "bind a symbolic dim, NAME=VALUE (repeatable)");
               sub.add_option("--step", a->opts.step, "finite-difference step (default 1e-6)");
               sub.add_option("--tolerance", a->opts.tolerance, "allowed |analytic - numeric| / (1 + |numeric|) (default 1e-6)");
               sub.add_option("--max-elements", a->opts.max_elements, "elements checked per input (default 64)");
               sub.add_option("--seed", a->opts.seed, "seed of the generated arguments and weights");
               sub.add_option("--int-max", a->opts.int_max, "integer arguments are drawn from [0, int-max] (default 1)");
               return [a, &global] { return run_gradcheck(*a, global); };
             });

}  // namespace
}  // namespace rung::cli
