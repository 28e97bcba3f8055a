// Running a program: a Session binds a compiled program to one backend under a receipts
// policy; Session::run runs an entry with named inputs and returns named outputs, the run
// record and what the run measured. A session serves one call at a time (a concurrent call is
// refused with M0011); programs and tensors may be shared by any number of threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rung/diagnostics.h"
#include "rung/environment.h"
#include "rung/export.h"
#include "rung/program.h"
#include "rung/tensor.h"

namespace rung {

// Progress of long work: the kernels conformed when a session opens, a loop of a run.
struct Progress {
  std::string phase;        // "conforming", "[train] for loop"
  std::int64_t done = 0;    // items or iterations finished
  std::int64_t total = -1;  // -1: unknown (a while loop)
  std::string item;         // the item now started ("softmax f32"), or empty
  double elapsed_s = 0;
  bool finished = false;    // the last report of this phase
};
using ProgressCallback = std::function<void(const Progress&)>;
// What the program's `print` statements write, a line at a time (with its newline).
using PrintCallback = std::function<void(std::string_view text)>;

// Kernels without a conformance receipt for this device: refuse the run, check them now, or
// run them unverified.
enum class Receipts { require, conform, ignore };

struct SessionOptions {
  std::string backend = "cpu";  // rung::backends() lists this build's
  Receipts receipts = Receipts::conform;
  Environment environment = Environment::from_process();
  bool write_records = true;        // false: records are values only (nothing written)
  std::uint64_t offload_threshold = 0;  // regions with fewer input elements stay on the host (device backends)
  bool shadow = false;              // every region also on the reference; differing ops named (slow)
  ProgressCallback progress;        // empty: silent; called on the calling thread
  // A loop reports at most once an interval while it runs, and once at its end if it reported
  // at all (a shorter loop stays silent); 0: every iteration.
  double progress_interval_s = 1.0;
  PrintCallback print;              // empty: prints are discarded
};

struct StreamStats {
  std::string region;
  std::uint64_t rows = 0, chunk = 0;  // chunk 0: not streamed
  std::string why;                    // when not streamed
};


struct RunOptions {
  std::optional<std::uint64_t> stream_rows;    // run row-local regions in chunks of this many rows
  std::optional<std::uint64_t> binding_limit;  // split dispatches binding more than this many bytes
  std::string stream_option, binding_limit_option;  // as the user wrote them (kept in the record)
  std::vector<std::string> data_dirs;          // looked up before Environment::data_path
  std::string base_dir;                        // relative reads; default: the program file's folder
  const std::atomic<bool>* cancel = nullptr;   // set it to stop the run (M0012) between statements
  // Called once the memory plan is made, before anything runs: which regions will be streamed
  // (a CLI prints this ahead of the program's own prints).
  std::function<void(const std::vector<StreamStats>&)> on_plan;
};

// An input: a parameter's name (a struct's fields by name: "p.w1") and its value. `origin` is
// the file it was read from, if any: the record then names the file and its hash.
struct Input {
  std::string name;
  Tensor tensor;
  std::string origin;
};
using Inputs = std::vector<Input>;

struct Output {
  std::string name;
  Tensor tensor;
};

struct MemoryStats {
  std::uint64_t measured_peak = 0;             // bytes of rung-owned tensors alive at once
  std::optional<std::uint64_t> planned_peak;   // the memory plan's figure, when there is one
  double delta_percent = 0;                    // measured against planned
  std::string not_counted;                     // buffers the plan leaves out, named
  std::string no_plan;                         // why there is no plan (a code and message)
};
struct PlacementStats {
  std::string scope, backend, reason;
  std::uint64_t times = 1;
};
struct TransferStats {
  std::uint64_t to_device_bytes = 0, uploads = 0, from_device_bytes = 0, downloads = 0;
};
struct ShadowStats {
  std::string summary;  // one line
  std::uint64_t regions_checked = 0, regions_differing = 0;
  std::string findings_json;  // [{region, execution, output, nodes}]
};
struct RunStats {
  MemoryStats memory;
  std::vector<StreamStats> streams;
  std::vector<PlacementStats> placements;  // regions placed off the requested backend
  std::optional<TransferStats> transfers;  // device backends
  std::map<std::string, std::string> generated_kernels;  // fused region -> kernel id, or "op by op: why"
  std::optional<ShadowStats> shadow;
  std::uint64_t inputs_copied = 0, bytes_copied = 0;  // inputs that could not be borrowed (M0020)
  std::uint64_t inputs_borrowed = 0;
};

// A run record as a value: what was computed and everything needed to check it again.
struct RunRecord {
  std::string id;    // its SHA3 in the store (empty when not written)
  std::string date, program, entry, backend, tier;  // when, what (the program file or name), where
  std::string json;  // every field (docs/records.md)
  std::string text;  // as `rung record` prints it
  bool replayable = true;           // bits defined: replay compares hashes
  std::string convergence_class;    // else: replay compares within this class
};

struct RunResult {
  std::vector<Output> outputs;  // in the entry's result order
  const Tensor* output(std::string_view name) const;
  std::string entry, tier, backend;
  std::string fingerprint, graph_fingerprint, blockir;
  std::string reproducibility;  // non-exact backends: convergent, its class and why; else empty
  RunRecord record;
  Diagnostics warnings;
  RunStats stats;
};

class RUNG_API Session {
 public:
  static Result<Session> open(const Program& program, const SessionOptions& options);
  ~Session();
  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;

  Result<RunResult> run(std::string_view entry, const Inputs& inputs, const RunOptions& options = {});

  const Program& program() const;
  const std::string& backend() const;
  bool exact_capable() const;  // false: bits may differ between devices (webgpu)
  std::string agreement() const;  // how each op's results are judged on this backend

  struct Impl;
  const Impl& impl() const { return *impl_; }

 private:
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

struct BackendInfo {
  std::string name, summary;
};
RUNG_API std::vector<BackendInfo> backends();  // this build's, sorted by name

}  // namespace rung
