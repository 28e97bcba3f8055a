// Records as values, and replay as a library call: what `rung record` and `rung replay` did
// in the CLI (replay re-parsed an argv through `rung run` and read a process global).
#include <filesystem>
#include <set>

#include "api/impl.h"
#include "base/file_io.h"
#include "conformance/run_record.h"
#include "conformance/store.h"
#include "ops/compare.h"
#include "ops/tier.h"
#include "ops/tolerance.h"
#include "rung/record.h"

namespace rung {

namespace api {
RunRecord public_record(const conformance::RunRecord& r, std::string id) {
  RunRecord p;
  p.id = std::move(id);
  p.date = r.date;
  p.program = r.program_path;
  p.entry = r.entry;
  p.backend = r.backend;
  p.tier = r.tier;
  p.json = r.to_json().dump();
  p.text = r.to_text();
  p.replayable = r.replayable;
  p.convergence_class = r.convergence_class;
  return p;
}
}  // namespace api

Result<RunRecord> find_record(const Environment& env, std::string_view prefix) {
  conformance::Store store(env.home);
  DiagnosticSink diags;
  auto rec = conformance::load_record(store, prefix, diags);
  if (!rec) return api::diagnostics_of(diags, SourceMap{});
  return Result<RunRecord>(api::public_record(rec->second, rec->first.hex()), api::diagnostics_of(diags, SourceMap{}));
}

Result<std::vector<RunRecord>> list_records(const Environment& env) {
  conformance::Store store(env.home);
  DiagnosticSink diags;
  std::vector<RunRecord> out;
  for (const auto& id : store.list("records")) {
    DiagnosticSink d;
    auto bytes = store.get("records", id, d);
    std::string err;
    std::optional<conformance::RunRecord> r;
    if (bytes) r = conformance::RunRecord::decode(*bytes, err);
    if (!bytes || !r) {
      diags.warning("Q0008", "skipping damaged record '" + store.path("records", id) + "': " +
                                 (bytes ? err : (d.all().empty() ? "?" : d.all().front().message)));
      continue;
    }
    out.push_back(api::public_record(*r, id.hex()));
  }
  std::stable_sort(out.begin(), out.end(), [](const RunRecord& x, const RunRecord& y) { return x.date > y.date; });
  return Result<std::vector<RunRecord>>(std::move(out), api::diagnostics_of(diags, SourceMap{}));
}

namespace {

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

}  // namespace

Result<ReplayResult> replay(std::string_view prefix, const ReplayOptions& options) {
  conformance::Store store(options.environment.home);
  DiagnosticSink diags;
  auto fail = [&] { return Result<ReplayResult>(api::diagnostics_of(diags, SourceMap{})); };
  auto loaded = conformance::load_record(store, prefix, diags);
  if (!loaded) return fail();
  // Named, not a structured binding: clang 14 (emscripten 3.1.6) cannot capture one in a lambda.
  const Hash256& id = loaded->first;
  const conformance::RunRecord& rec = loaded->second;
  bool files_ok = check_file("program", rec.program_path, rec.program_hash, diags);
  for (const auto& arg : rec.args) files_ok = check_file("argument `" + arg.name + "`", arg.path, arg.file_hash, diags) && files_ok;
  for (const auto& f : rec.reads) files_ok = check_file("data file", f.path, f.file_hash, diags) && files_ok;
  if (!files_ok) return fail();

  // The recorded run again: same program, options, inputs and lookup folders (which already
  // hold the data path as it was; the current one is not used).
  auto run_failed = [&](const Diagnostics& why) {
    Diagnostics all = why;
    DiagnosticSink q;
    auto& d = q.error("Q0022", "replay of " + id.short_hex() + " failed: the run did not complete");
    if (rec.format < 2) d.note("the record is format 1, which keeps no --data-dir, --stream, --binding-limit or --offload-threshold");
    all.append(api::diagnostics_of(q, SourceMap{}));
    return Result<ReplayResult>(std::move(all));
  };
  Diagnostics warnings;
  auto module = Module::load(Source::file(rec.program_path));
  if (!module) return run_failed(module.diagnostics());
  warnings.append(module.diagnostics());
  CompileOptions co;
  if (!rec.tier_option.empty()) co.tier = rec.tier_option;
  if (!rec.tolerance_option.empty()) co.tolerance = rec.tolerance_option;
  auto program = Program::compile(*module, co);
  if (!program) return run_failed(program.diagnostics());
  warnings.append(program.diagnostics());
  Inputs inputs;
  for (const auto& arg : rec.args) {
    auto t = Tensor::load_npy(arg.path);
    if (!t) return run_failed(t.diagnostics());
    inputs.push_back({arg.name, std::move(*t), arg.path});
  }
  SessionOptions so;
  so.backend = rec.backend;
  auto mode = conformance::receipt_mode_from_name(rec.receipt_mode).value_or(conformance::ReceiptMode::conform);
  so.receipts = mode == conformance::ReceiptMode::require ? Receipts::require
                : mode == conformance::ReceiptMode::ignore ? Receipts::ignore
                                                            : Receipts::conform;
  so.environment = options.environment;
  so.environment.data_path.clear();
  so.offload_threshold = rec.offload_threshold;
  so.progress = options.progress;
  so.print = options.print;
  auto session = Session::open(*program, so);
  if (!session) return run_failed(session.diagnostics());
  warnings.append(session.diagnostics());
  RunOptions ro;
  ro.data_dirs = rec.data_dirs;
  ro.stream_option = rec.stream_option;
  ro.binding_limit_option = rec.binding_limit_option;
  if (!rec.stream_option.empty()) ro.stream_rows = parse_size(rec.stream_option);
  if (!rec.binding_limit_option.empty()) ro.binding_limit = parse_size(rec.binding_limit_option);
  auto run = session->run(rec.entry, inputs, ro);
  if (!run) return run_failed(run.diagnostics());
  warnings.append(run.diagnostics());
  const conformance::RunRecord& now = api::last_record(*session);

  ReplayResult r;
  r.record_id = id.hex();
  r.replayable = rec.replayable;
  r.convergence_class = rec.convergence_class;
  r.run = std::move(*run);
  r.run.warnings = warnings;
  // The replay must have read the recorded data files, no other (a file now found earlier in the lookup).
  if (rec.format >= 2) {
    std::vector<std::string> want, got;
    for (const auto& f : rec.reads) want.push_back(f.path);
    for (const auto& f : now.reads) got.push_back(f.path);
    if (want != got) {
      auto& d = diags.error("Q0021", "cannot replay " + id.short_hex() + ": the run read other data files than the recorded ones");
      for (const auto& p : want) d.note("recorded " + p);
      for (const auto& p : got) d.note("now      " + p);
      Diagnostics all = warnings;
      all.append(api::diagnostics_of(diags, SourceMap{}));
      return Result<ReplayResult>(std::move(all));
    }
  }
  DiagnosticSink mismatch;
  bool same = r.run.outputs.size() == rec.outputs.size();
  if (!same)
    mismatch.error("Q0022", "replay gave " + std::to_string(r.run.outputs.size()) + " outputs, the record has " +
                                std::to_string(rec.outputs.size()));
  for (std::size_t i = 0; same && i < rec.outputs.size(); ++i) {
    const auto& want = rec.outputs[i];
    const auto& got = now.outputs[i];
    OutputVerdict v{want.name};
    if (rec.replayable) {
      v.ok = got.tensor_hash == want.tensor_hash;
      v.verdict = v.ok ? "identical" : "DIFFERENT: sha3 " + got.tensor_hash.hex() + " vs recorded " + want.tensor_hash.hex();
    } else {
      DiagnosticSink d;
      std::optional<ops::HostTensor> stored;
      if (want.stored)
        if (auto bytes = store.get("tensors", *want.stored, d)) {
          std::string err;
          stored = conformance::decode_tensor(*bytes, err);
        }
      if (!stored) {
        mismatch.error("Q0024", "the stored output `" + want.name + "` of record " + id.short_hex() + " is missing or damaged");
        v.verdict = "UNCHECKED";
      } else {
        auto cls = ops::tol_class_from_name(rec.convergence_class).value_or(ops::TolClass::default_);
        auto tier = ops::tier_from_name(rec.tier).value_or(ops::Tier::prod);
        ops::Verdict c = ops::compare(api::host_of(r.run.outputs[i].tensor), *stored, cls, tier);
        v.ok = c.pass;
        v.verdict = (v.ok ? "within class: " : "OUTSIDE class: ") + c.summary();
      }
    }
    same = same && v.ok;
    r.outputs.push_back(std::move(v));
  }
  if (rec.profile.hash() != now.profile.hash()) r.profile_differs = now.profile.to_string();
  // Kernels generated for fused regions (format 4): a different kernel (another NVRTC, an
  // edited generator) is worth knowing even when the outputs agree.
  if (rec.format >= 4 && rec.generated_kernels != now.generated_kernels) {
    std::set<std::string> regions;
    for (const auto& [region, kernel] : rec.generated_kernels) regions.insert(region);
    for (const auto& [region, kernel] : now.generated_kernels) regions.insert(region);
    std::size_t changed = 0;
    for (const auto& region : regions) {
      auto w = rec.generated_kernels.find(region), n = now.generated_kernels.find(region);
      changed += w == rec.generated_kernels.end() || n == now.generated_kernels.end() || w->second != n->second;
    }
    r.kernels_changed = changed;
  }
  if (!same) mismatch.error("Q0022", "replay of " + id.short_hex() + " does not match the record");
  r.match = same;
  r.mismatches = api::diagnostics_of(mismatch, SourceMap{});
  return r;
}

}  // namespace rung
