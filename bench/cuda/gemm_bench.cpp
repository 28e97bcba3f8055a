// Exact-tier SGEMM against cuBLAS on the same device, same inputs, same run:
//   rung exact (sequential-k fma chain, bit-identical to the CPU) vs cuBLAS SGEMM (f32),
//   cuBLAS TF32 and BF16 tensor cores; plus the elementwise add against the device-to-device
//   copy bandwidth. Timing: CUDA events, 2 warm-ups, median of N runs. Correctness: a
//   sample of exact outputs is recomputed on the host with rung's chain (dot.h) and must be
//   bit-identical.
//   Then a fused elementwise region, (x * a + y) * sigmoid(z) with a rank-0 `a`, as the one
//   kernel the backend generates (NVRTC) and as four per-op kernels, both against the copy.
//   usage: cuda_gemm_bench [sizes...]      (default 4096 8192; `0` runs no GEMM)
//          cuda_gemm_bench MxNxK:ta:tb[:batch]...   one shape in one layout: the shipped path,
//          every pipelined configuration and cuBLAS (the transformer block's awkward shapes)
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "backends/cuda/dense_matmul_spec.h"
#include "backends/cuda/device_api.h"
#include "backends/cuda/fused_module.h"
#include "ir/graph/builder.h"
#include "ops/numerics/dot.h"
#include "ops/numerics/elementwise.h"

#define CK(x)                                                                                      \
  do {                                                                                             \
    auto e_ = (x);                                                                                 \
    if (static_cast<int>(e_) != 0) {                                                               \
      std::fprintf(stderr, "FAILED %s at %s:%d: %d\n", #x, __FILE__, __LINE__, static_cast<int>(e_)); \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

using namespace rung;

static double time_ms(cudaStream_t s, int reps, const std::function<void()>& fn) {
  for (int i = 0; i < 2; ++i) fn();
  CK(cudaStreamSynchronize(s));
  std::vector<float> t;
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(a, s));
    fn();
    CK(cudaEventRecord(b, s));
    CK(cudaEventSynchronize(b));
    CK(cudaGetLastError());
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

__attribute__((unused)) static std::uint16_t to_bf16(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return static_cast<std::uint16_t>((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
}

// One shape, one layout: A[batch][M,K] (or [K,M] with ta), B[batch][K,N] (or [N,K] with tb).
static void shape_sweep(cublasHandle_t h, cudaStream_t s, const char* arg) {
  unsigned long long M = 0, N = 0, K = 0, batch = 1;
  int ta = 0, tb = 0;
  if (std::sscanf(arg, "%llux%llux%llu:%d:%d:%llu", &M, &N, &K, &ta, &tb, &batch) < 5) {
    std::fprintf(stderr, "bad shape %s (MxNxK:ta:tb[:batch])\n", arg);
    std::exit(2);
  }
  std::uint64_t ea = batch * M * K, eb = batch * K * N, ec = batch * M * N;
  std::vector<float> ha(ea), hb(eb);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (auto& v : ha) v = dist(rng);
  for (auto& v : hb) v = dist(rng);
  float *a, *b, *c;
  CK(cudaMalloc(&a, ea * 4));
  CK(cudaMalloc(&b, eb * 4));
  CK(cudaMalloc(&c, ec * 4));
  CK(cudaMemcpy(a, ha.data(), ea * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(b, hb.data(), eb * 4, cudaMemcpyHostToDevice));
  cuda::MatmulSpec m = cuda::dense_matmul_spec(M, N, K, ta, tb, batch);
  std::vector<std::array<std::uint64_t, 3>> pos;
  std::vector<float> want;
  for (int k = 0; k < 64; ++k) {
    std::uint64_t z = rng() % batch, i = rng() % M, j = rng() % N;
    pos.push_back({z, i, j});
    want.push_back(num::dot_chain_f32(
        K, [&](std::uint64_t q) { return ha[z * M * K + (ta ? q * M + i : i * K + q)]; },
        [&](std::uint64_t q) { return hb[z * K * N + (tb ? j * K + q : q * N + j)]; }));
  }
  auto same = [&] {
    CK(cudaStreamSynchronize(s));
    int n = 0;
    for (std::size_t k = 0; k < pos.size(); ++k) {
      float got;
      CK(cudaMemcpy(&got, c + (pos[k][0] * M + pos[k][1]) * N + pos[k][2], 4, cudaMemcpyDeviceToHost));
      n += std::memcmp(&got, &want[k], 4) == 0;
    }
    return n;
  };
  double flops = 2.0 * batch * M * N * K;
  int reps = 10;
  CK(cudaMemset(c, 0xff, ec * 4));
  double t = time_ms(s, reps, [&] { CK(cuda::launch_matmul_exact(a, b, 1, c, 1, m, s)); });
  int ok = same();
  const float one = 1, zero = 0;
  int mi = static_cast<int>(M), ni = static_cast<int>(N), ki = static_cast<int>(K);
  double tc = time_ms(s, reps, [&] {
    CK(cublasSgemmStridedBatched(h, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N, ni, mi, ki, &one, b, tb ? ki : ni,
                                 static_cast<long long>(K * N), a, ta ? mi : ki, static_cast<long long>(M * K), &zero, c, ni,
                                 static_cast<long long>(M * N), static_cast<int>(batch)));
  });
  std::string variants;
  for (int v = 0; v < cuda::kSgemmPipeVariants; ++v) {
    CK(cudaMemset(c, 0xff, ec * 4));
    double tp = time_ms(s, reps, [&] { CK(cuda::launch_sgemm_pipe_variant(v, a, b, c, m, s)); });
    char buf[64];
    std::snprintf(buf, sizeof buf, " p%d=%.3f (%d)", v, tp, same());
    variants += buf;
  }
  std::printf("shape %s: rung exact %.3f ms %.1f TFLOP/s (sampled bit-identical %d/%zu), cuBLAS SGEMM %.3f ms %.1f TFLOP/s, "
              "ratio %.3f; configurations ms (bit-identical of %zu):%s\n",
              arg, t, flops / t / 1e9, ok, pos.size(), tc, flops / tc / 1e9, tc / t, pos.size(), variants.c_str());
  CK(cudaFree(a));
  CK(cudaFree(b));
  CK(cudaFree(c));
}

int main(int argc, char** argv) {
  std::vector<std::uint64_t> sizes;
  std::vector<const char*> shapes;
  for (int i = 1; i < argc; ++i) {
    if (std::strchr(argv[i], 'x')) shapes.push_back(argv[i]);
    else sizes.push_back(std::strtoull(argv[i], nullptr, 10));
  }
  if (!shapes.empty()) {
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    cublasHandle_t h;
    CK(cublasCreate(&h));
    CK(cublasSetStream(h, s));
    for (const char* sh : shapes) shape_sweep(h, s, sh);
    if (sizes.empty()) return 0;
  }
  if (sizes.empty()) sizes = {4096, 8192};
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  cublasHandle_t h;
  CK(cublasCreate(&h));
  CK(cublasSetStream(h, s));
  cudaDeviceProp p{};
  CK(cudaGetDeviceProperties(&p, 0));
  std::printf("device: %s, %d SMs\n", p.name, p.multiProcessorCount);
  std::printf("| n | rung exact ms | TFLOP/s | cuBLAS SGEMM ms | TFLOP/s | exact/cuBLAS | cuBLAS TF32 TFLOP/s | cuBLAS BF16 TFLOP/s | sampled outputs bit-identical |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  for (std::uint64_t n : sizes) {
    if (n == 0) continue;
    std::uint64_t e = n * n;
    std::vector<float> ha(e), hb(e);
    std::mt19937 rng(static_cast<unsigned>(n));
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (auto& v : ha) v = dist(rng);
    for (auto& v : hb) v = dist(rng);
    float *a, *b, *c, *c2;
    void *a16, *b16;
    CK(cudaMalloc(&a, e * 4));
    CK(cudaMalloc(&b, e * 4));
    CK(cudaMalloc(&c, e * 4));
    CK(cudaMalloc(&c2, e * 4));
    CK(cudaMalloc(&a16, e * 2));
    CK(cudaMalloc(&b16, e * 2));
    CK(cudaMemcpy(a, ha.data(), e * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, hb.data(), e * 4, cudaMemcpyHostToDevice));
    {
      std::vector<std::uint16_t> t(e);
      for (std::uint64_t i = 0; i < e; ++i) t[i] = to_bf16(ha[i]);
      CK(cudaMemcpy(a16, t.data(), e * 2, cudaMemcpyHostToDevice));
      for (std::uint64_t i = 0; i < e; ++i) t[i] = to_bf16(hb[i]);
      CK(cudaMemcpy(b16, t.data(), e * 2, cudaMemcpyHostToDevice));
    }
    cuda::MatmulSpec m = cuda::dense_matmul_spec(n, n, n, false, false);
    int reps = n >= 8192 ? 5 : 10;
    double flops = 2.0 * n * n * n;
    double t_exact = time_ms(s, reps, [&] { CK(cuda::launch_matmul_exact(a, b, 1, c, 1, m, s)); });
    // Every layout (the transformer block uses all of them): the same buffers read with A
    // and/or B transposed; cuBLAS with the matching transposes. For each, a sample of outputs
    // recomputed on the host with rung's chain (dot.h), and every pipelined configuration
    // (p0 = the shipped choice, p1.. = the others; device_api.h) timed and checked.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> pos;
    for (int k = 0; k < 256; ++k) pos.push_back({rng() % n, rng() % n});
    std::vector<float> want(pos.size());
    auto sampled_same = [&](const float* dev) {
      CK(cudaStreamSynchronize(s));
      int same = 0;
      for (std::size_t k = 0; k < pos.size(); ++k) {
        float got;
        CK(cudaMemcpy(&got, dev + pos[k].first * n + pos[k].second, 4, cudaMemcpyDeviceToHost));
        same += std::memcmp(&got, &want[k], 4) == 0;
      }
      return same;
    };
    auto tflops = [&](double ms) { return flops / ms / 1e9; };
    for (int t = 0; t < 4; ++t) {
      bool ta = t & 1, tb = t & 2;
      cuda::MatmulSpec mt = cuda::dense_matmul_spec(n, n, n, ta, tb);
      for (std::size_t k = 0; k < pos.size(); ++k) {
        std::uint64_t i = pos[k].first, j = pos[k].second;
        want[k] = num::dot_chain_f32(
            n, [&](std::uint64_t q) { return ta ? ha[q * n + i] : ha[i * n + q]; },
            [&](std::uint64_t q) { return tb ? hb[j * n + q] : hb[q * n + j]; });
      }
      CK(cudaMemset(c, 0xff, e * 4));
      double tv = time_ms(s, reps, [&] { CK(cuda::launch_matmul_exact(a, b, 1, c, 1, mt, s)); });
      int same = sampled_same(c);
      const float one1 = 1, zero1 = 0;
      int ni1 = static_cast<int>(n);
      double tc = time_ms(s, reps, [&] {
        CK(cublasSgemm(h, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N, ni1, ni1, ni1, &one1, b, ni1, a, ni1, &zero1, c2, ni1));
      });
      std::string variants;
      for (int v = 0; v < cuda::kSgemmPipeVariants; ++v) {
        CK(cudaMemset(c, 0xff, e * 4));
        double tp = time_ms(s, reps, [&] { CK(cuda::launch_sgemm_pipe_variant(v, a, b, c, mt, s)); });
        char buf[64];
        std::snprintf(buf, sizeof buf, " p%d=%.1f (%d)", v, tflops(tp), sampled_same(c));
        variants += buf;
      }
      std::printf("layout ta=%d tb=%d at n=%llu: rung exact %.1f TFLOP/s (sampled outputs bit-identical %d/%zu), cuBLAS SGEMM %.1f, "
                  "ratio %.3f; configurations, TFLOP/s (bit-identical of %zu):%s\n",
                  ta, tb, static_cast<unsigned long long>(n), tflops(tv), same, pos.size(), tflops(tc), tc / tv, pos.size(),
                  variants.c_str());
    }
    {
      double tv = time_ms(s, reps, [&] { CK(cuda::launch_matmul_exact_variant(0, a, b, c, m, s)); });
      std::printf("register-staged exact kernel (plain layout) at n=%llu: %.1f TFLOP/s\n", static_cast<unsigned long long>(n), tflops(tv));
    }
    for (std::size_t k = 0; k < pos.size(); ++k) {  // the plain layout's samples again, for the table row
      std::uint64_t i = pos[k].first, j = pos[k].second;
      want[k] = num::dot_chain_f32(n, [&](std::uint64_t q) { return ha[i * n + q]; }, [&](std::uint64_t q) { return hb[q * n + j]; });
    }
    const float one = 1, zero = 0;
    int ni = static_cast<int>(n);
    CK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    double t_sgemm = time_ms(s, reps, [&] { CK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, ni, ni, ni, &one, b, ni, a, ni, &zero, c2, ni)); });
    double t_tf32 = time_ms(s, reps, [&] {
      CK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, ni, ni, ni, &one, b, CUDA_R_32F, ni, a, CUDA_R_32F, ni, &zero, c2, CUDA_R_32F, ni,
                      CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
    });
    double t_bf16 = time_ms(s, reps, [&] {
      CK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, ni, ni, ni, &one, b16, CUDA_R_16BF, ni, a16, CUDA_R_16BF, ni, &zero, c2, CUDA_R_32F,
                      ni, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    });
    // Bit-identity of a sample of exact outputs (the shipped path) against the host chain.
    CK(cudaMemset(c, 0xff, e * 4));
    CK(cuda::launch_matmul_exact(a, b, 1, c, 1, m, s));
    int same = sampled_same(c), total = static_cast<int>(pos.size());
    std::printf("| %llu | %.2f | %.1f | %.2f | %.1f | %.3f | %.1f | %.1f | %d/%d |\n", static_cast<unsigned long long>(n), t_exact,
                flops / t_exact / 1e9, t_sgemm, flops / t_sgemm / 1e9, t_sgemm / t_exact, flops / t_tf32 / 1e9,
                flops / t_bf16 / 1e9, same, total);
    for (void* q : {static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(c), static_cast<void*>(c2), a16, b16}) CK(cudaFree(q));
  }
  // Elementwise add (f32, 2^28 elements: 3 GiB moved) against a device-to-device copy.
  {
    std::uint64_t n = std::uint64_t{1} << 28;
    float *x, *y, *z;
    CK(cudaMalloc(&x, n * 4));
    CK(cudaMalloc(&y, n * 4));
    CK(cudaMalloc(&z, n * 4));
    CK(cudaMemset(x, 0x3f, n * 4));
    CK(cudaMemset(y, 0x40, n * 4));
    double t_copy = time_ms(s, 10, [&] { CK(cudaMemcpyAsync(z, x, n * 4, cudaMemcpyDeviceToDevice, s)); });
    cuda::Dims d;
    d.rank = 1;
    d.ext[0] = n;
    cuda::Strided sa, sb;
    sa.data = x; sa.dtype = 1; sa.dense = true;
    sb.data = y; sb.dtype = 1; sb.dense = true;
    double t_add = time_ms(s, 10, [&] { CK(cuda::launch_binary(cuda::Ew::add, sa, sb, z, 1, d, s)); });
    double t_exp = time_ms(s, 10, [&] { CK(cuda::launch_unary(cuda::Ew::exp, x, 1, z, 1, n, s)); });
    double copy_bw = 2.0 * n * 4 / t_copy / 1e6, add_bw = 3.0 * n * 4 / t_add / 1e6, exp_bw = 2.0 * n * 4 / t_exp / 1e6;
    std::printf("\n| elementwise (2^28 f32) | ms | GB/s (read+write) | vs copy |\n|---|---|---|---|\n");
    std::printf("| device copy | %.3f | %.0f | 1.00 |\n| add | %.3f | %.0f | %.2f |\n| exp (rung's, binary64 inside) | %.3f | %.0f | %.2f |\n",
                t_copy, copy_bw, t_add, add_bw, add_bw / copy_bw, t_exp, exp_bw, exp_bw / copy_bw);
    // The fused region (x * a + y) * sigmoid(z): 3 reads + 1 write of f32 per element.
    float *w, *out, *a;
    CK(cudaMalloc(&w, n * 4));
    CK(cudaMalloc(&out, n * 4));
    CK(cudaMalloc(&a, 4));
    {
      std::vector<float> hv(1 << 20);
      std::mt19937 rng(7);
      std::uniform_real_distribution<float> dist(-8.0f, 8.0f);
      for (auto& v : hv) v = dist(rng);
      for (std::uint64_t off = 0; off < n; off += hv.size()) {  // distinct values per array
        CK(cudaMemcpy(x + off, hv.data(), hv.size() * 4, cudaMemcpyHostToDevice));
        std::rotate(hv.begin(), hv.begin() + 12345, hv.end());
        CK(cudaMemcpy(y + off, hv.data(), hv.size() * 4, cudaMemcpyHostToDevice));
        std::rotate(hv.begin(), hv.begin() + 999, hv.end());
        CK(cudaMemcpy(w + off, hv.data(), hv.size() * 4, cudaMemcpyHostToDevice));
      }
      float av = 0.75f;
      CK(cudaMemcpy(a, &av, 4, cudaMemcpyHostToDevice));
    }
    Graph g;
    GraphBuilder gb(g);
    TensorType full{DType::f32, Shape{Dim::fixed(n)}}, rank0{DType::f32, Shape{}};
    auto px = gb.param("x", 0, full), pa = gb.param("a", 1, rank0), py = gb.param("y", 2, full), pz = gb.param("z", 3, full);
    auto r = gb.op("mul", {gb.op("add", {gb.op("mul", {px, pa}, full), py}, full), gb.op("sigmoid", {pz}, full)}, full);
    RegionId rid = gb.region("bench.fused.0", {px, pa, py, pz}, {r});
    std::string why, error;
    std::vector<cuda::FusedValue> types{{DType::f32, false}, {DType::f32, true}, {DType::f32, false}, {DType::f32, false}};
    auto src = cuda::generate_fused_kernel(g, g.region(rid), types, why);
    if (!src) { std::fprintf(stderr, "FAILED to generate: %s\n", why.c_str()); return 1; }
    auto t0 = std::chrono::steady_clock::now();
    const cuda::FusedKernel* fk = cuda::fused_kernel(*src, "", error);  // no disk cache: the time is NVRTC's
    double compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!fk) { std::fprintf(stderr, "FAILED to compile: %s\n", error.c_str()); return 1; }
    const void* ins[] = {x, a, y, w};
    void* outs[] = {out};
    double t_fused = time_ms(s, 10, [&] { CK(cuda::launch_fused(*fk, ins, outs, n, s)); });
    // Bits: a sample against the host formula (the same functors, in the same order).
    std::vector<float> hx(n < (1u << 20) ? n : (1u << 20)), hy(hx.size()), hz(hx.size()), ho(hx.size());
    CK(cudaMemcpy(hx.data(), x, hx.size() * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hy.data(), y, hx.size() * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hz.data(), w, hx.size() * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(ho.data(), out, hx.size() * 4, cudaMemcpyDeviceToHost));
    std::size_t same = 0;
    for (std::size_t i = 0; i < hx.size(); ++i) {
      float want = num::Mul{}(num::Add{}(num::Mul{}(hx[i], 0.75f), hy[i]), num::Sigmoid{}(hz[i]));
      same += std::memcmp(&want, &ho[i], 4) == 0;
    }
    // The same chain op by op: four kernels, three intermediates through memory.
    float *t1, *t2, *t3;
    CK(cudaMalloc(&t1, n * 4));
    CK(cudaMalloc(&t2, n * 4));
    CK(cudaMalloc(&t3, n * 4));
    cuda::Strided sx, sa2, st1, sy, st2, st3;
    sx.data = x; sx.dtype = 1; sx.dense = true;
    sa2.data = a; sa2.dtype = 1; sa2.dense = false;  // rank 0 broadcast: stride 0
    st1.data = t1; st1.dtype = 1; st1.dense = true;
    sy.data = y; sy.dtype = 1; sy.dense = true;
    st2.data = t2; st2.dtype = 1; st2.dense = true;
    st3.data = t3; st3.dtype = 1; st3.dense = true;
    double t_ops = time_ms(s, 10, [&] {
      CK(cuda::launch_binary(cuda::Ew::mul, sx, sa2, t1, 1, d, s));
      CK(cuda::launch_binary(cuda::Ew::add, st1, sy, t2, 1, d, s));
      CK(cuda::launch_unary(cuda::Ew::sigmoid, w, 1, t3, 1, n, s));
      CK(cuda::launch_binary(cuda::Ew::mul, st2, st3, z, 1, d, s));
    });
    CK(cudaStreamSynchronize(s));
    std::vector<float> hop(hx.size());
    CK(cudaMemcpy(hop.data(), z, hx.size() * 4, cudaMemcpyDeviceToHost));
    std::size_t agree = 0;
    for (std::size_t i = 0; i < hx.size(); ++i) agree += std::memcmp(&hop[i], &ho[i], 4) == 0;
    double fused_bw = 4.0 * n * 4 / t_fused / 1e6, ops_bw = 4.0 * n * 4 / t_ops / 1e6;
    std::printf("| fused (x*a + y) * sigmoid(z), one generated kernel (3 reads + 1 write) | %.3f | %.0f | %.2f |\n", t_fused,
                fused_bw, fused_bw / copy_bw);
    std::printf("| the same chain op by op (4 kernels; the same useful bytes) | %.3f | %.0f | %.2f |\n", t_ops, ops_bw,
                ops_bw / copy_bw);
    std::printf("fused kernel %s: NVRTC compile + load %.0f ms; first %zu outputs bit-identical to the host formula: %zu/%zu, "
                "to the op-by-op kernels: %zu/%zu\n",
                fk->hash.substr(0, 16).c_str(), compile_ms, hx.size(), same, hx.size(), agree, hx.size());
    for (void* q : {static_cast<void*>(w), static_cast<void*>(out), static_cast<void*>(a), static_cast<void*>(t1),
                    static_cast<void*>(t2), static_cast<void*>(t3)})
      CK(cudaFree(q));
    CK(cudaFree(x));
    CK(cudaFree(y));
    CK(cudaFree(z));
  }
  return 0;
}
