// The execution policy: before a run, whether each kernel the program needs has a receipt
// for this device profile (re-conform it, refuse, or run unverified, per ReceiptMode); during
// the run, where each region executes, given the backends available, a load threshold
// (small regions stay on the host, where a device's launch and transfer cost dominates) and
// the device's memory budget. Every decision carries its reason and lands in the run
// record: a placement is visible, never silent.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "conformance/harness.h"
#include "conformance/store.h"
#include "runtime/interpreter.h"
#include "runtime/op_backend.h"

namespace rung::conformance {

enum class ReceiptMode { require, conform, ignore };
std::string_view receipt_mode_name(ReceiptMode m);
std::optional<ReceiptMode> receipt_mode_from_name(std::string_view s);

struct ReceiptUse {
  std::string op;
  std::string status;   // "oracle" | "receipt" | "conformed" | "unverified"
  std::string receipt;  // hex id when there is one
};

// Checks receipts for `ops` on `backend` (the reference is the oracle: it needs none).
// require: a missing receipt is an error (Q0010); conform: the op is conformed now and its
// receipt minted (Q0011 if it fails); ignore: the op runs, recorded as unverified.
std::optional<std::vector<ReceiptUse>> check_receipts(const std::vector<const ops::OpDef*>& ops, runtime::OpBackend& backend,
                                                      ReceiptMode mode, const Store& store, const ConformOptions& conform,
                                                      DiagnosticSink& diags);

struct PolicyConfig {
  // Regions with fewer input elements stay on the host; 0 (the default) turns the threshold off
  // (`rung run --offload-threshold N` sets it).
  std::uint64_t min_device_elems = 0;
  std::uint64_t memory_budget = 0;           // bytes per region on a device; 0: the device's memory
};

struct PolicyDecision {
  std::string scope;    // "region train.step (3a5f...)"
  std::string backend;
  std::string reason;
  std::uint64_t times = 1;  // how many executions this decision covered
};

// A backend the policy may choose.
struct Placement {
  std::string name;
  runtime::OpBackend* backend = nullptr;
  bool is_device = false;            // cuda/webgpu: separate memory, launch cost
  std::uint64_t memory_bytes = 0;    // device memory (0: unknown)
};
bool is_device_backend(std::string_view name);

// Where one region runs, in order: capability (a dtype the device cannot hold at all,
// `capability_gap` non-empty: OpBackend::holds_dtype), host scalars (`host_scalars`
// non-empty, below), memory budget, load threshold — a device backend failing one hands the
// region to the declared fallback (the host backend) when there is one; a region no
// candidate can hold is refused (nullopt, Q0012). A built-in op without a kernel is not a
// capability gap: it fails (conformance says so), never moves — except in a region of host
// scalars.
std::optional<PolicyDecision> place_region(const std::string& scope, std::uint64_t input_elems, std::uint64_t input_bytes,
                                           const Placement& requested, const Placement* host, const PolicyConfig& cfg,
                                           DiagnosticSink& diags, const std::string& capability_gap = {},
                                           const std::string& host_scalars = {});

// The first dtype in `region` (its parameters, every node's results, and the regions it
// calls) that `backend`'s device cannot hold: "f64 (A0010 ...)", or empty.
std::string capability_gap(const Graph& g, RegionId region, const runtime::OpBackend& backend);

// Host scalars: a region whose every value (its parameters and nodes' results, and those
// of the regions it calls) is a scalar of static shape, and which uses an (op, dtype) the
// device backend has no kernel for (scalar i64 arithmetic on WebGPU: WGSL has no 64-bit
// integers) — the loop counters and conditions BlockIR computes. Such a region runs on the
// host backend, by the policy and recorded as a decision, rather than failing (A0011) or
// emulating 64-bit arithmetic for one value per dispatch. Returns the first "`op` on dtype"
// without a kernel, or empty when the region is not one of host scalars.
std::string host_scalar_gap(const Graph& g, RegionId region, const runtime::OpBackend& backend);

// Whether the policy keeps `region` on device backend `backend` as far as the program tells
// (no capability gap, not host scalars; the load threshold and the memory budget depend on
// the run's data): what the memory plan models as resident on the device.
bool placed_on_device(const Graph& g, RegionId region, const runtime::OpBackend& backend);

// The ComputeBackend a run uses: asks place_region for every region it executes and keeps
// the decisions (one entry per region and choice, with a count).
class PolicyComputeBackend final : public runtime::ComputeBackend {
 public:
  PolicyComputeBackend(Placement requested, std::optional<Placement> host, PolicyConfig cfg);
  std::string_view name() const override { return requested_.name; }
  std::optional<std::vector<ops::HostTensor>> run(const Graph& g, RegionId region, std::span<const ops::HostTensor> args,
                                                  DiagnosticSink& diags) override;
  const std::vector<PolicyDecision>& decisions() const { return decisions_; }
  void clear_decisions() { decisions_.clear(); }

 private:
  // Runs the region where `d` says and keeps the decision (merged with an equal one).
  std::optional<std::vector<ops::HostTensor>> run_on(const PolicyDecision& d, const Graph& g, RegionId region,
                                                     std::span<const ops::HostTensor> args, DiagnosticSink& diags);
  Placement requested_;
  std::optional<Placement> host_;
  PolicyConfig cfg_;
  // A region's scope name ("region main (1a2b3c4d)"), made once per region: a tiny program's
  // run would otherwise spend a measurable share of its time formatting it.
  const std::string& scope_of(const Graph& g, RegionId region);
  std::map<std::string, std::unique_ptr<runtime::ComputeBackend>> adapters_;
  std::vector<PolicyDecision> decisions_;
  std::map<std::pair<Hash256, RegionId>, std::string> scopes_;
  std::map<std::pair<Hash256, RegionId>, PolicyDecision> host_decisions_;  // requested backend on host memory
};

// The registry ops a program's graph uses, sorted by name.
std::vector<const ops::OpDef*> ops_used(const Graph& g);

}  // namespace rung::conformance
