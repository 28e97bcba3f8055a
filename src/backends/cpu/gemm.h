// The threaded GEMM driver over simd::gemm_*: splits one C matrix into disjoint row or column
// blocks (whole fma chains stay on one thread), or batches over threads.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/cpu/thread_pool.h"

namespace rung::cpu {

// One matrix product C = op(A) op(B) with the strides of simd.h; T is float or double.
template <typename T> struct GemmArgs {
  std::uint64_t M = 0, N = 0, K = 0;
  const T* a = nullptr;
  std::uint64_t a_rs = 0, a_ks = 0;
  const T* b = nullptr;
  std::uint64_t b_ks = 0, b_cs = 0;
  T* c = nullptr;
  std::uint64_t ldc = 0;
  bool accumulate = false;  // continue the chains from C's values instead of +0
};

// Runs every product in `batch` (independent outputs) on the pool.
void gemm_batch(ThreadPool& pool, const std::vector<GemmArgs<float>>& batch);
void gemm_batch(ThreadPool& pool, const std::vector<GemmArgs<double>>& batch);

}  // namespace rung::cpu
