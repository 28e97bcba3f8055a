#include "conformance/shadow.h"

#include "base/check.h"
#include "conformance/judge.h"
#include "ops/compare.h"
#include "runtime/backend_registry.h"
#include "runtime/host_walk.h"
#include "runtime/memory_meter.h"

namespace rung::conformance {

namespace {

std::string describe_call(const ops::OpDef& op, std::span<const ops::HostTensor> inputs, const AttrMap& attrs) {
  std::string s = op.name + "(";
  for (std::size_t i = 0; i < inputs.size(); ++i) s += (i ? ", " : "") + inputs[i].type().to_string();
  s += ")";
  if (!attrs.empty()) s += " " + attrs_to_string(attrs);
  return s;
}

}  // namespace

ShadowComputeBackend::ShadowComputeBackend(runtime::ComputeBackend& inner, runtime::OpBackend& device, ops::Tier tier,
                                           std::size_t max_findings)
    : inner_(inner), device_(device), tier_(tier), max_findings_(max_findings) {
  DiagnosticSink none;
  reference_ = runtime::backend_registry().create("reference", tier, none, {});
  RUNG_CHECK(reference_ != nullptr, "every build has the reference backend");
}

bool ShadowComputeBackend::bitwise() const { return device_.exact_capable() && tier_ == ops::Tier::debug; }

std::optional<std::vector<ops::HostTensor>> ShadowComputeBackend::run(const Graph& g, RegionId region,
                                                                      std::span<const ops::HostTensor> args,
                                                                      DiagnosticSink& diags) {
  // The copy first: the device run may take dying arguments over and reuse their storage.
  std::vector<ops::HostTensor> copy(args.begin(), args.end());
  auto got = inner_.run(g, region, args, diags);
  if (!got) return got;

  // The oracle's work is neither metered (the run's memory is the device run's) nor handed
  // arguments (the copies are its own).
  runtime::ScopedMeter no_meter(nullptr);
  runtime::ScopedHandOver no_hand_over(nullptr);
  const Region& r = g.region(region);
  std::string scope = r.name + " (" + r.hash.hex().substr(0, 12) + ")";
  std::uint64_t execution = ++executions_[scope];
  ++summary_.regions_checked;
  DiagnosticSink ref_diags;
  auto want = reference_->run_region(g, region, copy, ref_diags);
  if (!want) {
    diags.warning("A0030", "shadow: the reference could not run region `" + scope + "`; it was not compared")
        .note(ref_diags.empty() ? "no diagnostic" : ref_diags.all().front().code + " " + ref_diags.all().front().message);
    return got;
  }

  std::string first_difference;
  for (std::size_t i = 0; i < got->size() && i < want->size(); ++i) {
    if ((*got)[i].identical((*want)[i])) continue;
    first_difference = "output " + std::to_string(i) + ": " +
                       ops::compare((*got)[i], (*want)[i], ops::TolClass::exact, ops::Tier::debug).summary();
    break;
  }
  if (got->size() != want->size())
    first_difference = std::to_string(got->size()) + " outputs, the reference gives " + std::to_string(want->size());
  if (first_difference.empty()) return got;

  // Bits differ. Node by node on the reference's inputs: which nodes disagree on their own?
  std::vector<std::string> nodes = drill_down(g, region, copy);
  // A convergent backend is expected to differ in bits; the region counts only when a node is
  // outside its class or nothing explains the difference.
  if (!bitwise() && nodes.empty()) return got;
  ++summary_.regions_differing;
  if (summary_.findings.size() < max_findings_) {
    summary_.findings.push_back({scope, execution, first_difference, nodes});
    auto& w = diags.warning("A0030", "shadow: region `" + scope + "` (execution " + std::to_string(execution) + ") on " +
                                         std::string(inner_.name()) + " differs from the reference");
    w.note(first_difference);
    if (nodes.empty())
      w.note("every node agrees with the reference when run alone on the same inputs: the difference comes from how `" +
             std::string(inner_.name()) + "` runs the region as a whole (a fused kernel or its own region walk)");
    for (const auto& n : nodes) w.note("differs alone: " + n);
  }
  return got;
}

std::vector<std::string> ShadowComputeBackend::drill_down(const Graph& g, RegionId region,
                                                          std::span<const ops::HostTensor> args) {
  std::vector<std::string> found;
  // The host walk with the reference's kernels, each node also run on the device.
  runtime::WalkOptions wo;
  wo.tier = tier_;
  wo.evaluate = [&](const ops::OpDef& op, std::span<const ops::HostTensor> inputs, const AttrMap& attrs,
                    DiagnosticSink& d) -> std::optional<std::vector<ops::HostTensor>> {
    auto want = reference_->run_op(op, inputs, attrs, d);
    if (!want || found.size() >= 4) return want;
    DiagnosticSink dev_diags;
    auto got = device_.run_op(op, inputs, attrs, dev_diags);
    if (!got) {
      found.push_back(describe_call(op, inputs, attrs) + ": the device refused it (" +
                      (dev_diags.empty() ? std::string("no diagnostic") : dev_diags.all().front().code) + ")");
      return want;
    }
    // Judged as conformance judges (judge.h): the backend's class, and on a device that
    // flushes subnormals the flushed readings it declares.
    OpJudge judge(op, inputs, attrs, *want, bitwise() ? ops::TolClass::exact : device_.agreement_class(op, tier_),
                  bitwise() ? ops::Tier::debug : device_.agreement_tier(tier_), !bitwise() && device_.flushes_subnormals());
    for (std::size_t i = 0; i < want->size() && i < got->size(); ++i) {
      if ((*got)[i].identical((*want)[i])) continue;
      OutputCheck c = judge.judge(i, (*got)[i]);
      if (!bitwise() && c.pass) continue;
      found.push_back(describe_call(op, inputs, attrs) + ", output " + std::to_string(i) + ": " + c.verdict.summary());
      break;
    }
    return want;  // downstream nodes see the reference's values: each node is judged alone
  };
  DiagnosticSink ignored;
  runtime::walk_region(g, region, args, ignored, wo);
  return found;
}

std::string ShadowComputeBackend::summary_line() const {
  std::string s = "shadow       " + std::to_string(summary_.regions_checked) + " region runs compared with the reference (" +
                  (bitwise() ? "bit for bit" : "each node within its class") + "): ";
  if (summary_.regions_differing == 0) return s + "all agree";
  return s + std::to_string(summary_.regions_differing) + " differ (warnings A0030 name the nodes)";
}

}  // namespace rung::conformance
