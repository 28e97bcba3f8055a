#include "conformance/exec_policy.h"

#include <algorithm>
#include <set>

#include "conformance/receipt.h"
#include "conformance/suite.h"
#include "runtime/backend_registry.h"

namespace rung::conformance {

std::string_view receipt_mode_name(ReceiptMode m) {
  switch (m) {
    case ReceiptMode::require: return "require";
    case ReceiptMode::conform: return "conform";
    case ReceiptMode::ignore: return "ignore";
  }
  return "?";
}

std::optional<ReceiptMode> receipt_mode_from_name(std::string_view s) {
  for (ReceiptMode m : {ReceiptMode::require, ReceiptMode::conform, ReceiptMode::ignore})
    if (receipt_mode_name(m) == s) return m;
  return std::nullopt;
}

bool is_device_backend(std::string_view name) { return name == "cuda" || name == "webgpu"; }

std::vector<const ops::OpDef*> ops_used(const Graph& g) {
  std::set<std::string> names;
  for (const auto& n : g.nodes())
    if (ops::op_registry().find(n.opcode)) names.insert(n.opcode);
  std::vector<const ops::OpDef*> out;
  for (const auto& n : names) out.push_back(ops::op_registry().find(n));
  return out;
}

std::optional<std::vector<ReceiptUse>> check_receipts(const std::vector<const ops::OpDef*>& ops, runtime::OpBackend& backend,
                                                      ReceiptMode mode, const Store& store, const ConformOptions& conform,
                                                      DiagnosticSink& diags) {
  std::vector<ReceiptUse> uses;
  std::string bname(ops::backend_name(backend.id()));
  if (backend.id() == ops::Backend::reference) {
    for (const auto* op : ops) uses.push_back({op->name, "oracle", ""});
    return uses;
  }
  if (mode == ReceiptMode::ignore) {
    for (const auto* op : ops) uses.push_back({op->name, "unverified", ""});
    return uses;
  }
  DiagnosticSink load_diags;
  ReceiptIndex idx = ReceiptIndex::load(store, load_diags);
  for (const auto& d : load_diags.all()) diags.warning(d.code, d.message);
  Hash256 profile = backend.profile().hash();
  std::vector<const ops::OpDef*> missing;
  for (const auto* op : ops) {
    if (auto id = idx.find(op->name, bname, backend.kernel_hash(*op), profile, backend.tier())) uses.push_back({op->name, "receipt", id->hex()});
    else missing.push_back(op);
  }
  auto by_op = [](const ReceiptUse& a, const ReceiptUse& b) { return a.op < b.op; };
  if (missing.empty()) {
    std::sort(uses.begin(), uses.end(), by_op);
    return uses;
  }
  if (mode == ReceiptMode::require) {
    std::string list;
    for (const auto* op : missing) list += (list.empty() ? "" : ", ") + op->name;
    diags.error("Q0010", "backend `" + bname + "` has no conformance receipt for " + list + " on this device in tier " +
                             std::string(ops::tier_name(backend.tier())))
        .note("device profile " + profile.short_hex(16) + ": " + backend.profile().to_string())
        .note("run `rung conform --backend " + bname + " --ops " + list + " --tier " + std::string(ops::tier_name(backend.tier())) +
              "`, or use --receipts=conform");
    return std::nullopt;
  }
  ConformOptions o = conform;
  o.tier = backend.tier();
  o.claimed_only = true;
  SuiteResult s = conform_suite(backend, missing, o, &store, diags);
  bool ok = true;
  for (std::size_t i = 0; i < missing.size(); ++i) {
    const OpReport& rep = s.reports[i];
    if (!rep.pass()) {
      ok = false;
      std::string why;
      for (const auto& r : rep.rows)
        if (r.verdict != RowVerdict::pass) { why = r.dtype + ": " + r.failure; break; }
      diags.error("Q0011", "backend `" + bname + "`'s kernel for `" + rep.op + "` failed conformance; refusing to run it")
          .note(why);
      continue;
    }
    std::string id;
    for (const auto& [op, h] : s.receipts)
      if (op == rep.op) id = h.hex();
    uses.push_back({rep.op, "conformed", id});
  }
  if (!ok) return std::nullopt;
  std::sort(uses.begin(), uses.end(), by_op);
  return uses;
}

std::optional<PolicyDecision> place_region(const std::string& scope, std::uint64_t input_elems, std::uint64_t input_bytes,
                                           const Placement& requested, const Placement* host, const PolicyConfig& cfg,
                                           DiagnosticSink& diags) {
  auto kib = [](std::uint64_t b) { return std::to_string((b + 1023) / 1024) + " KiB"; };
  if (!requested.is_device) return PolicyDecision{scope, requested.name, "requested backend (host memory)"};
  std::uint64_t budget = cfg.memory_budget ? cfg.memory_budget : requested.memory_bytes;
  if (budget && input_bytes > budget) {
    if (host)
      return PolicyDecision{scope, host->name, "inputs of " + kib(input_bytes) + " exceed " + requested.name + "'s memory budget of " + kib(budget)};
    diags.error("Q0012", scope + ": inputs of " + kib(input_bytes) + " exceed " + requested.name + "'s memory budget of " + kib(budget))
        .note("no host backend is available to take the region");
    return std::nullopt;
  }
  if (host && input_elems < cfg.min_device_elems)
    return PolicyDecision{scope, host->name, std::to_string(input_elems) + " input elements, below the load threshold of " +
                                                 std::to_string(cfg.min_device_elems) + " for " + requested.name};
  return PolicyDecision{scope, requested.name, "requested backend; inputs within its memory budget and above the load threshold"};
}

PolicyComputeBackend::PolicyComputeBackend(Placement requested, std::optional<Placement> host, PolicyConfig cfg)
    : requested_(std::move(requested)), host_(std::move(host)), cfg_(cfg) {}

std::optional<std::vector<ops::HostTensor>> PolicyComputeBackend::run(const Graph& g, RegionId region,
                                                                     std::span<const ops::HostTensor> args, DiagnosticSink& diags) {
  std::uint64_t elems = 0, bytes = 0;
  for (const auto& a : args) {
    elems += a.numel();
    bytes += a.bytes().size();
  }
  const Region& r = g.region(region);
  std::string scope = "region " + (r.name.empty() ? std::string("#") + std::to_string(region) : r.name) + " (" + r.hash.short_hex(8) + ")";
  auto d = place_region(scope, elems, bytes, requested_, host_ ? &*host_ : nullptr, cfg_, diags);
  if (!d) return std::nullopt;
  bool merged = false;
  for (auto& prev : decisions_)
    if (prev.scope == d->scope && prev.backend == d->backend && prev.reason == d->reason) {
      ++prev.times;
      merged = true;
      break;
    }
  if (!merged) decisions_.push_back(*d);
  runtime::OpBackend* target = d->backend == requested_.name ? requested_.backend : host_->backend;
  auto& adapter = adapters_[d->backend];
  if (!adapter) adapter = runtime::as_compute_backend(*target);
  return adapter->run(g, region, args, diags);
}

}  // namespace rung::conformance
