// matmul's accumulation order (docs/semantics.md §"Matmul"): one accumulator per output,
// starting at +0.0, k strictly increasing, one fma per step:
//   C[i,j] = fma(A[i,K-1], B[K-1,j], ... fma(A[i,1], B[1,j], fma(A[i,0], B[0,j], +0.0)))
// Backends may block over k only by continuing this accumulator (load C, keep chaining).
#pragma once

#include <cstdint>

#include "ops/numerics/ieee.h"

namespace rung::num {

template <typename LoadA, typename LoadB>
RUNG_HD float dot_chain_f32(std::uint64_t k, const LoadA& a, const LoadB& b) {
  float acc = 0.0f;
  for (std::uint64_t i = 0; i < k; ++i) acc = fma_f32(a(i), b(i), acc);
  return acc;
}

template <typename LoadA, typename LoadB>
RUNG_HD double dot_chain_f64(std::uint64_t k, const LoadA& a, const LoadB& b) {
  double acc = 0.0;
  for (std::uint64_t i = 0; i < k; ++i) acc = fma_f64(a(i), b(i), acc);
  return acc;
}

}  // namespace rung::num
