// `rung replay ID`: re-run a recorded `rung run` and check the result: a replayable record
// must give the same output hashes (bit for bit), a convergent one outputs within its
// tolerance class of the stored outputs. The program and argument files must be the ones
// recorded, as must the data files the program read (their SHA3 is checked first); the
// recorded run options (--data-dir, --stream, --binding-limit, --offload-threshold) are
// passed again. Exit 1 on any mismatch.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <set>
#include <unistd.h>

#include "base/file_io.h"
#include "command.h"
#include "conformance/run_session.h"
#include "ops/compare.h"

namespace rung::cli {
namespace {

struct ReplayArgs {
  std::string id;
  bool json = false;
};

bool check_file(const std::string& what, const std::string& path, const Hash256& want, DiagnosticSink& diags) {
  DiagnosticSink io;
  auto data = read_file(path, io);
  if (!data) {
    diags.error("Q0020", "cannot replay: the recorded " + what + " '" + path + "' cannot be read")
        .note(io.all().empty() ? "" : io.all().front().message);
    return false;
  }
  Hash256 got = sha3_256(*data);
  if (got != want) {
    diags.error("Q0021", "cannot replay: the " + what + " '" + path + "' changed since it was recorded")
        .note("recorded sha3 " + want.hex())
        .note("now      sha3 " + got.hex());
    return false;
  }
  return true;
}

int run(const ReplayArgs& a, const GlobalOptions& global) {
  DiagnosticSink diags;
  conformance::Store store;
  auto loaded = conformance::load_record(store, a.id, diags);
  if (!loaded) return report(diags, SourceMap{}, global);
  const auto& [id, rec] = *loaded;
  bool files_ok = check_file("program", rec.program_path, rec.program_hash, diags);
  for (const auto& arg : rec.args) files_ok = check_file("argument `" + arg.name + "`", arg.path, arg.file_hash, diags) && files_ok;
  for (const auto& f : rec.reads) files_ok = check_file("data file", f.path, f.file_hash, diags) && files_ok;
  if (!files_ok) return report(diags, SourceMap{}, global);

  // The recorded command, run in this process through `rung run` itself.
  std::vector<std::string> argv = {rec.program_path, "--entry", rec.entry, "--backend", rec.backend, "--receipts", rec.receipt_mode};
  if (!rec.tier_option.empty()) argv.insert(argv.end(), {"--tier", rec.tier_option});
  if (!rec.tolerance_option.empty()) argv.insert(argv.end(), {"--tolerance", rec.tolerance_option});
  for (const auto& arg : rec.args) argv.insert(argv.end(), {"--arg", arg.name + "=" + arg.path});
  // The recorded lookup folders already hold RUNG_DATA_PATH as it was; the current one is set aside below.
  for (const auto& d : rec.data_dirs) argv.insert(argv.end(), {"--data-dir", d});
  if (!rec.stream_option.empty()) argv.insert(argv.end(), {"--stream", rec.stream_option});
  if (!rec.binding_limit_option.empty()) argv.insert(argv.end(), {"--binding-limit", rec.binding_limit_option});
  if (rec.offload_threshold) argv.insert(argv.end(), {"--offload-threshold", std::to_string(rec.offload_threshold)});
  const CommandInfo* run_cmd = nullptr;
  for (const auto& c : registry())
    if (c.name == "run") run_cmd = &c;
  if (!run_cmd) {
    diags.error("Q0023", "this build has no `run` command to replay with");
    return report(diags, SourceMap{}, global);
  }
  CLI::App app{"replay"};
  CLI::App* sub = app.add_subcommand("run", run_cmd->description);
  Runner runner = run_cmd->setup(*sub, global);
  std::vector<std::string> reversed(argv.rbegin(), argv.rend());
  reversed.push_back("run");
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    diags.error("Q0023", std::string("the recorded command no longer parses: ") + e.what());
    return report(diags, SourceMap{}, global);
  }
  conformance::last_run() = {};
  // With --json, the run's own report goes to stderr so stdout holds one JSON document.
  int saved = -1;
  if (a.json) {
    std::fflush(stdout);
    saved = ::dup(1);
    ::dup2(2, 1);
  }
  std::optional<std::string> data_path;
  if (const char* env = std::getenv("RUNG_DATA_PATH")) data_path = env;
  ::unsetenv("RUNG_DATA_PATH");
  int rc = runner();
  if (data_path) ::setenv("RUNG_DATA_PATH", data_path->c_str(), 1);
  if (saved >= 0) {
    std::fflush(stdout);
    std::cout.flush();
    ::dup2(saved, 1);
    ::close(saved);
  }
  auto& last = conformance::last_run();
  if (rc != kExitOk || !last.done) {
    auto& d = diags.error("Q0022", "replay of " + id.short_hex() + " failed: the run did not complete");
    if (rec.format < 2) d.note("the record is format 1, which keeps no --data-dir, --stream, --binding-limit or --offload-threshold");
    return report(diags, SourceMap{}, global);
  }
  // The replay must have read the recorded data files, no other (a file now found earlier in the lookup).
  if (rec.format >= 2) {
    std::vector<std::string> want, got;
    for (const auto& f : rec.reads) want.push_back(f.path);
    for (const auto& f : last.record.reads) got.push_back(f.path);
    if (want != got) {
      auto& d = diags.error("Q0021", "cannot replay " + id.short_hex() + ": the run read other data files than the recorded ones");
      for (const auto& p : want) d.note("recorded " + p);
      for (const auto& p : got) d.note("now      " + p);
      return report(diags, SourceMap{}, global);
    }
  }

  // Compare.
  bool same = last.outputs.size() == rec.outputs.size();
  if (!same)
    diags.error("Q0022", "replay gave " + std::to_string(last.outputs.size()) + " outputs, the record has " + std::to_string(rec.outputs.size()));
  nlohmann::json jres = nlohmann::json::array();
  for (std::size_t i = 0; same && i < rec.outputs.size(); ++i) {
    const auto& want = rec.outputs[i];
    const auto& got = last.record.outputs[i];
    std::string verdict;
    bool ok;
    if (rec.replayable) {
      ok = got.tensor_hash == want.tensor_hash;
      verdict = ok ? "identical" : "DIFFERENT: sha3 " + got.tensor_hash.hex() + " vs recorded " + want.tensor_hash.hex();
    } else {
      DiagnosticSink d;
      std::optional<ops::HostTensor> stored;
      if (want.stored)
        if (auto bytes = store.get("tensors", *want.stored, d)) {
          std::string err;
          stored = conformance::decode_tensor(*bytes, err);
        }
      if (!stored) {
        diags.error("Q0024", "the stored output `" + want.name + "` of record " + id.short_hex() + " is missing or damaged");
        ok = false;
        verdict = "UNCHECKED";
      } else {
        auto cls = ops::tol_class_from_name(rec.convergence_class).value_or(ops::TolClass::default_);
        auto tier = ops::tier_from_name(rec.tier).value_or(ops::Tier::prod);
        ops::Verdict v = ops::compare(last.outputs[i], *stored, cls, tier);
        ok = v.pass;
        verdict = (ok ? "within class: " : "OUTSIDE class: ") + v.summary();
      }
    }
    same = same && ok;
    jres.push_back({{"name", want.name}, {"ok", ok}, {"verdict", verdict}});
    if (!a.json) std::printf("replay       %s: %s\n", want.name.c_str(), verdict.c_str());
  }
  if (rec.profile.hash() != last.record.profile.hash() && !a.json)
    std::printf("note         device profile differs from the record's: %s\n", last.record.profile.to_string().c_str());
  // Kernels generated for fused regions (format 4): a different kernel (another NVRTC, an
  // edited generator) is worth knowing even when the outputs agree.
  if (rec.format >= 4 && rec.generated_kernels != last.record.generated_kernels && !a.json) {
    const auto& was = rec.generated_kernels;
    const auto& now = last.record.generated_kernels;
    std::set<std::string> regions;
    for (const auto& [region, kernel] : was) regions.insert(region);
    for (const auto& [region, kernel] : now) regions.insert(region);
    std::size_t changed = 0;
    for (const auto& region : regions) {
      auto w = was.find(region), n = now.find(region);
      changed += w == was.end() || n == now.end() || w->second != n->second;
    }
    std::printf("note         generated kernels differ from the record's in %zu region(s) (rung record %s lists them)\n", changed,
                last.id ? last.id->short_hex(16).c_str() : "the replay's record");
  }
  if (!same) diags.error("Q0022", "replay of " + id.short_hex() + " does not match the record");
  std::string summary = same ? (rec.replayable ? "bit-for-bit identical" : "within class " + rec.convergence_class) : "MISMATCH";
  if (a.json)
    std::cout << nlohmann::json{{"record", id.hex()}, {"replay_record", last.id ? last.id->hex() : ""}, {"match", same},
                                {"mode", rec.replayable ? "replayable" : "convergent"}, {"outputs", jres}}
                     .dump(2)
              << "\n";
  else
    std::printf("replay       %s: %s\n", id.short_hex(16).c_str(), summary.c_str());
  return report(diags, SourceMap{}, global);
}

RUNG_COMMAND("replay", "Re-run a recorded run and compare: bit for bit (replayable) or within its class (convergent)",
             [](CLI::App& sub, const GlobalOptions& global) -> Runner {
               auto a = std::make_shared<ReplayArgs>();
               sub.add_option("ID", a->id, "the record's id (a unique prefix is enough)")->required();
               sub.add_flag("--json", a->json, "print the comparison as JSON (the run's own output goes to stdout first)");
               return [a, &global] { return run(*a, global); };
             });

}  // namespace
}  // namespace rung::cli
