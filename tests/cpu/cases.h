// Test cases for every op in the registry, for comparing a backend against the reference:
// random shapes including edge sizes (0, 1, odd, not a multiple of any vector width, past the
// 4096-value reduction chunk and the GEMM's 256-deep k-block) and random values with the
// special ones mixed in (±0, ±inf, NaN, subnormals). `cases_for` returns nothing for an op it
// does not know, which the suite reports as a failure (a new op must get cases).
#pragma once

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "ops/host_tensor.h"
#include "ir/graph/attr.h"

namespace rung::cpu::testing {

struct Case {
  std::string label;
  std::vector<ops::HostTensor> inputs;
  AttrMap attrs;
};

std::vector<Case> cases_for(const std::string& op, std::mt19937_64& rng);

}  // namespace rung::cpu::testing
