// The tiled GEMM step matmul, linear and the feed-forward composites share: a 64x64 output
// tile per workgroup of 256 invocations, each owning a 4x4 register block; A and B tiles of
// 16 k-steps staged in workgroup memory. Every output keeps one accumulator and walks k
// strictly increasing with one fma per step (docs/semantics.md §6's chain; WGSL's fma may
// be unfused on some devices, which the tolerance class covers).
#pragma once

#include "backends/webgpu/wgsl/module.h"

namespace rung::webgpu {

struct GemmOperand {
  int slot = 0;
  std::string name;
  std::string what;        // comment: the tensor it holds
  bool transposed = false;  // A: [K, M] instead of [M, K]; B: [N, K] instead of [K, N]
  std::string batch_offset = "0u";  // WGSL expression in `z` (the batch index): element offset
};

struct GemmSpec {
  std::string title;
  std::uint64_t M = 0, N = 0, K = 0, batch = 1;
  GemmOperand a, b;
  int bias_slot = -1;          // optional [N] vector added after the chain (linear)
  std::string bias_name;
  int out_slot = 0;
  DType out_dtype = DType::f32;
  std::string epilogue;        // optional WGSL applied to the value before storing (in `v`, index `j`)
  std::vector<std::string> epilogue_helpers;
  std::vector<GemmOperand> extra;  // more read-only bindings the epilogue reads
};

std::optional<Step> gemm_step(const KernelArgs& a, const GemmSpec& g, std::string& error);

}  // namespace rung::webgpu
