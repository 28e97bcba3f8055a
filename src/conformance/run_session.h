// One `rung run` under the policy: `open` checks receipts for the ops the program uses
// (per ReceiptMode) and wraps the backend so each region's placement is decided and kept;
// `close` writes the run record (program and argument files hashed, outputs hashed, and for
// convergent runs the outputs themselves) to the store.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "conformance/exec_policy.h"
#include "conformance/run_record.h"
#include "ir/block/block.h"
#include "runtime/backend_settings.h"

namespace rung::conformance {

struct RunInvocation {
  std::string file, entry, tier_option, tolerance_option, backend;
  std::vector<std::string> arg_specs;  // NAME=PATH as given
  std::vector<Hash256> arg_tensor_hashes;  // the tensor each of arg_specs gave (runtime/tensor_hash.h)
  std::vector<std::string> data_dirs;  // --data-dir then RUNG_DATA_PATH, as the run looked them up
  std::string stream_option, binding_limit_option;
  std::uint64_t offload_threshold = 0;
  std::vector<std::string> reads;  // files the program read (runtime::ExecOptions::reads)
  // A program or arguments given in memory (the public API): no file to hash. The program is
  // named `file` and hashed from these bytes; such arguments are recorded by tensor hash.
  std::optional<Hash256> program_bytes_hash;
  std::vector<RecordedArg> memory_args;
};

class RunSession {
 public:
  // Null (with diagnostics) when the policy refuses the run. `progress` hears each kernel
  // conformed now (ReceiptMode::conform without a receipt: "conforming 12/40: softmax f32").
  // `settings`: those `backend` was created with; the host backend a device run hands
  // regions to is created with them too.
  static std::unique_ptr<RunSession> open(const block::Program& program, runtime::OpBackend& backend, ReceiptMode mode,
                                          const Store& store, const runtime::BackendSettings& settings, DiagnosticSink& diags,
                                          PolicyConfig cfg = {}, runtime::ProgressFn progress = {});
  runtime::ComputeBackend& backend() { return *policy_; }
  // A session serves several runs: each starts with no placement decisions, and its record
  // counts only its own transfers.
  void begin_run();
  const std::vector<ReceiptUse>& receipts() const { return receipts_; }

  // Builds and stores the record; nullopt (a warning, Q0009) when the store cannot be written.
  std::optional<Hash256> close(const RunInvocation& inv, const block::Program& program, std::span<const ops::HostTensor> outputs,
                               const std::vector<std::string>& output_names, DiagnosticSink& diags);
  const RunRecord& record() const { return record_; }

 private:
  RunSession() = default;
  runtime::OpBackend* backend_ = nullptr;
  ReceiptMode mode_ = ReceiptMode::conform;
  const Store* store_ = nullptr;
  std::vector<ReceiptUse> receipts_;
  std::unique_ptr<runtime::OpBackend> host_;
  std::unique_ptr<PolicyComputeBackend> policy_;
  RunRecord record_;
  std::optional<runtime::TransferCounts> transfers_before_;
};


}  // namespace rung::conformance
