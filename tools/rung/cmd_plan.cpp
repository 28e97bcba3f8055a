// `rung plan FILE --device cpu|cuda|webgpu [--budget SIZE] [--batch N] [--binding-limit SIZE]`:
// the memory plan before running — class breakdown, peak and where, verdict against the
// budget, and (for red) suggestions each verified by planning again (rung::plan_memory,
// rung/plan.h). Exit 0 green/yellow, 3 red, 1 diagnostics, 2 usage.
#include <rung/plan.h>

#include <cstdio>
#include <iostream>

#include "command.h"
#include "exit_codes.h"

namespace rung::cli {
namespace {

struct PlanArgs {
  std::string file, tier;
  MemoryPlanOptions o;
  bool json = false;
};

int run_plan(PlanArgs a, const GlobalOptions& global) {
  if (!a.tier.empty()) a.o.tier = a.tier;
  auto r = plan_memory(Source::file(a.file), a.o);
  if (!r) return report(r.diagnostics(), global);
  const MemoryPlan& p = *r;
  if (a.json) {
    std::cout << p.json << "\n";
  } else {
    std::printf("plan          %s  entry %s  device %s\n", a.file.c_str(), p.entry.c_str(), p.device.c_str());
    std::fwrite(p.summary.data(), 1, p.summary.size(), stdout);
    std::printf("budget        %s (%s)\n", format_bytes(p.budget).c_str(), p.budget_source.c_str());
    std::printf("verdict       %s  (needs %s of %s)\n", p.verdict.c_str(), format_bytes(p.required).c_str(), format_bytes(p.budget).c_str());
    for (const auto& reason : p.reasons) std::printf("  refused: %s\n", reason.c_str());
    for (const auto& w : p.warnings) std::printf("  warning: %s\n", w.c_str());
    for (const auto& s : p.suggestions)
      std::printf("  %s %s: peak %s, needs %s%s\n", s.fits ? "fix:" : "tried:", s.what.c_str(), format_bytes(s.peak).c_str(),
                  format_bytes(s.required).c_str(),
                  s.fits ? (" of " + format_bytes(p.budget) + ", fits (verified by re-planning)").c_str() : ", does not fit alone");
  }
  int rc = report(r.diagnostics(), global);
  if (rc != kExitOk) return rc;
  return p.verdict == "red" ? kExitPlanRed : kExitOk;
}

RUNG_COMMAND("plan", "Plan memory before running: class breakdown, peak, verdict against a budget",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto a = std::make_shared<PlanArgs>();
               MemoryPlanOptions& o = a->o;
               sub.add_option("FILE", a->file, "a .rung source, .keg file or workflow .json")->required();
               sub.add_option("--device", o.device, "cpu | cuda | webgpu")->check(CLI::IsMember({"cpu", "cuda", "webgpu"}))->capture_default_str();
               sub.add_option("--budget", o.budget, "memory the run may use (2GiB, 512MiB, bytes); default: the device's");
               sub.add_option("--batch", o.batch, "plan with the batch dim bound to N rows");
               sub.add_option("--binding-limit", o.binding_limit, "largest buffer one dispatch may bind (webgpu: 128MiB)");
               sub.add_option("--stream", o.stream, "plan the inputs streamed in chunks of N rows");
               sub.add_flag("--bf16-activations", o.bf16_activations, "plan the activations kept for backward in bf16");
               sub.add_option("--dim", o.dims, "a symbolic dim's extent: NAME=EXTENT (repeatable)");
               sub.add_option("--entry", o.entry, "the function to plan (default: the only exported one)");
               sub.add_option("--tier", a->tier, "determinism tier for .keg files: debug | prod | fast");
               sub.add_flag("--json", a->json, "print the plan and verdict as JSON");
               return [a, &global] { return run_plan(*a, global); };
             });

}  // namespace
}  // namespace rung::cli
