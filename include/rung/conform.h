// Checking rung against itself: a backend's kernels against the reference (`rung conform`:
// the conformance suite, whose passing ops mint receipts) and gradients against binary64
// central differences (`rung gradcheck`). docs/conformance.md and docs/autodiff.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rung/diagnostics.h"
#include "rung/environment.h"
#include "rung/export.h"

namespace rung {

struct ConformOptions {
  std::string backend;  // rung::backends() lists this build's
  // Only these ops (F0001 for an unknown one, and for an empty list); nullopt: every op.
  std::optional<std::vector<std::string>> ops;
  std::string tier = "debug";  // whose thresholds apply: debug | prod | fast
  std::size_t cases = 16;      // per (op, dtype)
  std::uint64_t seed = 0x72756e67;  // of the case generator ("rung")
  // Non-empty: the first failing case of each (op, dtype) is written to this folder (made,
  // and checked writable, before the suite runs: F0002).
  std::string dump_failures;
  bool receipts = true;  // passing ops mint receipts in the store, environment.home
  Environment environment = Environment::from_process();
  // The table as it is made (a slow backend takes minutes): its header (device and columns)
  // once the backend is open, then each op's rows as soon as that op is done.
  std::function<void(std::string_view header)> on_header;
  std::function<void(std::string_view rows)> on_op;
};

struct ConformReport {
  bool pass = false;  // every op passes or is not supported on the device, and at least one passes
  std::string agreement;  // how each op's results are judged on this backend
  std::string footer;     // the table's end: each failure, then the summary line
  std::string json;       // every report, the options and the store, indented by two spaces
  std::string store;      // where the receipts went
  // What the run reported: a receipt that could not be written is an error, the reports stand.
  Diagnostics diagnostics;
};

// The suite for one backend. Fails (no report) on an unknown tier, op or backend.
RUNG_API Result<ConformReport> conform(const ConformOptions& options);

struct GradcheckOptions {
  std::string target;    // a registry op (its built-in cases) or a .rung file (its exports)
  std::string function;  // of a file: only this export (default: every pure export with a float parameter)
  std::map<std::string, std::uint64_t> dims;  // symbolic dims of a file's functions
  double step = 1e-6;        // finite-difference step
  double tolerance = 1e-6;   // allowed |analytic - numeric| / (1 + |numeric|)
  double forward_tolerance = 1e-4;  // an op's kernel against the binary64 forward
  std::uint64_t max_elements = 64;  // checked per input
  std::uint64_t seed = 42;          // of the generated arguments and weights
  std::int64_t int_max = 1;         // integer arguments are drawn from [0, int_max]
};

struct GradcheckReport {
  std::string text;  // a table per case or function: max abs/rel error per input
  bool ok = true;    // every check passed
  bool of_file = false;       // the target was a .rung file
  std::size_t checked = 0;    // cases or functions checked
  // D0012 (no op, no .rung file), D0013, D0015, D0016 and the checks' own errors; the tables
  // of what was checked before an error stand.
  Diagnostics diagnostics;
};

RUNG_API GradcheckReport gradcheck(const GradcheckOptions& options);

}  // namespace rung
