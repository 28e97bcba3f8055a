// The conformance suite and gradcheck (rung/conform.h) as library calls.
#include "rung/conform.h"

#include <nlohmann/json.hpp>

#include "api/backend_settings.h"
#include "api/verbs.h"
#include "autodiff/autodiff.h"
#include "autodiff/gradcheck.h"
#include "autodiff/gradient_rule.h"
#include "base/file_io.h"
#include "base/text.h"
#include "conformance/suite.h"
#include "ops/registry.h"
#include "ops/tier.h"
#include "runtime/backend_registry.h"

namespace rung {

Result<ConformReport> conform(const ConformOptions& a) {
  DiagnosticSink diags;
  auto none = std::make_shared<const SourceMap>();
  auto fail = [&] { return Result<ConformReport>(api::diagnostics_of(diags, none)); };
  CompileOptions names;
  names.tier = a.tier;
  if (auto checked = check_determinism_names(names); !checked) return checked.diagnostics();
  auto tier = ops::tier_from_name(a.tier);
  std::vector<const ops::OpDef*> selected;
  for (const auto& name : a.ops.value_or(std::vector<std::string>{})) {
    if (const ops::OpDef* d = ops::op_registry().find(name)) {
      selected.push_back(d);
      continue;
    }
    auto& d = diags.error("F0001", "unknown op `" + name + "`");
    std::string best;
    std::size_t best_d = 3;
    for (const ops::OpDef* op : ops::op_registry().all())
      if (std::size_t dist = edit_distance(name, op->name, best_d); dist < best_d) best_d = dist, best = op->name;
    if (!best.empty()) d.note("did you mean `" + best + "`?");
    else d.note("`rung ops` lists every op");
  }
  if (a.ops && selected.empty() && !diags.has_errors()) diags.error("F0001", "--ops names no op");
  if (!a.dump_failures.empty()) {  // made (and checked writable) before minutes of conformance, not after
    if (auto why = make_writable_dir(a.dump_failures))
      diags.error("F0002", "--dump-failures: cannot write to `" + a.dump_failures + "`: " + *why);
  }
  if (diags.has_errors()) return fail();
  auto backend = runtime::backend_registry().create(a.backend, *tier, diags, api::backend_settings(a.environment));
  if (!backend) return fail();

  conformance::ConformOptions o;
  o.seed = a.seed;
  o.cases = a.cases;
  o.tier = *tier;
  o.dump_dir = a.dump_failures;
  conformance::Store store(a.environment.home);
  ConformReport report;
  report.agreement = conformance::agreement_description(*backend, o.tier);
  if (a.on_header) a.on_header(conformance::suite_table_header(backend->profile(), report.agreement));
  std::function<void(const conformance::OpReport&)> on_op;
  if (a.on_op) on_op = [&a](const conformance::OpReport& r) { a.on_op(conformance::suite_table_rows(r)); };
  auto result = conformance::conform_suite(*backend, selected, o, a.receipts ? &store : nullptr, diags, on_op);
  report.pass = result.pass();
  report.footer = conformance::suite_table_footer(result);
  report.store = store.root();
  auto j = conformance::suite_json(result);
  j["backend"] = a.backend;
  j["tier"] = a.tier;
  j["seed"] = a.seed;
  j["cases_per_row"] = a.cases;
  j["agreement"] = conformance::agreement_description(*backend, o.tier);
  j["store"] = store.root();
  report.json = j.dump(2);
  report.diagnostics = api::diagnostics_of(diags, none);
  return report;
}

namespace {

autodiff::GradcheckOptions internal_options(const GradcheckOptions& a) {
  autodiff::GradcheckOptions o;
  o.step = a.step;
  o.tolerance = a.tolerance;
  o.forward_tolerance = a.forward_tolerance;
  o.max_elements = a.max_elements;
  o.seed = a.seed;
  return o;
}

void check_op(const GradcheckOptions& a, GradcheckReport& out, DiagnosticSink& diags) {
  const ops::OpDef* def = ops::op_registry().find(a.target);
  if (def->gradient && !def->gradient->differentiable()) {
    diags.error("D0013", "op `" + a.target + "` is declared not differentiable (" + def->gradient->not_differentiable + ")");
    return;
  }
  auto cases = autodiff::builtin_cases(a.target);
  if (cases.empty()) {
    diags.error("D0013", "op `" + a.target + "` has no built-in gradcheck case");
    return;
  }
  autodiff::GradcheckOptions o = internal_options(a);
  for (const auto& c : cases) {
    auto rep = autodiff::gradcheck_op(c, o, diags);
    if (!rep) return;
    out.text += rep->table(o);
    out.ok = out.ok && rep->ok();
    ++out.checked;
  }
}

void check_file(const GradcheckOptions& a, GradcheckReport& out, SourceMap& sources, DiagnosticSink& diags) {
  auto program = api::lower_rung(Source::file(a.target), sources, diags);
  if (!program) return;
  Graph g = program->graph;
  std::vector<std::pair<std::string, RegionId>> targets;
  for (const auto& [name, rid] : g.exports())
    if (a.function.empty() || name == a.function) targets.push_back({name, rid});
  if (targets.empty()) {
    std::string known;
    for (const auto& [name, rid] : g.exports()) known += (known.empty() ? "" : ", ") + name;
    diags.error("D0015", a.function.empty() ? "`" + a.target + "` exports no pure function"
                                            : "no exported function `" + a.function + "` in `" + a.target + "`")
        .note("exported: " + (known.empty() ? std::string("none") : known));
    return;
  }
  autodiff::GradcheckOptions o = internal_options(a);
  for (const auto& [name, rid] : targets) {
    const Region r = g.region(rid);
    std::vector<std::size_t> wrt;
    for (std::size_t i = 0; i < r.params.size(); ++i)
      if (dtype_info(g.node(r.params[i]).outputs[0].dtype).is_float) wrt.push_back(i);
    if (wrt.empty()) {
      if (!a.function.empty()) diags.error("D0016", "`" + name + "` has no floating-point parameter to differentiate");
      continue;
    }
    auto args = autodiff::generate_args(g, r, a.dims, 0, o.seed, a.int_max, diags);
    if (!args) break;
    auto rep = autodiff::gradcheck_region(g, rid, *args, wrt, o, diags);
    if (!rep) break;
    ++out.checked;
    out.text += rep->table(o);
    out.ok = out.ok && rep->ok();
  }
}

}  // namespace

GradcheckReport gradcheck(const GradcheckOptions& a) {
  auto sources = std::make_shared<SourceMap>();
  DiagnosticSink diags;
  GradcheckReport out;
  autodiff::ensure_gradient_rules();
  if (ops::op_registry().find(a.target)) {
    check_op(a, out, diags);
  } else if (a.target.size() > 5 && a.target.substr(a.target.size() - 5) == ".rung") {
    out.of_file = true;
    check_file(a, out, *sources, diags);
  } else {
    diags.error("D0012", "`" + a.target + "` is neither a registry op nor a .rung file").note("`rung ops` lists the ops");
  }
  out.diagnostics = api::diagnostics_of(diags, sources);
  return out;
}

}  // namespace rung
