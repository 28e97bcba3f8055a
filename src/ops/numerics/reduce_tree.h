// The canonical reduction tree (docs/semantics.md §"Reductions"): the one order in which
// every backend combines the n values of a floating-point sum or product.
//
//   level 0 holds the n values. A level is cut into chunks of 4096 consecutive values; a
//   chunk is reduced by 32 lanes, lane l combining values l, l+32, l+64, ... of the chunk in
//   increasing order, starting from the identity; then the lanes are folded pairwise:
//   lane l = lane l (+) lane l+s for s = 16, 8, 4, 2, 1, and lane 0 is the chunk's result.
//   The chunk results form the next level; stop when a level holds one value. Level 0 is
//   always chunked (so one value v gives identity (+) v); n = 0 gives the identity.
//
// It maps onto a CUDA warp (one lane per thread, shuffles for the fold), onto SIMD registers
// of any width (32 lanes = 4 AVX2 or 8 SSE/NEON/WASM registers) and onto threads (chunks are
// independent), so parallel schedules produce the same bits as this sequential loop.
#pragma once

#include <cstdint>

#include "ops/numerics/portable.h"

namespace rung::num {

inline constexpr std::uint64_t kReduceChunk = 4096;
inline constexpr unsigned kReduceLanes = 32;

namespace detail {

// Value i of `level` (level 0: load(i)); a chunk of level L-1 otherwise.
template <typename T, typename Load, typename Op>
T tree_value(const Load& load, const Op& op, T identity, const std::uint64_t* sizes, int level, std::uint64_t i);

template <typename T, typename Load, typename Op>
T tree_chunk(const Load& load, const Op& op, T identity, const std::uint64_t* sizes, int level, std::uint64_t chunk) {
  // Reduces chunk `chunk` of level `level` (its values live one level below).
  T acc[kReduceLanes];
  for (unsigned l = 0; l < kReduceLanes; ++l) acc[l] = identity;
  std::uint64_t begin = chunk * kReduceChunk;
  std::uint64_t end = begin + kReduceChunk < sizes[level - 1] ? begin + kReduceChunk : sizes[level - 1];
  for (std::uint64_t i = begin; i < end; ++i) {
    unsigned l = static_cast<unsigned>((i - begin) % kReduceLanes);
    acc[l] = op(acc[l], tree_value(load, op, identity, sizes, level - 1, i));
  }
  for (unsigned s = kReduceLanes / 2; s >= 1; s /= 2)
    for (unsigned l = 0; l < s; ++l) acc[l] = op(acc[l], acc[l + s]);
  return acc[0];
}

template <typename T, typename Load, typename Op>
T tree_value(const Load& load, const Op& op, T identity, const std::uint64_t* sizes, int level, std::uint64_t i) {
  if (level == 0) return load(i);
  return tree_chunk(load, op, identity, sizes, level, i);
}

}  // namespace detail

// Reduces load(0) .. load(n-1) with the binary operation `op` (called as op(acc, value))
// in the canonical tree order.
template <typename T, typename Load, typename Op>
T canonical_reduce(std::uint64_t n, const Load& load, const Op& op, T identity) {
  if (n == 0) return identity;
  std::uint64_t sizes[8];  // values per level; 4096^7 > 2^64, so 8 levels always suffice
  int top = 0;
  sizes[0] = n;
  do {  // level 0 is always chunked, so a single value is still combined with the identity
    sizes[top + 1] = (sizes[top] + kReduceChunk - 1) / kReduceChunk;
    ++top;
  } while (sizes[top] > 1);
  return detail::tree_value(load, op, identity, sizes, top, 0);
}

// The sum every floating-point reduction uses: identity +0.0, so an all-(-0.0) input sums
// to +0.0 (the same convention as matmul's chain).
template <typename T, typename Load> T canonical_sum(std::uint64_t n, const Load& load) {
  return canonical_reduce<T>(n, load, [](T a, T b) { return a + b; }, T(0));
}

}  // namespace rung::num
