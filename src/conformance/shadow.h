// The shadow check behind `rung run --shadow`: every region the run executes also runs on the
// reference (the oracle) with a copy of the same arguments, and the outputs are compared. A
// region that disagrees is walked again node by node, each node evaluated by the device and
// by the reference on the *same* inputs (the reference's, so nothing upstream leaks in), and
// the first nodes that disagree are named with their op, operand types and attributes. This
// answers "which op made cuda differ from the cpu" without guessing; the run's own results
// are the device's, unchanged.
//
// Agreement: an exact-capable backend in tier debug must match bit for bit; otherwise each
// node is judged by the class the backend declares for it (OpBackend::agreement_class), and
// a region only counts as differing when one of its nodes is outside that class or no node
// explains the difference.
//
// Diagnostics: A0030 (warning) a region whose outputs differ from the reference, with the
// nodes that differ on their own as notes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/interpreter.h"
#include "runtime/op_backend.h"

namespace rung::conformance {

struct ShadowFinding {
  std::string region;        // region name (hash prefix)
  std::uint64_t execution = 0;  // which execution of the region (1-based)
  std::string output;        // "output 0: <verdict summary>" of the first differing region output
  // Nodes that disagree when evaluated alone on the reference's inputs: "matmul(f32[1497, 64],
  // f32[64, 32]) {transpose_a=...}: <verdict>". Empty: every node agrees alone, so the
  // difference comes from how the backend runs the region as a whole (fused kernels, its
  // device-resident walk).
  std::vector<std::string> nodes;
};

struct ShadowSummary {
  std::uint64_t regions_checked = 0;  // executions compared
  std::uint64_t regions_differing = 0;
  std::vector<ShadowFinding> findings;  // the first `max_findings`
};

class ShadowComputeBackend final : public runtime::ComputeBackend {
 public:
  // `inner` runs the region for the program (its results are returned); `device` evaluates
  // single nodes during a drill-down; `tier` is the run's tier. The oracle is the registry's
  // `reference` backend at that tier.
  ShadowComputeBackend(runtime::ComputeBackend& inner, runtime::OpBackend& device, ops::Tier tier,
                       std::size_t max_findings = 8);
  std::string_view name() const override { return inner_.name(); }
  std::optional<std::vector<ops::HostTensor>> run(const Graph& g, RegionId region, std::span<const ops::HostTensor> args,
                                                  DiagnosticSink& diags) override;
  const ShadowSummary& summary() const { return summary_; }
  // One line for `rung run`: how many region executions were compared and how many differ.
  std::string summary_line() const;

 private:
  bool bitwise() const;
  std::vector<std::string> drill_down(const Graph& g, RegionId region, std::span<const ops::HostTensor> args);
  runtime::ComputeBackend& inner_;
  runtime::OpBackend& device_;
  std::unique_ptr<runtime::OpBackend> reference_;
  ops::Tier tier_;
  std::size_t max_findings_;
  std::map<std::string, std::uint64_t> executions_;
  ShadowSummary summary_;
};

}  // namespace rung::conformance
