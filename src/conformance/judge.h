// How one op's outputs are judged against the reference's, shared by conformance (harness.h)
// and the shadow check (shadow.h) so both read a result the same way: the class and tier the
// backend declares, bit-exact classes on the raw bytes, and on a device that flushes
// subnormals (OpBackend::flushes_subnormals) the readings WGSL permits (flush.h): results,
// operands or intermediates flushed, each counted as agreement.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "ir/graph/attr.h"
#include "ops/compare.h"
#include "ops/host_tensor.h"
#include "ops/op_def.h"

namespace rung::conformance {

struct OutputCheck {
  bool pass = false;
  bool flushed = false;  // agreed only under a flushed reading
  ops::Verdict verdict;  // of the reading as given
  std::uint64_t differing = 0, payload = 0;  // elements whose bytes differ; of those, NaN on both sides
};

// One output against one reference output: the class's verdict, and for a bit-exact class
// any byte difference (a NaN payload) fails.
OutputCheck check_output(const ops::HostTensor& actual, const ops::HostTensor& reference, ops::TolClass cls, ops::Tier tier);

// The outputs of one evaluation of `op` on `inputs`. The flushed references (operands
// flushed; every operation flushing, FTZ + DAZ) are computed once, on demand.
class OpJudge {
 public:
  OpJudge(const ops::OpDef& op, std::span<const ops::HostTensor> inputs, const AttrMap& attrs,
          std::span<const ops::HostTensor> expected, ops::TolClass cls, ops::Tier tier, bool flushes);
  OutputCheck judge(std::size_t k, const ops::HostTensor& actual);

 private:
  const ops::OpDef& op_;
  std::span<const ops::HostTensor> inputs_;
  const AttrMap& attrs_;
  std::span<const ops::HostTensor> expected_;
  ops::TolClass cls_;
  ops::Tier tier_;
  bool flushes_;
  bool tried_flushed_ref_ = false, tried_ftz_ref_ = false;
  std::optional<std::vector<ops::HostTensor>> flushed_ref_, ftz_ref_;
};

}  // namespace rung::conformance
