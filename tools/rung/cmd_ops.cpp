// `rung ops`: the op registry as a listing (name, signature, tolerance classes per tier,
// backends with kernels), or as JSON for tools; `--missing BACKEND` answers "which ops
// still lack a kernel on this backend", and per dtype: the (op, dtype) pairs its kernels do
// not cover. The registry's content is rung::list_ops (rung/registry.h).
#include <rung/registry.h>

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "command.h"

namespace rung::cli {
namespace {

nlohmann::json attr_json(const OpAttribute& a) {
  nlohmann::json j{{"name", a.name}, {"kind", a.kind}, {"presence", a.presence}, {"doc", a.doc}};
  if (a.default_value) j["default"] = *a.default_value;
  if (!a.choices.empty()) j["choices"] = a.choices;
  return j;
}

nlohmann::json op_json(const OpInfo& d) {
  nlohmann::json tv = nlohmann::json::object();
  for (const auto& [name, allowed] : d.type_vars) tv[name] = allowed;
  nlohmann::json operands = nlohmann::json::array(), results = nlohmann::json::array(), attrs = nlohmann::json::array();
  for (const auto& o : d.operands) operands.push_back({{"name", o.name}, {"type", o.type}, {"arity", o.arity}});
  for (const auto& res : d.results) results.push_back({{"name", res.name}, {"type", res.type}});
  for (const auto& a : d.attributes) attrs.push_back(attr_json(a));
  return {{"name", d.name}, {"id", d.id}, {"family", d.family}, {"summary", d.summary},
          {"signature", d.signature}, {"type_vars", tv}, {"operands", operands}, {"results", results},
          {"attributes", attrs},
          {"tolerance", {{"debug", d.tolerance_debug}, {"prod", d.tolerance_prod}, {"fast", d.tolerance_fast}}},
          {"backends", d.backends},
          {"gradient", d.gradient}};
}

struct Args {
  bool json = false;
  std::string missing;
};

int run(const Args& a, const GlobalOptions& global) {
  auto list = list_ops({a.missing});
  if (!list) {
    report(list.diagnostics(), global);
    return kExitUsage;  // C0210: the backend named is none
  }
  const std::vector<OpInfo>& ops = list->ops;
  const std::vector<OpDtypes>& partial = list->missing_dtypes;
  std::size_t pairs = 0;
  for (const auto& p : partial) pairs += p.dtypes.size();
  if (a.json) {
    nlohmann::json entries = nlohmann::json::array();
    for (const OpInfo& d : ops) entries.push_back(op_json(d));
    nlohmann::json j{{"count", ops.size()}, {"ops", entries}};
    if (!a.missing.empty()) {
      nlohmann::json jp = nlohmann::json::array();
      for (const auto& p : partial) jp.push_back({{"op", p.op}, {"dtypes", p.dtypes}});
      j["missing_dtypes"] = jp;
      j["missing_dtype_pairs"] = pairs;
    }
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::printf("%-12s %-4s %-12s %-22s %s\n", "op", "id", "family", "debug/prod/fast", "backends");
  for (const OpInfo& d : ops) {
    std::string tol = d.tolerance_debug + "/" + d.tolerance_prod + "/" + d.tolerance_fast;
    std::string backends;
    for (const auto& b : d.backends) backends += (backends.empty() ? "" : ",") + b;
    std::printf("%-12s %-4u %-12s %-22s %s\n", d.name.c_str(), static_cast<unsigned>(d.id), d.family.c_str(), tol.c_str(),
                backends.c_str());
    std::printf("    %s\n    %s\n", d.signature.c_str(), d.summary.c_str());
  }
  std::printf("%zu ops%s\n", ops.size(), a.missing.empty() ? "" : (" without a kernel on " + a.missing).c_str());
  if (a.missing.empty()) return kExitOk;
  if (!partial.empty()) std::printf("\n%-12s %s\n", "op", "dtypes without a kernel");
  for (const auto& p : partial) {
    std::string dtypes;
    for (const auto& t : p.dtypes) dtypes += (dtypes.empty() ? "" : ", ") + t;
    std::printf("%-12s %s\n", p.op.c_str(), dtypes.c_str());
  }
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
