// `rung conform`: run the conformance suite for one backend against the reference and
// print a per-(op, dtype) table (rung::conform, rung/conform.h); passing ops mint receipts
// in the store ($RUNG_HOME). Exit 1 when any op fails or lacks a kernel.
#include <rung/conform.h>

#include <cstdio>
#include <iostream>

#include "command.h"

namespace rung::cli {
namespace {

struct ConformArgs {
  ConformOptions o;
  std::string ops;
  bool json = false, no_receipts = false;
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

int run(ConformArgs a, const GlobalOptions& global) {
  ConformOptions& o = a.o;
  if (!a.ops.empty()) o.ops = split_commas(a.ops);
  o.receipts = !a.no_receipts;
  o.environment = Environment::from_process();
  // The table streams: header first, then each op's rows as soon as that op is done (a slow
  // backend, e.g. WebGPU on SwiftShader, takes minutes over every op), flushed so a pipe sees it.
  if (!a.json) {
    o.on_header = [&o](std::string_view header) {
      std::printf("conform  backend %s, tier %s, %zu cases per (op, dtype), seed %llu\n", o.backend.c_str(), o.tier.c_str(), o.cases,
                  static_cast<unsigned long long>(o.seed));
      std::fwrite(header.data(), 1, header.size(), stdout);
      std::fflush(stdout);
    };
    o.on_op = [](std::string_view rows) {
      std::fwrite(rows.data(), 1, rows.size(), stdout);
      std::fflush(stdout);
    };
  }
  auto r = conform(o);
  if (!r) return report(r.diagnostics(), global);
  if (a.json) {
    std::cout << r->json << "\n";
  } else {
    std::fputs(r->footer.c_str(), stdout);
    if (!a.no_receipts) std::printf("store    %s\n", r->store.c_str());
  }
  int rc = report(r->diagnostics, global);
  return r->pass ? rc : kExitDiagnostics;
}

RUNG_COMMAND("conform", "Run the conformance suite for a backend against the reference; passing ops mint receipts",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto a = std::make_shared<ConformArgs>();
               sub.add_option("--backend", a->o.backend, "the backend to check (reference, cpu, ...)")->required();
               sub.add_option("--ops", a->ops, "only these ops (comma-separated); default: every op");
               sub.add_option("--tier", a->o.tier, "determinism tier whose thresholds apply: debug | prod | fast")->capture_default_str();
               sub.add_option("--cases", a->o.cases, "cases per (op, dtype)")->check(CLI::Range(1, 100000))->capture_default_str();
               sub.add_option("--seed", a->o.seed, "case generator seed")->capture_default_str();
               sub.add_flag("--no-receipts", a->no_receipts, "do not write receipts to the store");
               sub.add_flag("--json", a->json, "print the reports as JSON");
               sub.add_option("--dump-failures", a->o.dump_failures,
                              "write the first failing case of each (op, dtype) to DIR: inputs, reference and backend results as .npy");
               return [a, &global] { return run(*a, global); };
             });

}  // namespace
}  // namespace rung::cli
