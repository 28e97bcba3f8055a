// The memory plan and its verdict (rung/plan.h): what `rung plan` prints, as a value.
#include "rung/plan.h"

#include "api/backend_settings.h"
#include "api/verbs.h"
#include "plan/exec_plan.h"
#include "plan/size.h"
#include "plan/tiling.h"
#include "plan/verdict.h"
#include "runtime/backend_registry.h"
#include "runtime/memory_model.h"

namespace rung {

std::string format_bytes(std::uint64_t bytes) { return plan::format_bytes(bytes); }

Result<MemoryPlan> plan_memory(const Source& src, const MemoryPlanOptions& a) {
  DiagnosticSink diags;
  std::shared_ptr<const SourceMap> sources;
  auto fail = [&] {
    if (!sources) sources = std::make_shared<const SourceMap>();
    return Result<MemoryPlan>(api::diagnostics_of(diags, sources));
  };
  plan::PlanOptions o;
  if (auto device = api::plan_device(a.device, diags)) o.device = *device;
  o.entry = a.entry;
  if (a.batch) o.batch = a.batch;
  o.bf16_activations = a.bf16_activations;
  api::bind_dims(a.dims, o, diags);
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
  if (a.tier) {
    CompileOptions names;
    names.tier = a.tier;
    api::take(check_determinism_names(names).diagnostics(), diags, sources);
  }
  if (diags.has_errors()) return fail();
  sources.reset();  // the program's, from here on

  api::LoadDeterminism det;
  det.tier = a.tier;
  det.tier_as_fallback = true;  // planning runs nothing: a bare graph needs no class
  auto program = api::load_program(src, det, diags, sources);
  if (!program) return fail();
  const block::Program& p = program->impl().program;
  if (!budget)
    budget = plan::device_memory(o.device, budget_source, diags, &runtime::backend_registry(), api::backend_settings(a.environment));
  if (!budget) return fail();
  // A device backend's own buffers, every region on its device (`rung run` asks the policy
  // which regions stay there).
  if (o.device != plan::Device::cpu) {
    runtime::backend_registry();  // backends register their models
    o.device_model = runtime::device_memory_model(a.device);
  }
  auto mp = plan::plan_program(p, o, diags);
  if (!mp) return fail();
  plan::Assessment verdict = plan::assess(p, o, *mp, *budget);
  verdict.budget_source = budget_source;

  MemoryPlan out;
  out.entry = mp->entry;
  out.device = a.device;
  out.summary = plan::summary_text(*mp);
  out.verdict = plan::verdict_name(verdict.verdict);
  out.budget = *budget;
  out.budget_source = budget_source;
  out.required = verdict.required;
  out.reasons = verdict.reasons;
  out.warnings = verdict.warnings;
  for (const auto& s : verdict.suggestions) out.suggestions.push_back({s.what, s.peak, s.required, s.fits});
  out.json = plan::to_json(*mp, &verdict).dump(2);
  return Result<MemoryPlan>(std::move(out), api::diagnostics_of(diags, sources));
}

}  // namespace rung
