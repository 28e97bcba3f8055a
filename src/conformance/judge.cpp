#include "conformance/judge.h"

#include <algorithm>
#include <utility>

#include "conformance/flush.h"
#include "ops/evaluate.h"
#include "ops/fp_env.h"

namespace rung::conformance {

namespace {

bool is_nan_at(const ops::HostTensor& t, std::uint64_t i) {
  if (!dtype_info(t.dtype()).is_float) return false;
  double v = t.load_f64(i);
  return v != v;
}

}  // namespace

OutputCheck check_output(const ops::HostTensor& a, const ops::HostTensor& r, ops::TolClass cls, ops::Tier tier) {
  OutputCheck c;
  c.verdict = ops::compare(a, r, cls, tier);
  if (a.dtype() == r.dtype() && a.shape() == r.shape()) {
    const DTypeInfo& info = dtype_info(a.dtype());
    std::uint64_t width = info.block_bytes, units = a.bytes().size() / std::max<std::uint64_t>(width, 1);
    for (std::uint64_t u = 0; u < units; ++u) {
      if (std::equal(a.bytes().begin() + u * width, a.bytes().begin() + (u + 1) * width, r.bytes().begin() + u * width)) continue;
      ++c.differing;
      if (!info.is_quantized && is_nan_at(a, u) && is_nan_at(r, u)) ++c.payload;
    }
  }
  c.pass = c.verdict.pass && !(c.verdict.thresholds.bitwise && c.differing > 0);
  return c;
}

OpJudge::OpJudge(const ops::OpDef& op, std::span<const ops::HostTensor> inputs, const AttrMap& attrs,
                 std::span<const ops::HostTensor> expected, ops::TolClass cls, ops::Tier tier, bool flushes)
    : op_(op), inputs_(inputs), attrs_(attrs), expected_(expected), cls_(cls), tier_(tier), flushes_(flushes) {}

// On a device that flushes subnormals, what failed is compared again with differences below
// the smallest normal absorbed (flushed results and intermediates), then against, per
// element, the nearer of the reference's results on the operands as given and flushed, then
// also the reference with every operation flushing: WGSL permits each operation either
// reading, so agreement with any counts (and is counted).
OutputCheck OpJudge::judge(std::size_t k, const ops::HostTensor& a) {
  const ops::HostTensor& r = expected_[k];
  OutputCheck chk = check_output(a, r, cls_, tier_);
  if (chk.pass || !flushes_) return chk;
  // Results flushed: differences below the smallest normal are flushing's.
  OutputCheck f = check_output(absorb_subnormal_differences(a, r), r, cls_, tier_);
  if (!f.pass && any_subnormals(inputs_)) {
    // Operands flushed: the reference on the operands as the device read them.
    if (!std::exchange(tried_flushed_ref_, true)) {
      std::vector<ops::HostTensor> fin;
      for (const auto& t : inputs_) fin.push_back(flush_subnormals(t));
      DiagnosticSink quiet;
      flushed_ref_ = ops::evaluate(op_, fin, attrs_, quiet, ops::EvalOptions{ops::Tier::prod});
    }
    if (flushed_ref_ && k < flushed_ref_->size()) {
      ops::HostTensor mixed = nearer_reference(a, r, (*flushed_ref_)[k]);
      f = check_output(absorb_subnormal_differences(a, mixed), mixed, cls_, tier_);
    }
  }
  if (!f.pass) {
    // Intermediates flushed: the reference with every operation flushing (FTZ + DAZ). A
    // normal result can hang on a subnormal intermediate (silu(-90) = x * e^x, e^x below the
    // normals), or a NaN on one (sqrt of a negative subnormal).
    if (!std::exchange(tried_ftz_ref_, true)) {
      ops::ScopedFlushSubnormals ftz;
      DiagnosticSink quiet;
      if (ftz.active()) ftz_ref_ = ops::evaluate(op_, inputs_, attrs_, quiet, ops::EvalOptions{ops::Tier::prod});
    }
    if (ftz_ref_ && k < ftz_ref_->size()) {
      ops::HostTensor base = flushed_ref_ && k < flushed_ref_->size() ? nearer_reference(a, r, (*flushed_ref_)[k]) : r;
      ops::HostTensor mixed = nearer_reference(a, base, (*ftz_ref_)[k]);
      f = check_output(absorb_subnormal_differences(a, mixed), mixed, cls_, tier_);
    }
  }
  if (f.pass) {
    chk.pass = true;
    chk.flushed = true;
  }
  return chk;
}

}  // namespace rung::conformance
