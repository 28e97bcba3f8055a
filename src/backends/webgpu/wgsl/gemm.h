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

// A part of C one dispatch writes: batches [z0, z0 + zc), rows [r0, r0 + rc) of each. A and C
// are bound from `a_base` / `c_base` (elements, aligned to minStorageBufferOffsetAlignment);
// `window_a` says A is windowed too (else bound whole).
struct GemmWindow {
  std::uint64_t z0 = 0, zc = 1, r0 = 0, rc = 0;
  std::uint64_t a_base = 0, a_words = 0, c_base = 0, c_words = 0;
  bool window_a = false, split = false;
};

std::optional<Step> gemm_step(const KernelArgs& a, const GemmSpec& g, std::string& error, const GemmWindow* w = nullptr);

// The steps computing C: one, or when A or C exceed maxStorageBufferBindingSize, one per window
// of independent rows (rows of A and C within a batch, or whole batches). Each output's chain is
// unchanged by the split, so the bits are those of the unsplit kernel. B, the bias and the
// epilogue's extra operands are bound whole (refused when they exceed a binding).
std::optional<std::vector<Step>> gemm_steps(const KernelArgs& a, const GemmSpec& g, std::string& error,
                                            std::uint64_t a_words, bool a_row_contiguous);

}  // namespace rung::webgpu
