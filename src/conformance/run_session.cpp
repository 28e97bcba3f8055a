#include "conformance/run_session.h"

#include <filesystem>

#include "base/file_io.h"
#include "conformance/codec.h"
#include "runtime/backend_registry.h"
#include "runtime/device_probe.h"
#include "runtime/tensor_hash.h"

namespace rung::conformance {

namespace fs = std::filesystem;

std::unique_ptr<RunSession> RunSession::open(const block::Program& program, runtime::OpBackend& backend, ReceiptMode mode,
                                             const Store& store, const runtime::BackendSettings& settings,
                                             DiagnosticSink& diags, PolicyConfig cfg, runtime::ProgressFn progress) {
  std::unique_ptr<RunSession> s(new RunSession);
  s->backend_ = &backend;
  s->mode_ = mode;
  s->store_ = &store;
  ConformOptions conform;
  conform.progress = std::move(progress);
  auto uses = check_receipts(ops_used(program.graph), backend, mode, store, conform, diags);
  if (!uses) return nullptr;
  s->receipts_ = std::move(*uses);
  std::string name(ops::backend_name(backend.id()));
  Placement requested{name, &backend, is_device_backend(name), 0};
  if (requested.is_device) {
    for (const auto& d : runtime::device_registry().probe_all())
      if (d.kind == name) requested.memory_bytes = d.memory_bytes;
  }
  std::optional<Placement> host;
  if (requested.is_device) {
    // The host backend a device run may hand small or oversized regions to: cpu, else the reference.
    DiagnosticSink quiet;
    for (const char* h : {"cpu", "reference"}) {
      if (!runtime::backend_registry().find(h)) continue;
      s->host_ = runtime::backend_registry().create(h, backend.tier(), quiet, settings);
      if (s->host_) {
        host = Placement{h, s->host_.get(), false, 0};
        break;
      }
    }
  }
  s->policy_ = std::make_unique<PolicyComputeBackend>(requested, host, cfg);
  return s;
}

void RunSession::begin_run() {
  policy_->clear_decisions();
  record_ = RunRecord{};
  transfers_before_ = backend_->transfers();
}

static Hash256 file_hash(const std::string& path, DiagnosticSink& diags) {
  auto data = read_file(path, diags);
  return data ? sha3_256(*data) : Hash256{};
}

std::optional<Hash256> RunSession::close(const RunInvocation& inv, const block::Program& program, std::span<const ops::HostTensor> outputs,
                                         const std::vector<std::string>& output_names, DiagnosticSink& diags) {
  RunRecord& r = record_;
  DiagnosticSink io;
  r.date = utc_now();
  std::error_code ec;
  if (inv.program_bytes_hash) {
    r.program_path = inv.file;
    r.program_hash = *inv.program_bytes_hash;
  } else {
    r.program_path = fs::absolute(inv.file, ec).lexically_normal().string();
    r.program_hash = file_hash(inv.file, io);
  }
  r.entry = inv.entry;
  r.tier_option = inv.tier_option;
  r.tolerance_option = inv.tolerance_option;
  for (std::size_t k = 0; k < inv.arg_specs.size(); ++k) {
    const std::string& spec = inv.arg_specs[k];
    auto eq = spec.find('=');
    if (eq == std::string::npos) continue;
    RecordedArg a;
    a.name = spec.substr(0, eq);
    std::string p = spec.substr(eq + 1);
    a.path = fs::absolute(p, ec).lexically_normal().string();
    a.file_hash = file_hash(p, io);
    if (k < inv.arg_tensor_hashes.size()) a.tensor_hash = inv.arg_tensor_hashes[k];
    r.args.push_back(std::move(a));
  }
  for (const auto& a : inv.memory_args) r.args.push_back(a);
  for (const auto& d : inv.data_dirs) r.data_dirs.push_back(fs::absolute(d, ec).lexically_normal().string());
  r.stream_option = inv.stream_option;
  r.binding_limit_option = inv.binding_limit_option;
  r.offload_threshold = inv.offload_threshold;
  for (const auto& p : inv.reads) r.reads.push_back({p, file_hash(p, io)});
  r.fingerprint = program.graph.fingerprint();
  r.blockir = program.hash();
  r.tier = std::string(ops::tier_name(backend_->tier()));  // the run's: an entry may declare its own
  r.tolerance = program.determinism.tolerance;
  r.backend = std::string(ops::backend_name(backend_->id()));
  r.profile = backend_->profile();
  r.receipt_mode = std::string(receipt_mode_name(mode_));
  r.receipts = receipts_;
  r.decisions = policy_->decisions();
  r.transfers = backend_->transfers();
  if (r.transfers && transfers_before_) {
    r.transfers->to_device_bytes -= transfers_before_->to_device_bytes;
    r.transfers->uploads -= transfers_before_->uploads;
    r.transfers->from_device_bytes -= transfers_before_->from_device_bytes;
    r.transfers->downloads -= transfers_before_->downloads;
  }
  r.generated_kernels = backend_->generated_kernels();
  set_reproducibility(r, backend_->exact_capable());
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    RecordedOutput o;
    o.name = i < output_names.size() ? output_names[i] : "out" + std::to_string(i);
    o.type = outputs[i].type().to_string();
    o.tensor_hash = tensor_hash(outputs[i]);
    if (!r.replayable) {
      DiagnosticSink put;
      o.stored = store_->put("tensors", encode_tensor(outputs[i]), put);
      for (const auto& d : put.all()) io.error(d.code, d.message);
    }
    r.outputs.push_back(std::move(o));
  }
  std::optional<Hash256> id;
  if (!io.has_errors()) id = store_->put("records", r.encode(), io);
  if (!id) {
    auto& d = diags.warning("Q0009", "the run record could not be written to the store '" + store_->root() + "'");
    for (const auto& x : io.all()) d.note(x.message);
    return std::nullopt;
  }
  return id;
}

}  // namespace rung::conformance
