// Executes a BlockIR program: walks the statements of the entry function, running each
// `compute` on the ComputeBackend the caller gives (a registry backend seen through
// as_compute_backend, or a policy over one), `call` recursively, loops and conditionals on
// host scalars, and the io statements (print, read). Loops that run longer than a second
// report progress through ExecOptions::progress. Diagnostics X0001..X0006.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "ir/block/block.h"
#include "ops/host_tensor.h"
#include "ops/tier.h"
#include "runtime/progress.h"
#include "runtime/slot_lifetimes.h"

namespace rung::runtime {

class ComputeBackend {
 public:
  virtual ~ComputeBackend() = default;
  virtual std::string_view name() const = 0;
  virtual std::optional<std::vector<ops::HostTensor>> run(const Graph& g, RegionId region,
                                                          std::span<const ops::HostTensor> args, DiagnosticSink& diags) = 0;
};

// How one `compute` runs, when a policy decides (src/plan's streaming and binding-limit
// splits): the region as given, another region (a rewritten copy living in `graph`), and
// optionally in chunks of `chunk` rows over dim 0 of the arguments marked in `split`, each
// result assembled row by row. Chunked results have the bits of the whole run when the
// region is row-local (every result row depends on the same row of the split arguments
// only); deciding that is the policy's job.
struct ComputeSplit {
  const Graph* graph = nullptr;  // null: the program's graph
  RegionId region = 0;
  std::uint64_t rows = 0;        // > 0: the leading extent of the split arguments
  std::uint64_t chunk = 0;       // rows per chunk (the last may be smaller)
  std::vector<bool> split;       // per argument
};
// Returns how to run `region` on `args`; nullopt with an error diagnostic refuses the run.
using SplitPolicy = std::function<std::optional<ComputeSplit>(const Graph& g, RegionId region,
                                                              std::span<const ops::HostTensor> args, DiagnosticSink& diags)>;

// What one run works out about a program that the next run of the same program can reuse:
// each function's slot lifetimes. A session keeps one per program; like the session, it
// serves one run at a time.
struct ExecCache {
  std::map<const block::Function*, SlotDrops> drops;
};

struct ExecOptions {
  ExecCache* cache = nullptr;        // set: reused across runs of one program (else per run)
  SplitPolicy split;                 // empty: every region runs whole
  ComputeBackend* backend = nullptr;  // required: where each `compute` runs
  std::ostream* out = nullptr;       // where print goes (stdout if null)
  std::string base_dir;              // relative read paths resolve against it
  std::vector<std::string> data_dirs;  // ... or, when the file is not there, against these in order
  std::vector<std::string>* reads = nullptr;  // if set: each file read gets its absolute path appended (once)
  ProgressFn progress;               // loops longer than a second report here (empty: silent)
  double progress_interval_s = 1.0;  // at most one report per interval (tests use 0: every iteration)
  int max_call_depth = 256;          // X0005 beyond (docs/language.md, "Functions")
  std::vector<std::string> arg_origins;  // per entry argument: where it came from (a file), named by X0001
  const std::atomic<bool>* cancel = nullptr;  // set: the run stops before its next statement (M0012)
};

std::optional<std::vector<ops::HostTensor>> execute(const block::Program& p, std::string_view entry,
                                                    std::span<const ops::HostTensor> args, SourceMap& sources,
                                                    DiagnosticSink& diags, const ExecOptions& options);

}  // namespace rung::runtime
