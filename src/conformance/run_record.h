// A run record: what one `rung run` computed and everything needed to check it again.
// Content-addressed in the store (records/<sha3>); `rung record` shows one, `rung replay`
// re-runs it. A record is `replayable` when the result is defined bit for bit (tier debug,
// or tolerance class exact): replay compares output hashes. Otherwise it is `convergent`
// with its tolerance class: the outputs are kept in the store (tensors/<sha3>) and replay
// compares within the class.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/hash.h"
#include "conformance/exec_policy.h"
#include "conformance/store.h"
#include "ops/host_tensor.h"
#include "runtime/op_backend.h"

namespace rung::conformance {

struct RecordedArg {
  std::string name;
  std::string path;       // absolute
  Hash256 file_hash;      // sha3 of the file's bytes
  Hash256 tensor_hash;    // runtime/tensor_hash.h
};

// A file the program read itself (read_csv, read_npy), as resolved at run time.
struct RecordedRead {
  std::string path;  // absolute
  Hash256 file_hash;
};

struct RecordedOutput {
  std::string name;
  std::string type;       // "f32[10]"
  Hash256 tensor_hash;
  std::optional<Hash256> stored;  // tensors/<id> (convergent records)
};

struct RunRecord {
  std::string date;
  std::string program_path;  // absolute
  Hash256 program_hash;      // sha3 of the program file
  std::string entry;
  std::string tier_option, tolerance_option;  // as given on the command line ("" if not)
  std::vector<RecordedArg> args;
  // Format 2 on: the run options that change the result or its inputs, and the files read.
  std::vector<std::string> data_dirs;  // absolute, --data-dir then RUNG_DATA_PATH, in lookup order
  std::string stream_option, binding_limit_option;  // as given ("" if not)
  std::uint64_t offload_threshold = 0;
  std::vector<RecordedRead> reads;
  // The graph fingerprint and the BlockIR hash (every format has both); the program
  // fingerprint that `rung record` shows as `fingerprint` is derived from the two
  // (ir/block/fingerprint.h), so older records show it too and keep their ids.
  Hash256 fingerprint, blockir;
  std::optional<Hash256> execplan;  // absent until the planner provides one
  std::string tier, tolerance;      // effective
  std::string backend;
  runtime::DeviceProfile profile;
  std::string receipt_mode;
  std::vector<ReceiptUse> receipts;
  std::vector<PolicyDecision> decisions;
  std::vector<RecordedOutput> outputs;
  bool replayable = true;
  std::string convergence_class;  // for convergent records
  // Format 3 on: the device backend's host <-> device transfers during the run (absent for
  // backends that compute in host memory).
  std::optional<runtime::TransferCounts> transfers;
  // Format 4 on: kernels the backend generated for fused regions during the run (region ->
  // the kernel's identity, a hash of its source; or "op by op: <why>" where a region ran node
  // by node). Empty for backends that generate none (reference, cpu).
  std::map<std::string, std::string> generated_kernels;
  // 1: records written before run options and read files were kept (decoded as such, their
  // id unchanged; the format-2 fields stay empty); 2: before transfers were kept; 3: before
  // generated kernels were kept. New records are format 4. Older records re-encode to their
  // own bytes (same id).
  int format = 4;

  std::vector<std::uint8_t> encode() const;
  static std::optional<RunRecord> decode(std::span<const std::uint8_t> bytes, std::string& error);
  Hash256 id() const { return sha3_256(encode()); }
  nlohmann::json to_json() const;
  std::string to_text() const;
};

// Replayable when debug or class exact on an exact-capable backend; otherwise convergent
// with the class (the declared one, `default` when that was `exact`).
void set_reproducibility(RunRecord& r, bool exact_capable = true);

// A tensor as stored in the store: "rung.tensor.v1", u8 dtype, u32 rank, u64 extents, bytes.
std::vector<std::uint8_t> encode_tensor(const ops::HostTensor& t);
std::optional<ops::HostTensor> decode_tensor(std::span<const std::uint8_t> bytes, std::string& error);

// Loads records/<prefix...> (Q0004/Q0005/Q0006 for the id, Q0008 for a damaged record).
std::optional<std::pair<Hash256, RunRecord>> load_record(const Store& store, std::string_view prefix, DiagnosticSink& diags);

}  // namespace rung::conformance
