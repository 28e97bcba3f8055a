// `rung plan FILE --device cpu|cuda|webgpu [--budget SIZE] [--batch N] [--binding-limit SIZE]`:
// the memory plan before running — class breakdown, peak and where, verdict against the
// budget, and (for red) suggestions each verified by planning again. Exit 0 green/yellow,
// 3 red, 1 diagnostics, 2 usage.
#include <cstdio>
#include <iostream>

#include "cli_checks.h"
#include "command.h"
#include "exit_codes.h"
#include "plan/exec_plan.h"
#include "plan/size.h"
#include "plan/tiling.h"
#include "plan/verdict.h"
#include "program_loader.h"
#include "runtime/backend_registry.h"
#include "runtime/memory_model.h"

namespace rung::cli {
namespace {

struct PlanArgs {
  std::string file, entry, device = "cpu", budget, binding_limit, stream;
  std::vector<std::string> dims;
  std::uint64_t batch = 0;
  bool json = false, bf16 = false;
  LoadOptions load;
};

int run_plan(const PlanArgs& a, const GlobalOptions& global) {
  SourceMap sources;
  DiagnosticSink diags;
  plan::PlanOptions o;
  o.device = *plan::device_from_name(a.device);
  o.entry = a.entry;
  if (a.batch) o.batch = a.batch;
  o.bf16_activations = a.bf16;
  for (const auto& d : a.dims) {
    auto eq = d.find('=');
    auto v = eq == std::string::npos ? std::nullopt : plan::parse_size(d.substr(eq + 1));
    if (!v || eq == 0) {
      diags.error("L0008", "--dim expects NAME=EXTENT, got `" + d + "`");
      continue;
    }
    o.dims[d.substr(0, eq)] = *v;
  }
  std::optional<std::uint64_t> budget;
  std::string budget_source = "--budget";
  if (!a.budget.empty() && !(budget = plan::parse_size(a.budget)))
    diags.error("L0008", "--budget expects a size such as 2GiB, 512MiB or 1000000, got `" + a.budget + "`");
  if (!a.binding_limit.empty()) {
    auto v = plan::parse_size(a.binding_limit);
    if (!v || *v == 0) diags.error("L0008", "--binding-limit expects a size such as 128MiB, got `" + a.binding_limit + "`");
    else o.binding_limit = *v;
  } else if (o.device == plan::Device::webgpu) {
    o.binding_limit = plan::kWebGpuBindingLimit;
  }
  if (!a.stream.empty()) {
    auto v = plan::parse_size(a.stream);
    if (!v || *v == 0) diags.error("L0008", "--stream expects a row count, got `" + a.stream + "`");
    else o.stream_rows = *v;
  }
  check_tier_option(a.load.tier, diags);
  if (diags.has_errors()) return report(diags, sources, global);

  auto program = load_program(a.file, a.load, sources, diags);
  if (!program) return report(diags, sources, global);
  if (!budget) budget = plan::device_memory(o.device, budget_source, diags, &runtime::backend_registry());
  if (!budget) return report(diags, sources, global);
  // A device backend's own buffers, every region on its device (`rung run` asks the policy
  // which regions stay there).
  if (o.device != plan::Device::cpu) {
    runtime::backend_registry();  // backends register their models
    o.device_model = runtime::device_memory_model(a.device);
  }
  auto mp = plan::plan_program(*program, o, diags);
  if (!mp) return report(diags, sources, global);
  plan::Assessment verdict = plan::assess(*program, o, *mp, *budget);
  verdict.budget_source = budget_source;

  if (a.json) {
    std::cout << plan::to_json(*mp, &verdict).dump(2) << "\n";
  } else {
    std::printf("plan          %s  entry %s  device %s\n", a.file.c_str(), mp->entry.c_str(), a.device.c_str());
    std::string text = plan::summary_text(*mp);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::printf("budget        %s (%s)\n", plan::format_bytes(*budget).c_str(), budget_source.c_str());
    std::printf("verdict       %s  (needs %s of %s)\n", std::string(plan::verdict_name(verdict.verdict)).c_str(),
                plan::format_bytes(verdict.required).c_str(), plan::format_bytes(*budget).c_str());
    for (const auto& r : verdict.reasons) std::printf("  refused: %s\n", r.c_str());
    for (const auto& w : verdict.warnings) std::printf("  warning: %s\n", w.c_str());
    for (const auto& s : verdict.suggestions)
      std::printf("  %s %s: peak %s, needs %s%s\n", s.fits ? "fix:" : "tried:", s.what.c_str(), plan::format_bytes(s.peak).c_str(),
                  plan::format_bytes(s.required).c_str(),
                  s.fits ? (" of " + plan::format_bytes(*budget) + ", fits (verified by re-planning)").c_str()
                         : ", does not fit alone");
  }
  int rc = report(diags, sources, global);
  if (rc != kExitOk) return rc;
  return verdict.verdict == plan::Verdict::red ? kExitPlanRed : kExitOk;
}

RUNG_COMMAND("plan", "Plan memory before running: class breakdown, peak, verdict against a budget",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto a = std::make_shared<PlanArgs>();
               sub.add_option("FILE", a->file, "a .rung source, .keg file or workflow .json")->required();
               sub.add_option("--device", a->device, "cpu | cuda | webgpu")->check(CLI::IsMember({"cpu", "cuda", "webgpu"}))->capture_default_str();
               sub.add_option("--budget", a->budget, "memory the run may use (2GiB, 512MiB, bytes); default: the device's");
               sub.add_option("--batch", a->batch, "plan with the batch dim bound to N rows");
               sub.add_option("--binding-limit", a->binding_limit, "largest buffer one dispatch may bind (webgpu: 128MiB)");
               sub.add_option("--stream", a->stream, "plan the inputs streamed in chunks of N rows");
               sub.add_flag("--bf16-activations", a->bf16, "plan the activations kept for backward in bf16");
               sub.add_option("--dim", a->dims, "a symbolic dim's extent: NAME=EXTENT (repeatable)");
               sub.add_option("--entry", a->entry, "the function to plan (default: the only exported one)");
               sub.add_option("--tier", a->load.tier, "determinism tier for .keg files: debug | prod | fast");
               sub.add_flag("--json", a->json, "print the plan and verdict as JSON");
               return [a, &global] { return run_plan(*a, global); };
             });

}  // namespace
}  // namespace rung::cli
