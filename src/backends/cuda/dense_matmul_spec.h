// The MatmulSpec of a batch of dense row-major products C[z] = op(A[z]) op(B[z]): A is
// [M, K] ([K, M] when transposed), B [K, N] ([N, K] when transposed), batch items back to
// back. For the SGEMM benchmark and the configuration tests, which time and check every
// layout on the same shapes (the backend builds its specs from tensors: cuda_ops.cpp).
#pragma once

#include "backends/cuda/device_api.h"

namespace rung::cuda {

inline MatmulSpec dense_matmul_spec(std::uint64_t M, std::uint64_t N, std::uint64_t K, bool ta, bool tb, std::uint64_t batch = 1) {
  MatmulSpec m;
  m.M = M, m.N = N, m.K = K;
  m.a_rs = ta ? 1 : static_cast<std::int64_t>(K);
  m.a_ks = ta ? static_cast<std::int64_t>(M) : 1;
  m.b_ks = tb ? 1 : static_cast<std::int64_t>(N);
  m.b_cs = tb ? static_cast<std::int64_t>(K) : 1;
  m.batch.rank = 1;
  m.batch.ext[0] = batch;
  m.a_bs[0] = static_cast<std::int64_t>(M * K);
  m.b_bs[0] = static_cast<std::int64_t>(K * N);
  return m;
}

}  // namespace rung::cuda
