#include "conformance/exec_policy.h"

#include <algorithm>
#include <set>

#include "conformance/receipt.h"
#include "conformance/suite.h"
#include "ir/graph/walk.h"
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
  for (const auto& d : load_diags.all()) diags.warning(d.code, d.message).notes = d.notes;
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
                                           DiagnosticSink& diags, const std::string& capability_gap,
                                           const std::string& host_scalars) {
  auto kib = [](std::uint64_t b) { return std::to_string((b + 1023) / 1024) + " KiB"; };
  if (!requested.is_device) return PolicyDecision{scope, requested.name, "requested backend (host memory)"};
  if (!capability_gap.empty()) {
    std::string why = "capability: " + requested.name + "'s device cannot hold " + capability_gap;
    if (host) return PolicyDecision{scope, host->name, why + "; the declared fallback takes the region"};
    diags.error("Q0012", scope + ": " + why).note("no host backend is available to take the region");
    return std::nullopt;
  }
  if (!host_scalars.empty() && host)
    return PolicyDecision{scope, host->name, "host scalars: every value is a scalar and " + requested.name + " has no kernel for " +
                                                 host_scalars + "; the host computes it (the reference's bits)"};
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

static std::string region_gap(const Graph& g, RegionId region, const runtime::OpBackend& backend, int depth) {
  if (depth > 64) return {};
  const Region& r = g.region(region);
  for (NodeId n : nodes_in_region(g, r)) {
    const Node& node = g.node(n);
    for (const auto& t : node.outputs)
      if (!backend.holds_dtype(t.dtype)) return std::string(dtype_name(t.dtype)) + " (" + backend.unsupported_dtype(t.dtype) + ")";
    if (node.opcode == opcode::kCall)
      if (auto callee = g.find_region(node.attrs.at("callee").as<Hash256>()))
        if (std::string gap = region_gap(g, *callee, backend, depth + 1); !gap.empty()) return gap;
  }
  return {};
}

std::string capability_gap(const Graph& g, RegionId region, const runtime::OpBackend& backend) {
  return region_gap(g, region, backend, 0);
}

namespace {

bool is_scalar(const TensorType& t) {
  std::uint64_t n = 1;
  for (const auto& d : t.shape) {
    if (!d.is_static()) return false;
    n *= d.extent();
  }
  return n <= 1;
}

// The dtype a node's kernel is looked up by: its first operand of the op's first type
// variable (the conformance row), else its first result.
DType row_dtype(const Graph& g, const Node& node, const ops::OpDef& op) {
  if (!op.type_vars.empty())
    for (std::size_t j = 0; j < op.operands.size() && j < node.inputs.size(); ++j)
      if (op.operands[j].type == op.type_vars[0].name)
        return g.node(node.inputs[j].node).outputs.at(node.inputs[j].output).dtype;
  return node.outputs.empty() ? DType::f32 : node.outputs[0].dtype;
}

// Empty as soon as a value is not a scalar; else the first "op on dtype" without a kernel.
std::optional<std::string> scalar_gap(const Graph& g, RegionId region, const runtime::OpBackend& backend, int depth) {
  if (depth > 64) return std::nullopt;
  const Region& r = g.region(region);
  std::string gap;
  for (NodeId n : nodes_in_region(g, r)) {
    const Node& node = g.node(n);
    for (const auto& t : node.outputs)
      if (!is_scalar(t)) return std::nullopt;
    if (node.opcode == opcode::kCall) {
      auto callee = g.find_region(node.attrs.at("callee").as<Hash256>());
      if (!callee) return std::nullopt;
      auto inner = scalar_gap(g, *callee, backend, depth + 1);
      if (!inner) return std::nullopt;
      if (gap.empty()) gap = *inner;
      continue;
    }
    const ops::OpDef* op = ops::op_registry().find(node.opcode);
    if (!op || !gap.empty()) continue;
    DType t = row_dtype(g, node, *op);
    if (op->type_vars.empty() ? !ops::op_registry().kernel(op->id, backend.id()) : !backend.kernel(*op, t))
      gap = "`" + op->name + "` on " + std::string(dtype_name(t));
  }
  return gap;
}

}  // namespace

std::string host_scalar_gap(const Graph& g, RegionId region, const runtime::OpBackend& backend) {
  return scalar_gap(g, region, backend, 0).value_or(std::string());
}

bool placed_on_device(const Graph& g, RegionId region, const runtime::OpBackend& backend) {
  return capability_gap(g, region, backend).empty() && host_scalar_gap(g, region, backend).empty();
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
  if (!requested_.is_device) {  // always the requested backend: the decision depends on the region alone
    auto key = std::make_pair(g.region(region).hash, region);
    auto known = host_decisions_.find(key);
    if (known == host_decisions_.end())
      known = host_decisions_.emplace(key, PolicyDecision{scope_of(g, region), requested_.name, "requested backend (host memory)"}).first;
    return run_on(known->second, g, region, args, diags);
  }
  const std::string& scope = scope_of(g, region);
  std::string gap, scalars;
  if (requested_.is_device && requested_.backend) {
    gap = capability_gap(g, region, *requested_.backend);
    if (gap.empty() && host_) scalars = host_scalar_gap(g, region, *requested_.backend);
  }
  auto d = place_region(scope, elems, bytes, requested_, host_ ? &*host_ : nullptr, cfg_, diags, gap, scalars);
  if (!d) return std::nullopt;
  if (d->backend != requested_.name || !host_) return run_on(*d, g, region, args, diags);
  // On the device: a value its device cannot represent (a capability refusal, e.g. a 64-bit
  // integer beyond 32 bits on WebGPU: A0010) sends the region to the declared fallback,
  // recorded with the device's diagnostic. Any other failure stands.
  DiagnosticSink attempt;
  auto out = run_on(*d, g, region, args, attempt);
  if (out || attempt.all().empty() || !requested_.backend->is_capability_refusal(attempt.all().front().code)) {
    diags.append(attempt);
    return out;
  }
  const Diagnostic& why = attempt.all().front();
  PolicyDecision fb{scope, host_->name, "capability (at run time): " + why.code + " " + why.message + "; the declared fallback took the region"};
  return run_on(fb, g, region, args, diags);
}

const std::string& PolicyComputeBackend::scope_of(const Graph& g, RegionId region) {
  const Region& r = g.region(region);
  auto key = std::make_pair(r.hash, region);
  auto known = scopes_.find(key);
  if (known == scopes_.end())
    known = scopes_.emplace(key, "region " + (r.name.empty() ? std::string("#") + std::to_string(region) : r.name) + " (" +
                                     r.hash.short_hex(8) + ")").first;
  return known->second;
}

std::optional<std::vector<ops::HostTensor>> PolicyComputeBackend::run_on(const PolicyDecision& d, const Graph& g, RegionId region,
                                                                        std::span<const ops::HostTensor> args, DiagnosticSink& diags) {
  bool merged = false;
  for (auto& prev : decisions_)
    if (prev.scope == d.scope && prev.backend == d.backend && prev.reason == d.reason) {
      ++prev.times;
      merged = true;
      break;
    }
  if (!merged) decisions_.push_back(d);
  runtime::OpBackend* target = d.backend == requested_.name ? requested_.backend : host_->backend;
  auto& adapter = adapters_[d.backend];
  if (!adapter) adapter = runtime::as_compute_backend(*target);
  return adapter->run(g, region, args, diags);
}

}  // namespace rung::conformance
