// rung's binary64 exp_f64 and log_f64 (ops/numerics/exp_log.h) compiled by nvcc for the device
// give the same bits as the same source compiled for the host CPU: 2^27 inputs per function
// (half spread over all bit patterns by a Weyl sequence, half uniform over the busy range:
// [-746, 710] for exp, (0, 16) and 1 +- 2^-20 for log), in batches of 2^24.
// Build and run on a GPU machine (not part of the CMake build):
//   nvcc -O2 -std=c++17 --fmad=false -Xcompiler -ffp-contract=off -arch=sm_90 -I src \
//        bench/ops/cuda_parity_f64.cu -o cuda_parity_f64 && ./cuda_parity_f64
// NaN results compare equal whatever their payload.
// Measured 2026-12-03 on an NVIDIA H200 (sm_90, nvcc --fmad=false): exp_f64 and log_f64,
// 134217728 inputs each, 0 differ (run as a condensed copy of this program and of the f64
// block of exp_log.h: the same inputs and formulas, comments stripped).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "ops/numerics/exp_log.h"

using namespace rung::num;

#define CHECK(x)                                                                                                     \
  do {                                                                                                               \
    cudaError_t e = (x);                                                                                             \
    if (e != cudaSuccess) { std::printf("CUDA error %s at %d\n", cudaGetErrorString(e), __LINE__); std::exit(1); } \
  } while (0)

__host__ __device__ inline std::uint64_t apply(int fn, double x) {
  double y = fn == 0 ? exp_f64(x) : log_f64(x);
  return is_nan(y) ? 0x7FF8000000000000ull : bits_of(y);
}

__global__ void kernel(int fn, const double* x, std::uint64_t* y, std::uint64_t n) {
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x)
    y[i] = apply(fn, x[i]);
}

int main() {
  const std::uint64_t kBatch = 1ull << 24, kBatches = 8;
  std::vector<double> x(kBatch);
  std::vector<std::uint64_t> got(kBatch), want(kBatch);
  double* dx;
  std::uint64_t* dy;
  CHECK(cudaMalloc(&dx, kBatch * sizeof(double)));
  CHECK(cudaMalloc(&dy, kBatch * sizeof(std::uint64_t)));
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  int bad = 0;
  for (int fn = 0; fn < 2; ++fn) {
    std::uint64_t w = 0x243F6A8885A308D3ull, differ = 0, n = 0;
    for (std::uint64_t b = 0; b < kBatches; ++b) {
      for (std::uint64_t i = 0; i < kBatch; ++i) {
        w += 0x9E3779B97F4A7C15ull;
        double u = static_cast<double>(w >> 11) * 0x1p-53;  // [0, 1)
        if (b % 2 == 0) x[i] = f64_from_bits(fn == 0 ? w : w >> 1);
        else if (fn == 0) x[i] = -746.0 + 1456.0 * u;
        else x[i] = i % 4 == 0 ? 1.0 + (u - 0.5) * 0x1p-19 : 16.0 * u;
      }
      CHECK(cudaMemcpy(dx, x.data(), kBatch * sizeof(double), cudaMemcpyHostToDevice));
      kernel<<<4096, 256>>>(fn, dx, dy, kBatch);
      CHECK(cudaGetLastError());
      CHECK(cudaMemcpy(got.data(), dy, kBatch * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
      std::vector<std::thread> pool;
      for (unsigned t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
          for (std::uint64_t i = t; i < kBatch; i += threads) want[i] = apply(fn, x[i]);
        });
      for (auto& t : pool) t.join();
      for (std::uint64_t i = 0; i < kBatch; ++i)
        if (got[i] != want[i]) {
          if (differ < 5) std::printf("  %s(%a): device %016llx host %016llx\n", fn == 0 ? "exp_f64" : "log_f64", x[i],
                                      static_cast<unsigned long long>(got[i]), static_cast<unsigned long long>(want[i]));
          ++differ;
        }
      n += kBatch;
    }
    std::printf("%s: %llu inputs, %llu differ\n", fn == 0 ? "exp_f64" : "log_f64", static_cast<unsigned long long>(n),
                static_cast<unsigned long long>(differ));
    bad += differ != 0;
  }
  cudaFree(dx);
  cudaFree(dy);
  return bad;
}
