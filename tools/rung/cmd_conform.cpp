// `rung conform`: run the conformance suite for one backend against the reference and
// print a per-(op, dtype) table; passing ops mint receipts in the store ($RUNG_HOME).
// Exit 1 when any op fails or lacks a kernel.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>

#include "base/text.h"
#include "cli_checks.h"
#include "command.h"
#include "base/file_io.h"
#include "conformance/suite.h"
#include "runtime/backend_registry.h"

namespace rung::cli {
namespace {

struct ConformArgs {
  std::string backend, ops, tier = "debug";
  std::size_t cases = 16;
  std::uint64_t seed = conformance::ConformOptions{}.seed;
  bool json = false, no_receipts = false;
  std::string dump_failures;
};

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    std::size_t end = s.find(',', start);
    if (end == std::string::npos) end = s.size();
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

int run(const ConformArgs& a, const GlobalOptions& global) {
  DiagnosticSink diags;
  if (!check_tier_option(a.tier, diags)) return report(diags, SourceMap{}, global);
  auto tier = ops::tier_from_name(a.tier);
  std::vector<const ops::OpDef*> selected;
  for (const auto& name : split_commas(a.ops)) {
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
  if (!a.ops.empty() && selected.empty() && !diags.has_errors()) diags.error("F0001", "--ops names no op");
  if (!a.dump_failures.empty()) {  // made (and checked writable) before minutes of conformance, not after
    if (auto why = make_writable_dir(a.dump_failures))
      diags.error("F0002", "--dump-failures: cannot write to `" + a.dump_failures + "`: " + *why);
  }
  if (diags.has_errors()) return report(diags, SourceMap{}, global);
  auto backend = runtime::backend_registry().create(a.backend, *tier, diags);
  if (!backend) return report(diags, SourceMap{}, global);

  conformance::ConformOptions o;
  o.seed = a.seed;
  o.cases = a.cases;
  o.tier = *tier;
  o.dump_dir = a.dump_failures;
  conformance::Store store;
  // The table streams: header first, then each op's rows as soon as that op is done (a slow
  // backend, e.g. WebGPU on SwiftShader, takes minutes over every op), flushed so a pipe sees it.
  std::function<void(const conformance::OpReport&)> on_op;
  if (!a.json) {
    std::printf("conform  backend %s, tier %s, %zu cases per (op, dtype), seed %llu\n", a.backend.c_str(), a.tier.c_str(), a.cases,
                static_cast<unsigned long long>(a.seed));
    std::fputs(conformance::suite_table_header(backend->profile(), conformance::agreement_description(*backend, o.tier)).c_str(), stdout);
    std::fflush(stdout);
    on_op = [](const conformance::OpReport& r) {
      std::fputs(conformance::suite_table_rows(r).c_str(), stdout);
      std::fflush(stdout);
    };
  }
  auto result = conformance::conform_suite(*backend, selected, o, a.no_receipts ? nullptr : &store, diags, on_op);
  if (a.json) {
    auto j = conformance::suite_json(result);
    j["backend"] = a.backend;
    j["tier"] = a.tier;
    j["seed"] = a.seed;
    j["cases_per_row"] = a.cases;
    j["agreement"] = conformance::agreement_description(*backend, o.tier);
    j["store"] = store.root();
    std::cout << j.dump(2) << "\n";
  } else {
    std::fputs(conformance::suite_table_footer(result).c_str(), stdout);
    if (!a.no_receipts) std::printf("store    %s\n", store.root().c_str());
  }
  int rc = report(diags, SourceMap{}, global);
  return result.pass() ? rc : kExitDiagnostics;
}

RUNG_COMMAND("conform", "Run the conformance suite for a backend against the reference; passing ops mint receipts",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto a = std::make_shared<ConformArgs>();
               sub.add_option("--backend", a->backend, "the backend to check (reference, cpu, ...)")->required();
               sub.add_option("--ops", a->ops, "only these ops (comma-separated); default: every op");
               sub.add_option("--tier", a->tier, "determinism tier whose thresholds apply: debug | prod | fast")->capture_default_str();
               sub.add_option("--cases", a->cases, "cases per (op, dtype)")->check(CLI::Range(1, 100000))->capture_default_str();
               sub.add_option("--seed", a->seed, "case generator seed")->capture_default_str();
               sub.add_flag("--no-receipts", a->no_receipts, "do not write receipts to the store");
               sub.add_flag("--json", a->json, "print the reports as JSON");
               sub.add_option("--dump-failures", a->dump_failures,
                              "write the first failing case of each (op, dtype) to DIR: inputs, reference and backend results as .npy");
               return [a, &global] { return run(*a, global); };
             });

}  // namespace
}  // namespace rung::cli
