// Conformance cases for one op: deterministic from (seed, op, dtype, index). Each case binds
// the op's type variables (the first to the row's dtype, the others at random within their
// sets), draws shapes and attributes (op_constraints.h), fills values with the special
// values mixed in at a density that varies from case to case, and is kept only when the
// reference accepts it: the reference's outputs come with the case.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph/attr.h"
#include "ops/host_tensor.h"
#include "ops/op_def.h"
#include "ops/tier.h"

namespace rung::conformance {

struct Case {
  std::size_t index = 0;
  std::vector<ops::HostTensor> inputs;
  AttrMap attrs;
  std::vector<ops::HostTensor> expected;  // the reference's outputs
  std::string describe() const;           // "f32[3, 5], i64[2] {axis=1}"
};

struct CaseRequest {
  std::uint64_t seed = 0;
  std::size_t index = 0;
  std::optional<DType> dtype;  // the first type variable's binding (ops::row_dtypes); none for ops without one
  ops::Tier tier = ops::Tier::debug;
  std::uint64_t max_elems = 8192;
  int attempts = 200;          // draws tried before giving up
};

// The case, or nullopt with `why` saying what the last rejected draw lacked (a gap in the
// constraint table: conformance reports it as a failure).
std::optional<Case> generate_case(const ops::OpDef& op, const CaseRequest& req, std::string& why);

}  // namespace rung::conformance
