// The canonical reduction tree (ops/numerics/reduce_tree.h) over values already in one
// contiguous buffer: level after level of 4096-value chunks, each chunk reduced by the SIMD
// chunk routine (32 canonical lanes), so the bits equal num::canonical_reduce.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "backends/cpu/simd.h"
#include "ops/numerics/elementwise.h"
#include "ops/numerics/reduce_tree.h"

namespace rung::cpu {

template <typename T> T red_identity(simd::RedOp op) {
  if (op == simd::RedOp::sum) return T(0);
  if (op == simd::RedOp::max) return -std::numeric_limits<T>::infinity();
  return std::numeric_limits<T>::infinity();
}

template <typename T> T simd_chunk(simd::RedOp op, const T* v, std::uint64_t n) {
  if constexpr (std::is_same_v<T, float>) return simd::chunk_f32(op, v, n);
  else return simd::chunk_f64(op, v, n);
}

// T is float or double.
template <typename T> T tree_reduce(simd::RedOp op, const T* v, std::uint64_t n) {
  if (n == 0) return red_identity<T>(op);
  std::vector<T> level;
  const T* p = v;
  std::uint64_t m = n;
  do {
    std::uint64_t chunks = (m + num::kReduceChunk - 1) / num::kReduceChunk;
    std::vector<T> next(chunks);
    for (std::uint64_t c = 0; c < chunks; ++c) {
      std::uint64_t b = c * num::kReduceChunk;
      next[c] = simd_chunk<T>(op, p + b, m - b < num::kReduceChunk ? m - b : num::kReduceChunk);
    }
    level = std::move(next);
    p = level.data();
    m = chunks;
  } while (m > 1);
  return p[0];
}

template <typename T> T tree_sum(const T* v, std::uint64_t n) { return tree_reduce<T>(simd::RedOp::sum, v, n); }

}  // namespace rung::cpu
