#include "plan/verdict.h"

#include <fstream>
#include <functional>
#include <sstream>

#include "plan/size.h"

namespace rung::plan {
namespace {

std::optional<std::uint64_t> replan(const block::Program& p, const PlanOptions& o) {
  DiagnosticSink quiet;
  auto m = plan_program(p, o, quiet);
  if (!m) return std::nullopt;
  for (const auto& t : m->tilings)
    if (t.tiles == 0) return std::nullopt;  // the binding limit cannot be honoured
  return m->arena_total;
}

// The largest n in [1, hi] whose re-plan fits (peak non-decreasing in n), if any.
std::optional<std::pair<std::uint64_t, std::uint64_t>> largest_fitting(std::uint64_t hi, std::uint64_t budget,
                                                                       const std::function<std::optional<std::uint64_t>(std::uint64_t)>& f) {
  std::optional<std::pair<std::uint64_t, std::uint64_t>> best;
  std::uint64_t lo = 1;
  while (lo <= hi) {
    std::uint64_t mid = lo + (hi - lo) / 2;
    auto need = f(mid);
    if (need && *need <= budget) {
      best = {mid, *need};
      lo = mid + 1;
    } else {
      if (mid == 0) break;
      hi = mid - 1;
    }
  }
  return best;
}

}  // namespace

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::green: return "green";
    case Verdict::yellow: return "yellow";
    case Verdict::red: return "red";
  }
  return "?";
}

std::optional<std::uint64_t> device_memory(Device d, std::string& source, DiagnosticSink& diags, const runtime::BackendRegistry* registry,
                                           const runtime::BackendSettings& settings) {
  if (d == Device::cpu) {
    std::ifstream in("/proc/meminfo");
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream ls(line);
      std::string key;
      std::uint64_t kib = 0;
      if (ls >> key >> kib && key == "MemAvailable:") {
        source = "/proc/meminfo MemAvailable";
        return kib * 1024;
      }
    }
    diags.error("L0004", "cannot read the memory available from /proc/meminfo: pass --budget SIZE");
    return std::nullopt;
  }
  std::string name(device_name(d)), reason, detail;
  const runtime::BackendFactory* f = registry ? registry->find(name) : nullptr;
  if (!f) {
    reason = "the " + name + " backend is not built into this rung";
  } else {
    DiagnosticSink quiet;  // why the backend cannot start goes into a note, not an error of its own
    auto backend = f->create(ops::Tier::debug, quiet, settings);
    if (!backend) {
      reason = "there is no " + name + " device here";
      if (!quiet.empty()) detail = quiet.all().front().code + ": " + quiet.all().front().message;
    } else if (auto bytes = backend->device_memory_bytes()) {
      source = name + " device memory (" + backend->profile().device + ")";
      return *bytes;
    } else if (d == Device::webgpu) {
      // WebGPU has no query for device memory; its limits are per buffer and per binding.
      auto facts = backend->profile().facts;
      reason = "WebGPU reports no device memory size (" + backend->profile().device + ")";
      detail = "WebGPU only limits single buffers (maxBufferSize " + facts["max_buffer"] +
               " bytes) and bindings (maxStorageBufferBindingSize " + facts["max_storage_binding"] +
               " bytes); the plan uses the binding limit to split dispatches, not as a budget";
    } else {
      reason = "the " + name + " backend reports no memory size for " + backend->profile().device;
    }
  }
  auto& e = diags.error("L0004", "cannot tell how much memory the " + name + " device has: " + reason + "; pass --budget SIZE");
  if (!detail.empty()) e.note(detail);
  e.note("the budget is the device memory the run may use, e.g. --budget 2GiB");
  return std::nullopt;
}

Assessment assess(const block::Program& p, const PlanOptions& opts, const MemoryPlan& plan, std::uint64_t budget) {
  Assessment a;
  a.budget = budget;
  a.required = plan.arena_total;
  for (const auto& t : plan.tilings) {
    if (t.tiles == 0) a.reasons.push_back("binding limit: " + t.why);
    else a.warnings.push_back("split into " + std::to_string(t.tiles) + " tiles: " + t.why);
  }
  for (const auto& st : plan.streams)
    a.warnings.push_back(st.chunk ? "`" + st.region + "` streamed: " + std::to_string(st.rows) + " rows in chunks of " +
                                        std::to_string(st.chunk) + " (slower than in memory)"
                                  : "not streamed: " + st.why + "; it runs whole");
  if (a.required > budget)
    a.reasons.push_back("needs " + format_bytes(a.required) + " (" + std::to_string(a.required) + " bytes), the budget is " +
                        format_bytes(budget) + " (" + std::to_string(budget) + " bytes)");
  a.verdict = !a.reasons.empty() ? Verdict::red : !a.warnings.empty() ? Verdict::yellow : Verdict::green;
  if (a.verdict != Verdict::red) return a;

  // Suggestions, each verified by planning again.
  if (plan.batch_extent > 1 && !opts.stream_rows) {
    auto fit = largest_fitting(plan.batch_extent - 1, budget, [&](std::uint64_t b) {
      PlanOptions o = opts;
      o.batch = b;
      return replan(p, o);
    });
    PlanSuggestion s;
    s.options = opts;
    if (fit) {
      s.options.batch = fit->first;
      s.what = "batch " + std::to_string(plan.batch_extent) + " -> " + std::to_string(fit->first) + " (" + plan.batch_dim + ")";
      s.required = fit->second;
      s.fits = true;
    } else {
      s.options.batch = 1;
      s.what = "batch " + std::to_string(plan.batch_extent) + " -> 1 (" + plan.batch_dim + ")";
      s.required = replan(p, s.options).value_or(0);
    }
    a.suggestions.push_back(s);
  }
  std::uint64_t widest = 0;
  for (const auto& b : plan.buffers)
    if (b.cls == AllocClass::inputs && !b.shape.empty()) widest = std::max(widest, b.shape[0]);
  if (widest > 1 && !opts.stream_rows) {
    auto fit = largest_fitting(widest - 1, budget, [&](std::uint64_t rows) {
      PlanOptions o = opts;
      o.stream_rows = rows;
      return replan(p, o);
    });
    PlanSuggestion s;
    s.options = opts;
    s.options.stream_rows = fit ? fit->first : 1;
    s.what = "stream the inputs in chunks of " + std::to_string(*s.options.stream_rows) + " rows";
    if (!fit) {  // say why streaming does not help: nothing row-local, or what is not
      DiagnosticSink quiet;
      if (auto m = plan_program(p, s.options, quiet)) {
        std::string why;
        bool any = false;
        for (const auto& st : m->streams) {
          any = any || st.chunk > 0;
          if (!st.chunk && why.empty()) why = st.why;
        }
        if (!any) s.what = "stream the inputs: no computation on them can run in chunks" + (why.empty() ? std::string() : " (" + why + ")");
      }
    }
    s.required = fit ? fit->second : replan(p, s.options).value_or(0);
    s.fits = fit.has_value();
    a.suggestions.push_back(s);
  }
  if (plan.class_max[static_cast<std::size_t>(AllocClass::activations)] > 0 && !opts.bf16_activations) {
    PlanSuggestion s;
    s.options = opts;
    s.options.bf16_activations = true;
    s.what = "bf16 activations";
    auto need = replan(p, s.options);
    s.required = need.value_or(0);
    s.fits = need && *need <= budget;
    a.suggestions.push_back(s);
  }
  for (auto& s : a.suggestions) {
    DiagnosticSink quiet;
    if (auto m = plan_program(p, s.options, quiet)) s.peak = m->peak;
  }
  return a;
}

}  // namespace rung::plan
