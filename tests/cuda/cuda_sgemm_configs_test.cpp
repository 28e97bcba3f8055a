// Every tile configuration of the pipelined exact SGEMM (not only the one the dispatcher
// picks for the suite's shapes) against rung's host chain (num::dot_chain_f32), every output,
// every layout: edge tiles in M and N for each tile size, K not a multiple of either k tile
// (a last tile of one 4-step group) and K not a multiple of 4 (a partial last group), a batch,
// and special values. 0 differing bits allowed.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "backends/cuda/dense_matmul_spec.h"
#include "backends/cuda/device_api.h"
#include "ops/numerics/dot.h"

namespace rung {
namespace {

std::vector<float> values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<float> v(n);
  for (auto& x : v) {
    std::uint64_t r = rng();
    x = std::ldexp(static_cast<float>(r >> 40) / 16777216.0f - 0.5f, static_cast<int>(r % 7) - 1);
    switch (r % 211) {
      case 0: x = std::numeric_limits<float>::quiet_NaN(); break;
      case 1: x = std::numeric_limits<float>::infinity(); break;
      case 2: x = -0.0f; break;
      case 3: x = 1e-40f; break;  // subnormal
      case 4: x = -3e38f; break;
      default: break;
    }
  }
  return v;
}

bool same_bits(float a, float b) { return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, 4) == 0; }

// One shape in all four layouts, every configuration; layouts the pipelined kernel does not
// apply to (a k-contiguous operand with K % 4 != 0) must be refused by sgemm_pipe_applies.
void check_shape(std::uint64_t M, std::uint64_t N, std::uint64_t K, std::uint64_t batch) {
  SCOPED_TRACE("M=" + std::to_string(M) + " N=" + std::to_string(N) + " K=" + std::to_string(K) + " batch=" +
               std::to_string(batch));
  std::vector<float> ha = values(batch * M * K, 11 + K), hb = values(batch * K * N, 12 + K);
  float *a = nullptr, *b = nullptr, *c = nullptr;
  ASSERT_EQ(cudaMalloc(&a, ha.size() * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&b, hb.size() * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&c, batch * M * N * 4), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(a, ha.data(), ha.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(b, hb.data(), hb.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
  std::vector<float> got(batch * M * N);
  for (int t = 0; t < 4; ++t) {
    bool ta = t & 1, tb = t & 2;
    cuda::MatmulSpec m = cuda::dense_matmul_spec(M, N, K, ta, tb, batch);
    bool k_contiguous = !ta || tb;
    if (K % 4 != 0 && k_contiguous) {
      EXPECT_FALSE(cuda::sgemm_pipe_applies(a, b, m)) << "ta=" << ta << " tb=" << tb;
      continue;
    }
    std::vector<float> want(batch * M * N);
    for (std::uint64_t z = 0; z < batch; ++z)
      for (std::uint64_t i = 0; i < M; ++i)
        for (std::uint64_t j = 0; j < N; ++j)
          want[(z * M + i) * N + j] = num::dot_chain_f32(
              K, [&](std::uint64_t q) { return ha[z * M * K + (ta ? q * M + i : i * K + q)]; },
              [&](std::uint64_t q) { return hb[z * K * N + (tb ? j * K + q : q * N + j)]; });
    ASSERT_TRUE(cuda::sgemm_pipe_applies(a, b, m));
    for (int v = 0; v < cuda::kSgemmPipeVariants; ++v) {
      ASSERT_EQ(cudaMemset(c, 0xff, got.size() * 4), cudaSuccess);
      ASSERT_EQ(cuda::launch_sgemm_pipe_variant(v, a, b, c, m, nullptr), 0) << "configuration " << v;
      ASSERT_EQ(cudaMemcpy(got.data(), c, got.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
      std::size_t differing = 0;
      for (std::size_t i = 0; i < got.size(); ++i) differing += !same_bits(got[i], want[i]);
      EXPECT_EQ(differing, 0u) << "configuration " << v << " ta=" << ta << " tb=" << tb;
    }
  }
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
}

TEST(CudaSgemmConfigs, EveryConfigurationEveryLayoutBitIdentical) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "\n*** SKIPPED: no CUDA device here; the SGEMM configurations were not run ***\n");
    GTEST_SKIP() << "no CUDA device";
  }
  // M, N with edge tiles for 128- and 64-wide tiles; K = 292 = 9 * 32 + 4 = 4 * 64 + 36 (a
  // last k tile shorter than either k tile); 2 batch items.
  check_shape(300, 292, 292, 2);
  // K % 4 != 0 (m- and n-contiguous operands only): a last group of 1, 2 and 3 steps.
  for (std::uint64_t K : {293, 294, 295}) check_shape(132, 68, K, 1);
  // The shape that found the partial group missing: digits' first-layer weight gradient,
  // x^T [64, 1497] . dh [1497, 32].
  check_shape(64, 32, 1497, 1);
}

}  // namespace
}  // namespace rung
