// Op applications the GPU suite runs on the cuda backend and the reference: every op the
// backend implements, with awkward shapes (odd extents, broadcasting, several tree levels)
// and special values (NaN, ±inf, ±0, subnormals). Inputs are drawn from a fixed seed.
#pragma once

#include <string>
#include <vector>

#include "ir/graph/attr.h"
#include "ops/host_tensor.h"

namespace rung::cuda_test {

struct Case {
  std::string op;
  std::vector<ops::HostTensor> inputs;
  AttrMap attrs;
  std::string label;  // printed on a mismatch
};

std::vector<Case> all_cases();
// The cases of the composite, quantization and sparse-construction ops (cuda_cases_nn.cpp).
void add_nn_cases(std::vector<Case>& cases, std::uint64_t& seed);
// The cases of conv, conv_transpose, max_pool and avg_pool (cuda_cases_conv.cpp).
void add_conv_cases(std::vector<Case>& cases, std::uint64_t& seed);

// Random tensor of `dt`: floats mix normal values with the special ones; ints span the type.
ops::HostTensor random_tensor(DType dt, ops::Extents shape, std::uint64_t seed, bool specials = true);

}  // namespace rung::cuda_test
