// The "map" kernel shape most ops use: one invocation per output element, which computes the
// element with a WGSL function `value(i)` from global indices and stores it through the
// dtype's fit function. The framework declares the bindings, loaders `ld_<name>(k)` for every
// input, the 2-D grid (splitting past maxComputeWorkgroupsPerDimension) and, when the output
// exceeds maxStorageBufferBindingSize, one dispatch per window of it (inputs listed in
// `aligned` are windowed with it; any other input must fit in one binding).
#pragma once

#include "backends/webgpu/wgsl/module.h"

namespace rung::webgpu {

struct MapSpec {
  std::string title;
  Scalar value_type = Scalar::f32;
  std::string value_fn;               // defines `fn value(i: u32) -> <value_type>`
  std::vector<std::string> helpers;   // library functions it uses
  std::vector<int> aligned;           // inputs whose element k pairs with output element k
  std::vector<std::string> comments;
  std::vector<std::string> extra_code;  // more module-scope code
  int output = 0;                     // which output this map writes
  int status_slot = -1;               // a status word binding (`status`), if the op can refuse data
};

// Steps writing output `spec.output` (errors when an input that is not aligned is too big).
std::optional<std::vector<Step>> map_steps(const KernelArgs& a, const MapSpec& spec, std::string& error);
std::optional<Program> map_program(const KernelArgs& a, const MapSpec& spec, std::string& error);

std::string input_name(const KernelArgs& a, std::size_t i);

// Windows over the independent rows of a per-row kernel (softmax's and the norms' statistics)
// whose input is `blocks` contiguous blocks of `block_words` words, each holding
// `rows_per_block` rows. One window (split = false) when the input fits a binding; else each
// window binds the input from `base` (aligned down to minStorageBufferOffsetAlignment) for
// `words`, covering rows [row0, row0 + rows).
struct RowWindow {
  std::uint64_t row0 = 0, rows = 0, base = 0, words = 0;
  bool split = false;
};
std::optional<std::vector<RowWindow>> row_windows(const DeviceCaps& caps, std::uint64_t blocks, std::uint64_t block_words,
                                                  std::uint64_t rows_per_block, std::string& error);  // operand name ("x", "a", "x1" for variadics)

}  // namespace rung::webgpu
