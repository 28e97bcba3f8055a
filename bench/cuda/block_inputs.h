// Deterministic inputs for the transformer block (transformer_block.h), in the order of
// block_input_names(): activations and dy uniform in [-1, 1], weights scaled by 1/sqrt(fan-in),
// norm gains near 1, eps, the attention scale and the causal mask. Shared by the CUDA bench
// and the CPU-side graph test so both see the same data for a seed.
#pragma once

#include <cmath>
#include <random>
#include <vector>

#include "ops/host_tensor.h"
#include "transformer_block.h"

namespace rung::bench {

inline std::vector<ops::HostTensor> make_block_inputs(const BlockDims& d, unsigned seed) {
  std::mt19937 rng(seed);
  auto uni = [&](ops::Extents s, float scale) {
    ops::HostTensor t(DType::f32, s);
    std::uniform_real_distribution<float> u(-scale, scale);
    for (std::uint64_t i = 0; i < t.numel(); ++i) t.store_f32(i, u(rng));
    return t;
  };
  float ws = 1.0f / std::sqrt(static_cast<float>(d.D)), wf = 1.0f / std::sqrt(static_cast<float>(d.F));
  ops::HostTensor g1 = uni({d.D}, 0.1f), g2 = uni({d.D}, 0.1f);
  for (std::uint64_t i = 0; i < d.D; ++i) {
    g1.store_f32(i, 1.0f + g1.load_f32(i));
    g2.store_f32(i, 1.0f + g2.load_f32(i));
  }
  ops::HostTensor mask(DType::f32, {d.T, d.T});
  for (std::uint64_t i = 0; i < d.T; ++i)
    for (std::uint64_t j = 0; j < d.T; ++j) mask.store_f32(i * d.T + j, j <= i ? 0.0f : -INFINITY);
  return {uni({d.B, d.T, d.D}, 1.0f), uni({d.B, d.T, d.D}, 1.0f), g1, uni({d.D, 3 * d.D}, ws), uni({d.D, d.D}, ws), g2,
          uni({d.D, d.F}, ws), uni({d.D, d.F}, ws), uni({d.F, d.D}, wf), ops::HostTensor::scalar_f32(1e-6f),
          ops::HostTensor::scalar_f32(1.0f / std::sqrt(static_cast<float>(d.D / d.H))), mask};
}

// The types of those inputs for `dt` tensors (what a graph of the block is recorded for).
inline std::vector<TensorType> block_input_types(const BlockDims& d, DType dt) {
  auto t = [&](std::initializer_list<std::uint64_t> l) {
    TensorType ty;
    ty.dtype = dt;
    for (auto e : l) ty.shape.push_back(Dim::fixed(e));
    return ty;
  };
  return {t({d.B, d.T, d.D}), t({d.B, d.T, d.D}), t({d.D}), t({d.D, 3 * d.D}), t({d.D, d.D}), t({d.D}),
          t({d.D, d.F}),      t({d.D, d.F}),      t({d.F, d.D}), t({}), t({}), t({d.T, d.T})};
}

}  // namespace rung::bench
