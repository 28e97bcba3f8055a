// Run records in the store: look one up, list them, replay one. A replayable record must give
// the same output hashes (bit for bit), a convergent one outputs within its tolerance class of
// the stored ones; the program, argument and data files must be the recorded ones.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rung/diagnostics.h"
#include "rung/environment.h"
#include "rung/export.h"
#include "rung/session.h"

namespace rung {

// One record by id or unique id prefix (Q0004 none, Q0005 ambiguous, Q0006 not hex, Q0008 damaged).
RUNG_API Result<RunRecord> find_record(const Environment& env, std::string_view id_prefix);
// Every record of the store, newest first; damaged ones are skipped with a warning (Q0008).
RUNG_API Result<std::vector<RunRecord>> list_records(const Environment& env);

struct ReplayOptions {
  Environment environment = Environment::from_process();  // the store; its data_path is not used
  ProgressCallback progress;
  PrintCallback print;  // the replayed program's prints
};

struct OutputVerdict {
  std::string name;
  bool ok = false;
  std::string verdict;  // "identical", "within class: ...", "DIFFERENT: ...", "UNCHECKED"
};

struct ReplayResult {
  std::string record_id;         // the replayed record
  bool replayable = true;        // compared bit for bit, else within `convergence_class`
  std::string convergence_class;
  RunResult run;                 // the replay's own run (its record included)
  std::vector<OutputVerdict> outputs;
  bool match = false;
  Diagnostics mismatches;        // errors found while comparing (Q0022, Q0024): the replay ran, but does not match
  std::optional<std::string> profile_differs;      // the device profile now, when it is not the recorded one
  std::optional<std::size_t> kernels_changed;      // regions whose generated kernel differs (format 4 records)
};

RUNG_API Result<ReplayResult> replay(std::string_view id_prefix, const ReplayOptions& options = {});

}  // namespace rung
