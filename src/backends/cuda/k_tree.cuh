// The canonical reduction tree (ops/numerics/reduce_tree.h) as warps execute it: a chunk of
// 4096 values is one warp, lane l combining values l, l+32, ... in order, then the
// shuffle-down fold (lane l (+)= lane l+s for s = 16..1), which is exactly the definition's
// pairwise fold. A group of warps (one warp, or a whole block) reduces up to 4096^2 values
// per call with the chunk results kept in shared memory.
#pragma once

#include "backends/cuda/k_common.cuh"

namespace rung::cuda {

inline constexpr std::uint64_t kChunk = 4096;

// Reduces load(begin .. end) (end - begin <= 4096) as one chunk; the result is in lane 0.
template <typename T, typename Op, typename Load>
__device__ inline T warp_chunk(const Load& load, std::uint64_t begin, std::uint64_t end, const Op& op, T identity) {
  unsigned lane = threadIdx.x & 31u;
  T acc = identity;
  for (std::uint64_t i = begin + lane; i < end; i += 32) acc = op(acc, load(i));
#pragma unroll
  for (unsigned s = 16; s >= 1; s >>= 1) {
    T other = __shfl_down_sync(0xFFFFFFFFu, acc, s);
    if (lane < s) acc = op(acc, other);
  }
  return acc;
}

// One warp reduces load(0 .. n), n <= 4096; every lane gets the result.
template <typename T, typename Op, typename Load>
__device__ inline T warp_reduce(const Load& load, std::uint64_t n, const Op& op, T identity) {
  T r = warp_chunk(load, 0, n, op, identity);  // n == 0: identity (the tree's empty case)
  return __shfl_sync(0xFFFFFFFFu, r, 0);
}

// The whole block reduces load(0 .. n), n <= 4096^2; `part` is shared memory for 4096 values
// plus one; every thread gets the result. Must be reached by all threads of the block.
template <typename T, typename Op, typename Load>
__device__ inline T block_reduce(const Load& load, std::uint64_t n, const Op& op, T identity, T* part) {
  unsigned warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
  std::uint64_t chunks = n == 0 ? 1 : (n + kChunk - 1) / kChunk;
  for (std::uint64_t c = warp; c < chunks; c += nwarps) {
    std::uint64_t b = c * kChunk, e = b + kChunk < n ? b + kChunk : n;
    T r = warp_chunk(load, b, e, op, identity);
    if ((threadIdx.x & 31u) == 0) part[c] = r;
  }
  __syncthreads();
  if (chunks > 1 && warp == 0) {
    T r = warp_chunk([&](std::uint64_t i) { return part[i]; }, 0, chunks, op, identity);
    if (threadIdx.x == 0) part[kChunk] = r;
  }
  __syncthreads();
  T result = chunks > 1 ? part[kChunk] : part[0];
  __syncthreads();  // `part` may be reused by the caller's next reduction
  return result;
}

}  // namespace rung::cuda
