// The `attention` op on the cuda backend at the transformer block's shape (B=8, H=12,
// T=1024, head dim 64, causal): the fused exact kernel (tier debug; each query-tile width),
// the op-by-op composition it replaces (matmul, mul, add mask, softmax, matmul), and the
// flash kernel of tier fast on bf16 — CUDA events, median of 10 after a warm-up. Checks:
// the fused kernel's bits against the reference on two heads at full length, and the flash
// result against the exact one in the op's fast class. PyTorch's SDPA is measured by
// attention_torch.py in the same device call.
//   usage: cuda_attention_bench [B H T D]
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>

#include "bench_die.h"
#include "backends/cuda/cuda_context.h"
#include "backends/cuda/device_api_nn.h"
#include "ops/compare.h"
#include "ops/evaluate.h"

using namespace rung;

namespace {

using bench::die;

ops::HostTensor uniform(DType dt, ops::Extents s, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  ops::HostTensor t(dt, std::move(s));
  for (std::uint64_t i = 0; i < t.numel(); ++i) t.store_f32(i, u(rng));
  return t;
}

double median_ms(cuda::Context& ctx, const std::function<void()>& fn, int reps = 10) {
  auto s = static_cast<cudaStream_t>(ctx.stream());
  fn();
  DiagnosticSink d;
  if (!ctx.sync(d)) die(d, "sync");
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> t;
  for (int r = 0; r < reps; ++r) {
    cudaEventRecord(a, s);
    fn();
    cudaEventRecord(b, s);
    cudaEventSynchronize(b);
    float x = 0;
    cudaEventElapsedTime(&x, a, b);
    t.push_back(x);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

cuda::DevTensor run1(cuda::Context& ctx, const char* op, std::vector<cuda::DevTensor> in, const AttrMap& a) {
  DiagnosticSink d;
  auto out = cuda::run_dev(ctx, *ops::op_registry().find(op), in, a, d);
  if (!out) die(d, op);
  return (*out)[0];
}

cuda::AttentionSpec spec_of(std::uint64_t B, std::uint64_t H, std::uint64_t T, std::uint64_t D) {
  cuda::AttentionSpec s;
  s.Sq = s.Sk = T;
  s.D = s.Dv = D;
  s.batch.rank = 2;
  s.batch.ext[0] = B;
  s.batch.ext[1] = H;
  for (auto* bs : {s.q_bs, s.k_bs, s.v_bs}) {
    bs[0] = static_cast<std::int64_t>(H * T * D);
    bs[1] = static_cast<std::int64_t>(T * D);
  }
  s.causal = true;
  s.scale = 1.0f / std::sqrt(static_cast<float>(D));
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t B = 8, H = 12, T = 1024, D = 64;
  if (argc >= 5) B = std::strtoull(argv[1], nullptr, 10), H = std::strtoull(argv[2], nullptr, 10), T = std::strtoull(argv[3], nullptr, 10),
    D = std::strtoull(argv[4], nullptr, 10);
  DiagnosticSink d;
  auto dbg = cuda::Context::create(ops::Tier::debug, d);
  auto fast = cuda::Context::create(ops::Tier::fast, d);
  if (!dbg || !fast) die(d, "cuda context");
  std::printf("device: %s\nshape: B=%llu H=%llu T=%llu D=%llu causal\n", dbg->profile().to_string().c_str(), (unsigned long long)B,
              (unsigned long long)H, (unsigned long long)T, (unsigned long long)D);
  // Causal: half the T x T scores; 2 flops per fma; q k^T and p v.
  double gflop = 4.0 * B * H * T * T * D / 2 / 1e9;

  ops::HostTensor qh = uniform(DType::f32, {B, H, T, D}, 1), kh = uniform(DType::f32, {B, H, T, D}, 2),
                  vh = uniform(DType::f32, {B, H, T, D}, 3);
  auto q = *dbg->upload(qh, d), k = *dbg->upload(kh, d), v = *dbg->upload(vh, d);
  AttrMap causal{{"causal", AttrValue(true)}};

  // 1. Bits: two heads at full length against the reference.
  {
    ops::Extents two{1, 2, T, D};
    auto slice = [&](const ops::HostTensor& t) {
      ops::HostTensor s(DType::f32, two);
      for (std::uint64_t i = 0; i < s.numel(); ++i) s.store_f32(i, t.load_f32(i));
      return s;
    };
    std::vector<ops::HostTensor> in{slice(qh), slice(kh), slice(vh)};
    auto t0 = std::chrono::steady_clock::now();
    auto ref = ops::evaluate("attention", in, causal, d);
    if (!ref) die(d, "reference");
    double ref_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::vector<cuda::DevTensor> dev;
    for (auto& t : in) dev.push_back(*dbg->upload(t, d));
    auto got = dbg->download(run1(*dbg, "attention", dev, causal), d);
    std::printf("\nfused exact vs reference, [1, 2, %llu, %llu] causal: %s (reference %.1f s on the host)\n", (unsigned long long)T,
                (unsigned long long)D, got->identical((*ref)[0]) ? "bit-identical" : "DIFFERENT", ref_s);
  }

  // 2. Exact: the op (fused), each tile width, and the composition it replaces.
  std::printf("\n| path | ms (median of 10) | TFLOP/s (causal, useful flops) |\n|---|---|---|\n");
  auto row = [&](const char* what, double ms) { std::printf("| %s | %.3f | %.1f |\n", what, ms, gflop / ms); };
  cuda::DevTensor y_exact;
  row("exact: attention op (fused kernel, tile chosen by the backend)",
      median_ms(*dbg, [&] { y_exact = run1(*dbg, "attention", {q, k, v}, causal); }));
  auto y_forced = *dbg->alloc(DType::f32, {B, H, T, D}, d);
  auto sp = spec_of(B, H, T, D);
  for (int rt : {4, 2, 1}) {
    if (!cuda::fused_attention_rows_per_thread(sp, 227 * 1024, rt)) continue;
    std::string what = "exact: fused kernel, " + std::to_string(8 * rt) + "-query tiles";
    row(what.c_str(), median_ms(*dbg, [&] {
          if (!dbg->check(cuda::launch_attention_fused(q.data(), k.data(), v.data(), 1, y_forced.data(), sp, rt, dbg->stream()), "fused",
                          d))
            die(d, "fused");
        }));
  }
  {
    ops::HostTensor mh(DType::f32, {T, T});
    for (std::uint64_t i = 0; i < T; ++i)
      for (std::uint64_t j = 0; j < T; ++j) mh.store_f32(i * T + j, j <= i ? 0.0f : -INFINITY);
    auto mask = *dbg->upload(mh, d), scale = *dbg->upload(ops::HostTensor::scalar_f32(sp.scale), d);
    row("exact: composed ops (matmul, mul, add, softmax, matmul; scores in memory)", median_ms(*dbg, [&] {
          auto s = run1(*dbg, "add", {run1(*dbg, "mul", {run1(*dbg, "matmul", {q, k}, AttrMap{{"transpose_b", AttrValue(true)}}), scale}, {}),
                                      mask},
                        {});
          (void)run1(*dbg, "matmul", {run1(*dbg, "softmax", {s}, AttrMap{{"axis", AttrValue(std::int64_t{-1})}}), v}, {});
        }));
  }

  // 3. Fast: flash on bf16 (op, with its operand guard; and the kernel alone).
  auto bf = [&](const ops::HostTensor& t) {
    ops::HostTensor h(DType::bf16, t.shape());
    for (std::uint64_t i = 0; i < t.numel(); ++i) h.store_f32(i, t.load_f32(i));
    return *fast->upload(h, d);
  };
  auto qb = bf(qh), kb = bf(kh), vb = bf(vh);
  cuda::DevTensor y_fast;
  row("fast bf16: attention op (flash kernel + operand guard)", median_ms(*fast, [&] { y_fast = run1(*fast, "attention", {qb, kb, vb}, causal); }));
  auto y_fk = *fast->alloc(DType::bf16, {B, H, T, D}, d);
  for (int w : {4, 8}) {
    std::string what = "fast bf16: flash kernel alone, " + std::to_string(16 * w) + "-query blocks";
    row(what.c_str(), median_ms(*fast, [&] {
          if (!fast->check(cuda::launch_attention_flash(qb.data(), kb.data(), vb.data(), 3, y_fk.data(), sp, fast->stream(), w), "flash", d))
            die(d, "flash");
        }));
  }
  std::printf("flash calls %llu, exact calls in tier fast %llu\n", (unsigned long long)fast->fast_attention_flash,
              (unsigned long long)fast->fast_attention_exact);
  // Accuracy: flash (bf16 operands) against the exact kernel on the same bf16 values.
  auto ye = run1(*dbg, "attention", {qb, kb, vb}, causal);
  auto a = fast->download(y_fast, d), e = dbg->download(ye, d);
  auto verdict = ops::compare(*a, *e, ops::op_registry().find("attention")->tolerance.fast, ops::Tier::fast);
  std::printf("flash vs exact (same bf16 operands), class loose tier fast: %s\n", verdict.summary().c_str());
  return verdict.pass ? 0 : 1;
}
