// A conformance run over many ops: the reports, and (with a store) the receipts minted for
// the ops that passed. `rung conform` and the run-time re-conformance both call this.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "conformance/harness.h"
#include "conformance/receipt.h"
#include "conformance/store.h"

namespace rung::conformance {

struct SuiteResult {
  runtime::DeviceProfile profile;
  std::vector<OpReport> reports;
  std::vector<std::pair<std::string, Hash256>> receipts;  // op -> receipt minted (passing ops)
  std::size_t passed() const;
  std::size_t failed() const;   // ran and failed (wrong bits, refusals)
  std::size_t missing() const;  // at least one row without a kernel
  std::size_t unsupported() const;  // every row not supported on this device (neither pass nor fail)
  // Every op passes or is not supported on this device at all (never a failure or a missing
  // kernel), and at least one passes.
  bool pass() const { return passed() > 0 && passed() + unsupported() == reports.size(); }
  Hash256 outputs_digest() const;  // over the ops' digests, in report order
};

// Runs `ops` (every op of the registry when empty) on `backend`. With `store`, each passing
// op's receipt is written there (write failures are diagnostics; the reports stand).
// `on_op`, when given, sees each op's report as soon as it is done, so a slow backend's run
// can be followed line by line instead of all at once at the end.
SuiteResult conform_suite(runtime::OpBackend& backend, const std::vector<const ops::OpDef*>& ops, const ConformOptions& options,
                          const Store* store, DiagnosticSink& diags,
                          const std::function<void(const OpReport&)>& on_op = {});

}  // namespace rung::conformance

namespace rung::conformance {

// The per-row table `rung conform` prints (op, dtype, cases, max ulp, differing elements,
// verdict), then each failure, then the summary line.
std::string suite_table(const SuiteResult& s);
// The table's pieces, for printing it while the suite runs: the device and column header,
// one op's rows, and the failures with the summary.
// `agreement` (OpReport::agreement) says how the classes were chosen; empty: no line.
std::string suite_table_header(const runtime::DeviceProfile& profile, const std::string& agreement = {});
std::string suite_table_rows(const OpReport& r);
std::string suite_table_footer(const SuiteResult& s);
nlohmann::json suite_json(const SuiteResult& s);

}  // namespace rung::conformance
