// `rung replay ID`: re-run a recorded `rung run` and check the result (rung::replay): a
// replayable record must give the same output hashes (bit for bit), a convergent one outputs
// within its tolerance class of the stored outputs. The program and argument files must be
// the ones recorded, as must the data files the program read; the recorded run options are
// passed again. Exit 1 on any mismatch.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <rung/record.h>

#include "command.h"
#include "progress_printer.h"
#include "run_report.h"

namespace rung::cli {
namespace {

struct ReplayArgs {
  std::string id;
  bool json = false;
};

int run(const ReplayArgs& a, const GlobalOptions& global) {
  // With --json, the replayed run's own report goes to stderr so stdout holds one JSON document.
  std::FILE* run_out = a.json ? stderr : stdout;
  ReplayOptions o;
  o.environment = Environment::from_process();
  o.progress = run_progress();
  o.print = [run_out](std::string_view text) { std::fwrite(text.data(), 1, text.size(), run_out); };
  auto result = replay(a.id, o);
  if (!result) return report(result.diagnostics(), global);
  const ReplayResult& r = *result;
  const RunResult& run = r.run;
  print_streams(run.stats.streams, run_out);
  print_run_text(run, run.backend, run_out);
  for (std::size_t i = 0; i < run.outputs.size(); ++i) print_output_line(i, run.outputs[i], "", run_out);
  if (!run.record.id.empty()) std::fprintf(run_out, "record       %s\n", run.record.id.c_str());
  std::fflush(run_out);
  Diagnostics all = run.warnings;

  nlohmann::json jres = nlohmann::json::array();
  for (const auto& v : r.outputs) {
    jres.push_back({{"name", v.name}, {"ok", v.ok}, {"verdict", v.verdict}});
    if (!a.json) std::printf("replay       %s: %s\n", v.name.c_str(), v.verdict.c_str());
  }
  if (r.profile_differs && !a.json) std::printf("note         device profile differs from the record's: %s\n", r.profile_differs->c_str());
  if (r.kernels_changed && !a.json)
    std::printf("note         generated kernels differ from the record's in %zu region(s) (rung record %s lists them)\n",
                *r.kernels_changed, run.record.id.empty() ? "the replay's record" : run.record.id.substr(0, 16).c_str());
  all.append(r.mismatches);
  std::string summary = r.match ? (r.replayable ? "bit-for-bit identical" : "within class " + r.convergence_class) : "MISMATCH";
  if (a.json)
    std::cout << nlohmann::json{{"record", r.record_id}, {"replay_record", run.record.id}, {"match", r.match},
                                {"mode", r.replayable ? "replayable" : "convergent"}, {"outputs", jres}}
                     .dump(2)
              << "\n";
  else
    std::printf("replay       %s: %s\n", r.record_id.substr(0, 16).c_str(), summary.c_str());
  return report(all, global);
}

RUNG_COMMAND("replay", "Re-run a recorded run and compare: bit for bit (replayable) or within its class (convergent)",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto a = std::make_shared<ReplayArgs>();
               sub.add_option("ID", a->id, "the record's id (a unique prefix is enough)")->required();
               sub.add_flag("--json", a->json, "print the comparison as JSON on stdout (the replayed run's own report goes to stderr)");
               return [a, &global] { return run(*a, global); };
             });

}  // namespace
}  // namespace rung::cli
