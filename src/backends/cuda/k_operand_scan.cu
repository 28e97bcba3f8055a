// Tier fast's guard before cuBLAS: the largest magnitude of a matmul operand, with NaN and
// ±inf read as +inf. The host decides from it whether cuBLAS may run (cublas_fast.cpp).
#include <cuda_runtime.h>

#include <cstring>

#include "backends/cuda/k_common.cuh"
#include "backends/cuda/operand_scan.h"

namespace rung::cuda {
namespace {

// Non-negative floats order like their bit patterns, so an unsigned atomicMax is a float max.
__global__ void max_abs_k(const void* x, int dt, std::uint64_t n, unsigned* out) {
  unsigned best = 0;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    unsigned bits = __float_as_uint(fabsf(ld<float>(x, dt, i)));
    bits = bits > 0x7f800000u ? 0x7f800000u : bits;  // NaN (above +inf's pattern) counts as +inf
    best = bits > best ? bits : best;
  }
  for (int off = 16; off > 0; off /= 2) {
    unsigned o = __shfl_down_sync(0xffffffffu, best, off);
    best = o > best ? o : best;
  }
  if ((threadIdx.x & 31) == 0) atomicMax(out, best);
}

}  // namespace

int operand_max_abs_n(const void* const* x, const std::uint64_t* n, int count, int dtype, float* host_out, void* stream) {
  auto s = static_cast<cudaStream_t>(stream);
  constexpr int kMax = 4;
  if (count < 0 || count > kMax) return static_cast<int>(cudaErrorInvalidValue);
  unsigned* dev = nullptr;
  unsigned host[kMax] = {0, 0, 0, 0};
  int err = static_cast<int>(cudaMallocAsync(reinterpret_cast<void**>(&dev), kMax * sizeof(unsigned), s));
  if (err) return err;
  err = static_cast<int>(cudaMemsetAsync(dev, 0, kMax * sizeof(unsigned), s));
  for (int k = 0; k < count && !err; ++k) {
    if (n[k] == 0) continue;
    unsigned blocks = blocks_for(n[k], 256);
    if (blocks > 1024) blocks = 1024;
    max_abs_k<<<blocks, 256, 0, s>>>(x[k], dtype, n[k], dev + k);
    err = launch_status();
  }
  if (!err) err = static_cast<int>(cudaMemcpyAsync(host, dev, sizeof host, cudaMemcpyDeviceToHost, s));
  int fr = static_cast<int>(cudaFreeAsync(dev, s));
  if (!err) err = static_cast<int>(cudaStreamSynchronize(s));
  if (!err) err = fr;
  for (int k = 0; k < count; ++k) {
    unsigned bits = host[k];
    float f;
    std::memcpy(&f, &bits, sizeof f);
    host_out[k] = f;
  }
  return err;
}

int operand_max_abs(const void* a, std::uint64_t na, const void* b, std::uint64_t nb, int dtype, float host_out[2],
                    void* stream) {
  const void* x[2] = {a, b};
  std::uint64_t n[2] = {na, nb};
  return operand_max_abs_n(x, n, 2, dtype, host_out, stream);
}

}  // namespace rung::cuda
