// The headline check on a real GPU: the exact-path numerics compiled by nvcc for the device
// give the same bits as the same source compiled for the host CPU.
//   * every f32 input (2^32 bit patterns) of exp, log, sin, cos, tanh, sigmoid, silu, erf,
//     gelu (both forms), and f16/bf16 narrowing;
//   * pow on 2^28 pairs; fma_f32_soft against the GPU's fused fma;
//   * matmul's sequential-k fma chain (512 x 512 outputs, K = 4096);
//   * the canonical sum tree computed the GPU way (one warp per 4096-chunk, 32 lanes,
//     shuffle-down fold) against the sequential host loop, for 50M values.
// Build and run on a GPU machine (not part of the CMake build):
//   nvcc -O2 -std=c++17 --fmad=false -Xcompiler -ffp-contract=off -arch=sm_90 -I src \
//        -diag-suppress 20013,20015 bench/ops/cuda_parity.cu -o cuda_parity && ./cuda_parity
// (the suppressed warnings are about host lambdas passed to the __host__ __device__
// dot_chain_f32 in host code, which is what they are meant for).
// NaN results compare equal whatever their payload (outputs are canonicalised later).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "ops/numerics/dot.h"
#include "ops/numerics/half.h"
#include "ops/numerics/ieee.h"
#include "ops/numerics/reduce_tree.h"
#include "ops/numerics/special.h"
#include "ops/numerics/trig.h"

using namespace rung::num;

#define CHECK(x)                                                                          \
  do {                                                                                    \
    cudaError_t e = (x);                                                                  \
    if (e != cudaSuccess) { std::printf("CUDA error %s at %d\n", cudaGetErrorString(e), __LINE__); std::exit(1); } \
  } while (0)

enum Fn { kExp, kLog, kSin, kCos, kTanh, kSigmoid, kSilu, kErf, kGelu, kGeluTanh, kF16, kBf16, kCount };
const char* kNames[] = {"exp", "log", "sin", "cos", "tanh", "sigmoid", "silu", "erf", "gelu", "gelu_tanh", "f16_from_f32", "bf16_from_f32"};

__host__ __device__ inline std::uint32_t apply(int fn, std::uint32_t bits) {
  float x = f32_from_bits(bits);
  float y;
  switch (fn) {
    case kExp: y = exp_f32(x); break;
    case kLog: y = log_f32(x); break;
    case kSin: y = sin_f32(x); break;
    case kCos: y = cos_f32(x); break;
    case kTanh: y = tanh_f32(x); break;
    case kSigmoid: y = sigmoid_f32(x); break;
    case kSilu: y = silu_f32(x); break;
    case kErf: y = erf_f32(x); break;
    case kGelu: y = gelu_erf_f32(x); break;
    case kGeluTanh: y = gelu_tanh_f32(x); break;
    case kF16: return f16_from_f32(x);
    default: return bf16_from_f32(x);
  }
  return is_nan(y) ? kCanonicalNanF32 : bits_of(y);
}

__global__ void unary_kernel(int fn, std::uint64_t base, std::uint32_t* out, std::uint64_t n) {
  std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = apply(fn, static_cast<std::uint32_t>(base + i));
}

__global__ void pow_kernel(const float* x, const float* y, std::uint32_t* out, std::uint64_t n) {
  std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (i < n) {
    float r = pow_f32(x[i], y[i]);
    out[i] = is_nan(r) ? kCanonicalNanF32 : bits_of(r);
  }
}

__global__ void fma_kernel(const float* a, const float* b, const float* c, std::uint32_t* soft, std::uint32_t* hard,
                           std::uint64_t n) {
  std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (i < n) {
    float s = fma_f32_soft(a[i], b[i], c[i]), h = fma_f32(a[i], b[i], c[i]);
    soft[i] = is_nan(s) ? kCanonicalNanF32 : bits_of(s);
    hard[i] = is_nan(h) ? kCanonicalNanF32 : bits_of(h);
  }
}

__global__ void matmul_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < M && j < N)
    C[i * N + j] = dot_chain_f32(K, [&](std::uint64_t k) { return A[i * K + k]; },
                                 [&](std::uint64_t k) { return B[k * N + j]; });
}

// One warp per chunk of 4096: lane l sums elements l, l+32, ...; then the pairwise fold.
__global__ void tree_level_kernel(const float* v, std::uint64_t n, float* partial) {
  std::uint64_t c = blockIdx.x;
  unsigned l = threadIdx.x;
  std::uint64_t lo = c * 4096, len = n - lo < 4096 ? n - lo : 4096;
  float acc = 0.0f;
  for (std::uint64_t i = l; i < len; i += 32) acc = acc + v[lo + i];
  for (unsigned s = 16; s >= 1; s /= 2) {
    float other = __shfl_down_sync(0xffffffffu, acc, s);
    if (l < s) acc = acc + other;
  }
  if (l == 0) partial[c] = acc;
}

std::uint64_t count_mismatches(const std::vector<std::uint32_t>& gpu, int fn, std::uint64_t base, std::uint32_t& first) {
  unsigned threads = std::thread::hardware_concurrency();
  std::vector<std::uint64_t> bad(threads, 0);
  std::vector<std::uint32_t> where(threads, 0);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      std::uint64_t lo = gpu.size() * t / threads, hi = gpu.size() * (t + 1) / threads;
      for (std::uint64_t i = lo; i < hi; ++i)
        if (apply(fn, static_cast<std::uint32_t>(base + i)) != gpu[i]) {
          if (bad[t]++ == 0) where[t] = static_cast<std::uint32_t>(base + i);
        }
    });
  for (auto& p : pool) p.join();
  std::uint64_t total = 0;
  for (unsigned t = 0; t < threads; ++t) {
    if (bad[t] && !total) first = where[t];
    total += bad[t];
  }
  return total;
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s; host threads: %u\n", prop.name, std::thread::hardware_concurrency());
  const std::uint64_t chunk = std::uint64_t{1} << 28;
  std::uint32_t* d_out;
  CHECK(cudaMalloc(&d_out, chunk * 4));
  std::vector<std::uint32_t> h(chunk);
  int failures = 0;
  for (int fn = 0; fn < kCount; ++fn) {
    std::uint64_t bad = 0;
    std::uint32_t first = 0;
    for (std::uint64_t base = 0; base < (std::uint64_t{1} << 32); base += chunk) {
      unary_kernel<<<static_cast<unsigned>(chunk / 256), 256>>>(fn, base, d_out, chunk);
      CHECK(cudaGetLastError());
      CHECK(cudaMemcpy(h.data(), d_out, chunk * 4, cudaMemcpyDeviceToHost));
      std::uint32_t f = 0;
      std::uint64_t b = count_mismatches(h, fn, base, f);
      if (b && !bad) first = f;
      bad += b;
    }
    std::printf("%-14s all 2^32 inputs: %llu differing results%s", kNames[fn], static_cast<unsigned long long>(bad),
                bad ? "" : "\n");
    if (bad) std::printf(" (first at 0x%08x)\n", first);
    failures += bad != 0;
  }

  // pow and fma on random operands.
  std::mt19937_64 rng(1);
  const std::uint64_t n = std::uint64_t{1} << 26;
  std::vector<float> a(n), b(n), c(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    a[i] = f32_from_bits(static_cast<std::uint32_t>(rng()));
    b[i] = f32_from_bits(static_cast<std::uint32_t>(rng()));
    c[i] = f32_from_bits(static_cast<std::uint32_t>(rng()));
    if (i % 2) { a[i] = std::ldexp(1.0f + (rng() % 1000) / 1000.0f, static_cast<int>(rng() % 40) - 20); b[i] = static_cast<float>(static_cast<int>(rng() % 200) - 100) / 8.0f; }
  }
  float *da, *db, *dc;
  std::uint32_t *d2;
  CHECK(cudaMalloc(&da, n * 4));
  CHECK(cudaMalloc(&db, n * 4));
  CHECK(cudaMalloc(&dc, n * 4));
  CHECK(cudaMalloc(&d2, n * 4));
  CHECK(cudaMemcpy(da, a.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dc, c.data(), n * 4, cudaMemcpyHostToDevice));
  pow_kernel<<<static_cast<unsigned>(n / 256), 256>>>(da, db, d_out, n);
  CHECK(cudaMemcpy(h.data(), d_out, n * 4, cudaMemcpyDeviceToHost));
  std::uint64_t bad = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    float r = pow_f32(a[i], b[i]);
    bad += (is_nan(r) ? kCanonicalNanF32 : bits_of(r)) != h[i];
  }
  std::printf("%-14s 2^26 pairs: %llu differing results\n", "pow", static_cast<unsigned long long>(bad));
  failures += bad != 0;
  fma_kernel<<<static_cast<unsigned>(n / 256), 256>>>(da, db, dc, d_out, d2, n);
  std::vector<std::uint32_t> h2(n);
  CHECK(cudaMemcpy(h.data(), d_out, n * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(h2.data(), d2, n * 4, cudaMemcpyDeviceToHost));
  std::uint64_t bad_soft = 0, bad_host = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    bad_soft += h[i] != h2[i];
    float hf = fma_f32(a[i], b[i], c[i]);
    bad_host += (is_nan(hf) ? kCanonicalNanF32 : bits_of(hf)) != h2[i];
  }
  std::printf("%-14s 2^26 triples: soft fma vs GPU fma %llu differ, host fma vs GPU fma %llu differ\n", "fma",
              static_cast<unsigned long long>(bad_soft), static_cast<unsigned long long>(bad_host));
  failures += bad_soft != 0 || bad_host != 0;

  // matmul's chain.
  const int M = 512, N = 512, K = 4096;
  std::vector<float> A(static_cast<std::size_t>(M) * K), B(static_cast<std::size_t>(K) * N), C(static_cast<std::size_t>(M) * N);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  for (auto& v : A) v = nd(rng);
  for (auto& v : B) v = nd(rng);
  float *dA, *dB, *dC;
  CHECK(cudaMalloc(&dA, A.size() * 4));
  CHECK(cudaMalloc(&dB, B.size() * 4));
  CHECK(cudaMalloc(&dC, C.size() * 4));
  CHECK(cudaMemcpy(dA, A.data(), A.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, B.data(), B.size() * 4, cudaMemcpyHostToDevice));
  matmul_kernel<<<dim3(N / 16, M / 16), dim3(16, 16)>>>(dA, dB, dC, M, N, K);
  CHECK(cudaMemcpy(C.data(), dC, C.size() * 4, cudaMemcpyDeviceToHost));
  bad = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float want = dot_chain_f32(K, [&](std::uint64_t k) { return A[i * K + k]; }, [&](std::uint64_t k) { return B[k * N + j]; });
      bad += bits_of(want) != bits_of(C[i * N + j]);
    }
  std::printf("%-14s %dx%d outputs, K=%d: %llu differing\n", "matmul chain", M, N, K, static_cast<unsigned long long>(bad));
  failures += bad != 0;

  // The canonical sum, GPU schedule vs host loop.
  const std::uint64_t vn = 50000000;
  std::vector<float> v(vn);
  std::uniform_int_distribution<int> ex(-30, 30);
  for (auto& x : v) x = std::ldexp(nd(rng), ex(rng));
  float* dv;
  CHECK(cudaMalloc(&dv, vn * 4));
  CHECK(cudaMemcpy(dv, v.data(), vn * 4, cudaMemcpyHostToDevice));
  std::uint64_t len = vn;
  float* cur = dv;
  do {  // level by level until one value remains
    std::uint64_t chunks = (len + 4095) / 4096;
    float* next;
    CHECK(cudaMalloc(&next, chunks * 4));
    tree_level_kernel<<<static_cast<unsigned>(chunks), 32>>>(cur, len, next);
    CHECK(cudaGetLastError());
    cur = next;
    len = chunks;
  } while (len > 1);
  float gpu_sum;
  CHECK(cudaMemcpy(&gpu_sum, cur, 4, cudaMemcpyDeviceToHost));
  float host_sum = canonical_sum<float>(vn, [&](std::uint64_t i) { return v[i]; });
  std::printf("%-14s %llu values: GPU warp schedule %a, host %a: %s\n", "canonical sum", static_cast<unsigned long long>(vn),
              gpu_sum, host_sum, bits_of(gpu_sum) == bits_of(host_sum) ? "identical" : "DIFFERENT");
  failures += bits_of(gpu_sum) != bits_of(host_sum);
  std::printf("%s\n", failures ? "MISMATCHES FOUND" : "all identical");
  return failures ? 1 : 0;
}
