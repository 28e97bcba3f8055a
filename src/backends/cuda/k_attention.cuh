// Device helpers shared by the attention kernels (k_attention.cu: the unfused exact path for
// very long rows, k_attention_fused.cu: the fused exact kernel, k_attention_flash.cu: tier
// fast): a batch's operand offsets and the definition's `allowed(i, j)`.
#pragma once

#include "backends/cuda/device_api_nn.h"
#include "backends/cuda/k_common.cuh"

namespace rung::cuda {

struct AttnRow {
  std::int64_t q, k, v, m;  // element offsets of the batch's operands
};

__device__ inline AttnRow attn_row(const AttentionSpec& a, std::uint64_t bi) {
  AttnRow r{0, 0, 0, 0};
  for (int d = a.batch.rank - 1; d >= 0; --d) {
    auto c = static_cast<std::int64_t>(bi % a.batch.ext[d]);
    bi /= a.batch.ext[d];
    r.q += c * a.q_bs[d];
    r.k += c * a.k_bs[d];
    r.v += c * a.v_bs[d];
    r.m += c * a.m_bs[d];
  }
  return r;
}

// Element offset of mask[b, i, j] (bool or float), broadcast through the spec's strides.
__device__ inline std::uint64_t attn_mask_at(const AttentionSpec& a, const AttnRow& r, std::uint64_t i, std::uint64_t j) {
  return static_cast<std::uint64_t>(r.m + static_cast<std::int64_t>(i) * a.m_is + static_cast<std::int64_t>(j) * a.m_js);
}

__device__ inline bool attn_allowed(const AttentionSpec& a, const AttnRow& r, std::uint64_t i, std::uint64_t j) {
  if (a.causal && j + a.Sq > i + a.Sk) return false;  // j <= i + Sk - Sq without underflow
  if (a.mask && a.mask_dtype == BOOL) return static_cast<const std::uint8_t*>(a.mask)[attn_mask_at(a, r, i, j)] != 0;
  return true;
}

// One past the last key a causal query i may see (Sk without causality).
__device__ inline std::uint64_t attn_key_end(const AttentionSpec& a, std::uint64_t i) {
  if (!a.causal) return a.Sk;
  if (i + a.Sk < a.Sq) return 0;
  std::uint64_t e = i + a.Sk - a.Sq + 1;
  return e < a.Sk ? e : a.Sk;
}

}  // namespace rung::cuda
