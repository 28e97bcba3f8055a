// `rung ops`: the op registry as a listing (name, signature, tolerance classes per tier,
// backends with kernels), or as JSON for tools; `--missing BACKEND` answers "which ops
// still lack a kernel on this backend", and per dtype: the (op, dtype) pairs its kernels do
// not cover.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "autodiff/gradient_rule.h"
#include "command.h"
#include "ops/kernel_coverage.h"
#include "ops/registry.h"
#include "runtime/backend_registry.h"

namespace rung::cli {
namespace {

using namespace rung::ops;

nlohmann::json attr_json(const AttrSpec& a) {
  nlohmann::json j{{"name", a.name}, {"kind", attr_kind_name(a.kind)},
                   {"presence", a.presence == AttrPresence::required   ? "required"
                                : a.presence == AttrPresence::optional ? "optional"
                                                                       : "default"},
                   {"doc", a.doc}};
  if (a.default_value) j["default"] = a.default_value->to_string();
  if (!a.choices.empty()) j["choices"] = a.choices;
  return j;
}

nlohmann::json op_json(const OpRegistry& r, const OpDef& d) {
  nlohmann::json tv = nlohmann::json::object();
  for (const auto& t : d.type_vars) tv[t.name] = t.allowed.to_string();
  nlohmann::json operands = nlohmann::json::array(), results = nlohmann::json::array(), attrs = nlohmann::json::array();
  for (const auto& o : d.operands)
    operands.push_back({{"name", o.name}, {"type", o.type},
                        {"arity", o.arity == Arity::one ? "one" : o.arity == Arity::optional ? "optional" : "variadic"}});
  for (const auto& res : d.results) results.push_back({{"name", res.name}, {"type", res.type}});
  for (const auto& a : d.attrs) attrs.push_back(attr_json(a));
  nlohmann::json backends = nlohmann::json::array();
  for (Backend b : r.backends_with_kernel(d.id)) backends.push_back(backend_name(b));
  return {{"name", d.name}, {"id", d.id.value}, {"family", d.family}, {"summary", d.summary},
          {"signature", d.signature()}, {"type_vars", tv}, {"operands", operands}, {"results", results},
          {"attributes", attrs},
          {"tolerance", {{"debug", tol_class_name(d.tolerance.debug)}, {"prod", tol_class_name(d.tolerance.prod)},
                         {"fast", tol_class_name(d.tolerance.fast)}}},
          {"backends", backends},
          {"gradient", !d.gradient ? "none" : d.gradient->differentiable() ? "rule" : "not differentiable: " + d.gradient->not_differentiable}};
}

struct Args {
  bool json = false;
  std::string missing;
};

int run(const Args& a, const GlobalOptions& global) {
  runtime::backend_registry();  // every backend in this build registers its kernels
  autodiff::ensure_gradient_rules();  // and the autodiff layer its gradient rules
  const OpRegistry& r = op_registry();
  std::vector<const OpDef*> ops = r.all();
  std::vector<std::pair<const OpDef*, std::vector<DType>>> partial;
  if (!a.missing.empty()) {
    auto b = backend_from_name(a.missing);
    if (!b) {
      DiagnosticSink d;
      d.error("C0210", "unknown backend `" + a.missing + "`").note("backends: reference, cpu, cuda, webgpu, wasm");
      report(d, SourceMap{}, global);
      return kExitUsage;
    }
    ops = r.missing_kernels(*b);
    // Ops whose kernel exists but does not cover every dtype the op accepts: each with the
    // dtypes it lacks (the kernel entry's declaration, which conformance and runs go by).
    for (const OpDef* d : r.all())
      if (auto lacking = missing_dtypes(r, *d, *b); !lacking.empty()) partial.emplace_back(d, std::move(lacking));
  }
  auto dtype_list = [](const std::vector<DType>& ts, const char* sep) {
    std::string s;
    for (DType t : ts) s += (s.empty() ? "" : sep) + std::string(dtype_name(t));
    return s;
  };
  std::size_t pairs = 0;
  for (const auto& [d, ts] : partial) pairs += ts.size();
  if (a.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const OpDef* d : ops) list.push_back(op_json(r, *d));
    nlohmann::json j{{"count", ops.size()}, {"ops", list}};
    if (!a.missing.empty()) {
      nlohmann::json jp = nlohmann::json::array();
      for (const auto& [d, ts] : partial) {
        nlohmann::json names = nlohmann::json::array();
        for (DType t : ts) names.push_back(dtype_name(t));
        jp.push_back({{"op", d->name}, {"dtypes", names}});
      }
      j["missing_dtypes"] = jp;
      j["missing_dtype_pairs"] = pairs;
    }
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::printf("%-12s %-4s %-12s %-22s %s\n", "op", "id", "family", "debug/prod/fast", "backends");
  for (const OpDef* d : ops) {
    std::string tol = std::string(tol_class_name(d->tolerance.debug)) + "/" + std::string(tol_class_name(d->tolerance.prod)) +
                      "/" + std::string(tol_class_name(d->tolerance.fast));
    std::string backends;
    for (Backend b : r.backends_with_kernel(d->id)) backends += (backends.empty() ? "" : ",") + std::string(backend_name(b));
    std::printf("%-12s %-4u %-12s %-22s %s\n", d->name.c_str(), d->id.value, d->family.c_str(), tol.c_str(), backends.c_str());
    std::printf("    %s\n    %s\n", d->signature().c_str(), d->summary.c_str());
  }
  std::printf("%zu ops%s\n", ops.size(), a.missing.empty() ? "" : (" without a kernel on " + a.missing).c_str());
  if (a.missing.empty()) return kExitOk;
  if (!partial.empty()) std::printf("\n%-12s %s\n", "op", "dtypes without a kernel");
  for (const auto& [d, ts] : partial) std::printf("%-12s %s\n", d->name.c_str(), dtype_list(ts, ", ").c_str());
  std::printf("%zu (op, dtype) pairs without a kernel on %s, in %zu ops with a kernel for other dtypes\n", pairs,
              a.missing.c_str(), partial.size());
  return kExitOk;
}

RUNG_COMMAND("ops", "List the op registry: signatures, tolerance classes per tier, backends with kernels",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto a = std::make_shared<Args>();
               sub.add_flag("--json", a->json, "print JSON");
               sub.add_option("--missing", a->missing, "only the ops without a kernel on this backend, then the dtypes each of its kernels lacks");
               return [a, &global] { return run(*a, global); };
             });

}  // namespace
}  // namespace rung::cli
