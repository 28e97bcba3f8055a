#include "conformance/suite.h"

#include <algorithm>
#include <cstdio>

namespace rung::conformance {

std::size_t SuiteResult::passed() const {
  return static_cast<std::size_t>(std::count_if(reports.begin(), reports.end(), [](const OpReport& r) { return r.pass(); }));
}

static bool has_missing(const OpReport& r) {
  return std::any_of(r.rows.begin(), r.rows.end(), [](const RowResult& x) { return x.verdict == RowVerdict::missing; });
}

std::size_t SuiteResult::missing() const {
  return static_cast<std::size_t>(std::count_if(reports.begin(), reports.end(), has_missing));
}

Hash256 SuiteResult::outputs_digest() const {
  Sha3_256 h;
  for (const auto& r : reports) h.update(r.outputs_digest.bytes);
  return h.finish();
}

static bool all_unsupported(const OpReport& r) {
  return !r.rows.empty() && std::all_of(r.rows.begin(), r.rows.end(), [](const RowResult& x) { return x.verdict == RowVerdict::unsupported; });
}

std::size_t SuiteResult::unsupported() const {
  return static_cast<std::size_t>(std::count_if(reports.begin(), reports.end(), all_unsupported));
}

std::size_t SuiteResult::failed() const { return reports.size() - passed() - missing() - unsupported(); }

SuiteResult conform_suite(runtime::OpBackend& backend, const std::vector<const ops::OpDef*>& ops_in, const ConformOptions& options,
                          const Store* store, DiagnosticSink& diags, const std::function<void(const OpReport&)>& on_op) {
  SuiteResult s;
  s.profile = backend.profile();
  std::vector<const ops::OpDef*> ops = ops_in.empty() ? ops::op_registry().all() : ops_in;
  std::optional<ReceiptWriter> writer;
  if (store) writer.emplace(*store);
  // Progress counts the suite's claimed rows; each op reports its own, offset here.
  std::int64_t total = 0, base = 0;
  if (options.progress)
    for (const ops::OpDef* op : ops) total += static_cast<std::int64_t>(claimed_rows(backend, *op));
  for (const ops::OpDef* op : ops) {
    ConformOptions o = options;
    if (options.progress)
      o.progress = [&](const runtime::Progress& p) { options.progress({p.phase, base + p.done, total, p.item}); };
    OpReport rep = conform_op(*op, backend, o);
    if (options.progress) base += static_cast<std::int64_t>(claimed_rows(backend, *op));
    if (writer && rep.pass()) {
      ConformanceReceipt r = receipt_for(rep, *op, s.profile, options);
      if (auto id = writer->put(r, diags)) s.receipts.emplace_back(op->name, *id);
    }
    if (on_op) on_op(rep);
    s.reports.push_back(std::move(rep));
  }
  if (options.progress && total) options.progress({"conforming", total, total, "", 0, true});
  return s;
}

}  // namespace rung::conformance

namespace rung::conformance {

static std::string fmt_ulp(double u) {
  char b[32];
  std::snprintf(b, sizeof b, u >= 1e6 ? "%.3g" : "%.0f", u);
  return b;
}

std::string suite_table_header(const runtime::DeviceProfile& profile, const std::string& agreement) {
  // The profile line is long (every capability), so it is concatenated, not formatted into a
  // fixed buffer that would cut it and its newline off.
  std::string out = "device  " + profile.to_string() + "\n        profile " + profile.hash().short_hex(16) + "\n";
  if (!agreement.empty()) out += "agreement " + agreement + "\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-16s %-6s %-13s %6s %10s %10s  %s\n", "op", "dtype", "class", "cases", "max ulp", "diff elems", "verdict");
  return out + line;
}

std::string suite_table_rows(const OpReport& r) {
  std::string out;
  char line[512];
  for (const auto& row : r.rows) {
    // The class with the tier whose thresholds it resolved to ("tight/prod").
    std::string cls = std::string(ops::tol_class_name(r.cls)) + "/" + std::string(ops::tier_name(r.judged_tier));
    std::string verdict(row_verdict_name(row.verdict));
    if (row.unsupported_cases && row.verdict != RowVerdict::unsupported)
      verdict += " (" + std::to_string(row.unsupported_cases) + " case(s) not supported on this device)";
    if (row.flushed_cases) verdict += " (" + std::to_string(row.flushed_cases) + " with subnormals as zero)";
    std::snprintf(line, sizeof line, "%-16s %-6s %-13s %6zu %10s %10llu  %s\n", r.op.c_str(), row.dtype.c_str(), cls.c_str(),
                  row.cases, fmt_ulp(row.max_ulp).c_str(), static_cast<unsigned long long>(row.differing), verdict.c_str());
    out += line;
  }
  return out;
}

std::string suite_table_footer(const SuiteResult& s) {
  std::string out;
  for (const auto& r : s.reports)
    for (const auto& row : r.rows)
      if (row.verdict == RowVerdict::fail || row.verdict == RowVerdict::missing) out += "  " + r.op + " " + row.dtype + ": " + row.failure + "\n";
  std::size_t unsupported_rows = 0;
  for (const auto& r : s.reports)
    for (const auto& row : r.rows)
      if (row.verdict == RowVerdict::unsupported || row.unsupported_cases) {
        ++unsupported_rows;
        out += "  " + r.op + " " + row.dtype + ": not supported on this device: " + row.unsupported + "\n";
      }
  std::size_t cases = 0;
  for (const auto& r : s.reports) cases += r.cases();
  char line[512];
  std::snprintf(line, sizeof line,
                "%zu ops: %zu pass, %zu fail, %zu missing a kernel, %zu not supported on this device; %zu cases; %zu rows with "
                "dtypes or cases not supported on this device; %zu receipts written\n",
                s.reports.size(), s.passed(), s.failed(), s.missing(), s.unsupported(), cases, unsupported_rows, s.receipts.size());
  out += line;
  out += "outputs digest " + s.outputs_digest().hex() + "\n";
  return out;
}

std::string suite_table(const SuiteResult& s) {
  std::string out = suite_table_header(s.profile, s.reports.empty() ? std::string() : s.reports.front().agreement);
  for (const auto& r : s.reports) out += suite_table_rows(r);
  return out + suite_table_footer(s);
}

nlohmann::json suite_json(const SuiteResult& s) {
  nlohmann::json reports = nlohmann::json::array(), receipts = nlohmann::json::object();
  for (const auto& r : s.reports) reports.push_back(r.to_json());
  for (const auto& [op, id] : s.receipts) receipts[op] = id.hex();
  return {{"device", s.profile.to_string()}, {"device_profile_hash", s.profile.hash().hex()},
          {"summary", {{"ops", s.reports.size()}, {"pass", s.passed()}, {"fail", s.failed()}, {"missing", s.missing()},
                       {"unsupported", s.unsupported()}}},
          {"pass", s.pass()}, {"outputs_digest", s.outputs_digest().hex()}, {"reports", reports}, {"receipts", receipts}};
}

}  // namespace rung::conformance
