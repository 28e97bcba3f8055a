// Measures what SEMANTICS.md §4 asks before fixing matmul's order: the rounding error of the
// plain sequential-k fma chain against a chunked-k rule (sequential chains of 256 from +0,
// chunk results combined by the canonical tree), on weight-gradient shapes (small M x N,
// large K) where the two differ most. Reference: the same products summed in binary64.
//
//   build-ops/bench/ops/ops_matmul_order
//
// Prints, per K: the largest |c - ref| / sum_k |a_k b_k| over outputs (the error relative to
// the condition of each dot product) and the normwise ||c - ref|| / ||ref||.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "ops/numerics/dot.h"
#include "ops/numerics/reduce_tree.h"

namespace {

using namespace rung;

float chunked_dot(const float* a, const float* b, std::uint64_t K, std::uint64_t chunk) {
  std::uint64_t chunks = (K + chunk - 1) / chunk;
  auto part = [&](std::uint64_t c) {
    std::uint64_t lo = c * chunk, hi = std::min(K, lo + chunk);
    return num::dot_chain_f32(hi - lo, [&](std::uint64_t k) { return a[lo + k]; }, [&](std::uint64_t k) { return b[lo + k]; });
  };
  return num::canonical_sum<float>(chunks, part);
}

}  // namespace

int main() {
  const int M = 16, N = 16;
  std::mt19937_64 rng(2024);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::printf("%-9s %-22s %-22s %-22s %-22s\n", "K", "seq max rel", "chunk256 max rel", "seq normwise", "chunk256 normwise");
  for (std::uint64_t K : {256ull, 4096ull, 65536ull, 1048576ull}) {
    // Rows of A^T and B^T stored contiguously along k (as dW = X^T dY reads them).
    std::vector<float> A(M * K), B(N * K);
    for (auto& v : A) v = normal(rng);
    for (auto& v : B) v = std::fabs(normal(rng)) * 0.1f + 0.01f;  // same-sign gradients: the harder case
    double worst_seq = 0, worst_chunk = 0, e2_seq = 0, e2_chunk = 0, r2 = 0;
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        const float* a = &A[i * K];
        const float* b = &B[j * K];
        double ref = 0, mag = 0;
        for (std::uint64_t k = 0; k < K; ++k) {
          ref += static_cast<double>(a[k]) * b[k];
          mag += std::fabs(static_cast<double>(a[k]) * b[k]);
        }
        float seq = num::dot_chain_f32(K, [&](std::uint64_t k) { return a[k]; }, [&](std::uint64_t k) { return b[k]; });
        float chk = chunked_dot(a, b, K, 256);
        worst_seq = std::max(worst_seq, std::fabs(seq - ref) / mag);
        worst_chunk = std::max(worst_chunk, std::fabs(chk - ref) / mag);
        e2_seq += (seq - ref) * (seq - ref);
        e2_chunk += (chk - ref) * (chk - ref);
        r2 += ref * ref;
      }
    std::printf("%-9llu %-22.3e %-22.3e %-22.3e %-22.3e\n", static_cast<unsigned long long>(K), worst_seq, worst_chunk,
                std::sqrt(e2_seq / r2), std::sqrt(e2_chunk / r2));
  }
  return 0;
}
