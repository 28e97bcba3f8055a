// Small sample applications of every op the WebGPU backend covers, for the conformance test:
// operand specs ("f32[3,4]" in [-3, 3], "f32+[8]" positive, "f32~[8]" in [-0.5, 0.5], "i32<10[6]"
// integers in [0, 10), "f32%[4,5]" mostly zeros, some -0 and NaN), attributes,
// and how inputs are made (random with a fixed seed; CSR and quantized operands built valid).
#pragma once

#include <string>
#include <vector>

#include "ir/graph/attr.h"

namespace rung::webgpu::testing {

struct OpCase {
  std::string op;
  std::vector<std::string> inputs;
  AttrMap attrs;
  std::string label;  // distinguishes several cases of one op
};

std::vector<OpCase> op_cases();
// Operands or results with a zero extent (a reduction over an empty axis, empty outputs).
std::vector<OpCase> zero_extent_cases();

}  // namespace rung::webgpu::testing
