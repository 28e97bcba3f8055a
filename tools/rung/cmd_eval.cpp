// `rung eval OP --input ... [--attr k=v] [--json]`: evaluate one op on the reference kernels
// for quick checks (rung::eval, rung/eval.h). Inputs are inline tensors (`[[1,2],[3,4]]`,
// `i64:[1,2]`, `f32[2,3]:0.5`) or .npy files; `--expect` compares the first result under a
// tolerance class and prints the verdict (N0020 when it differs). Bad input is a diagnostic
// with a caret, never a crash.
#include <rung/eval.h>

#include <cstdio>
#include <iostream>

#include "command.h"

namespace rung::cli {
namespace {

struct Args {
  EvalOptions eval;
  bool json = false;
  bool bits = false;
};

int run(const Args& a, const GlobalOptions& global) {
  auto r = rung::eval(a.eval);
  if (!r) {
    int rc = report(r.diagnostics(), global);
    return r.diagnostics().contains("C0204") ? kExitUsage : rc;  // an unknown --tier or --class
  }
  Diagnostics diags = r.diagnostics();
  if (r->verdict && !r->verdict->pass)
    diags.append(Diagnostics::error("N0020", "`" + r->op + "` differs from --expect: " + r->verdict->summary));
  if (a.json) {
    std::cout << eval_json(*r, a.bits) << "\n";
  } else {
    constexpr std::uint64_t kShown = 1u << 16;
    for (const auto& o : r->outputs) {
      std::printf("%s = %s\n", o.name.c_str(), tensor_text(o.tensor, kShown).c_str());
      if (a.bits) {
        std::printf("  bits:");
        for (std::uint64_t k = 0; k < o.tensor.numel() && k < kShown; ++k) std::printf(" %s", element_bits(o.tensor, k).c_str());
        std::printf("\n");
      }
    }
    if (r->verdict) std::printf("expect: %s\n", r->verdict->summary.c_str());
  }
  return report(diags, global);
}

RUNG_COMMAND("eval", "Evaluate one op on the reference kernels (the oracle) for quick checks",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto a = std::make_shared<Args>();
               sub.add_option("OP", a->eval.op, "the op (see `rung ops`)")->required();
               sub.add_option("-i,--input,--inputs", a->eval.inputs,
                              "an operand (repeat per operand, in order): [[1,2],[3,4]], i64:[1,2], f16:[nan,-0], "
                              "f32[2,3]:0.5, i32[4]:iota, or x.npy")
                   ->expected(1)
                   ->allow_extra_args(false)  // one value per flag; keeps CLI11 from splitting "[1,2]"
                   ->take_all();
               sub.add_option("-a,--attr,--attrs", a->eval.attributes, "an attribute NAME=VALUE (axes=[0,1], to=f16, keepdims=true)")
                   ->expected(1)
                   ->allow_extra_args(false)
                   ->take_all();
               sub.add_option("--tier", a->eval.tier, "debug | prod | fast (debug refuses a non-IEEE FP environment)")
                   ->capture_default_str();
               sub.add_option("--expect", a->eval.expect, "compare the first result with this tensor");
               sub.add_option("--class", a->eval.tolerance_class, "tolerance class for --expect: exact | tight | default | loose")
                   ->capture_default_str();
               sub.add_flag("--json", a->json, "print JSON");
               sub.add_flag("--bits", a->bits, "also print each element's bit pattern");
               return [a, &global] { return run(*a, global); };
             });

}  // namespace
}  // namespace rung::cli
