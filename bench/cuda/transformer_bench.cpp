// The transformer block (transformer_block.h) on the cuda backend: bit-identity with the
// reference on the same inputs (output hashes), then timings of forward + backward at
// B=8, T=1024, D=768, 12 heads, SwiGLU 4x in tier debug (exact kernels) and tier fast
// (cuBLAS matmuls, the flash attention kernel on bf16), CUDA events, median of 5 after a warm-up.
//   usage: cuda_transformer_bench [check_B check_T check_D check_H]
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>

#include "backends/cuda/cuda_context.h"
#include "base/hash.h"
#include "ops/compare.h"
#include "ops/evaluate.h"
#include "transformer_block.h"

using namespace rung;

namespace {

[[noreturn]] void die(const DiagnosticSink& d, const std::string& what) {
  std::fprintf(stderr, "FAILED %s: %s %s\n", what.c_str(), d.all().empty() ? "" : d.all()[0].code.c_str(),
               d.all().empty() ? "" : d.all()[0].message.c_str());
  std::exit(1);
}

std::vector<ops::HostTensor> make_inputs(const bench::BlockDims& d, unsigned seed) {
  std::mt19937 rng(seed);
  auto uni = [&](ops::Extents s, float scale) {
    ops::HostTensor t(DType::f32, s);
    std::uniform_real_distribution<float> u(-scale, scale);
    for (std::uint64_t i = 0; i < t.numel(); ++i) t.store_f32(i, u(rng));
    return t;
  };
  float ws = 1.0f / std::sqrt(static_cast<float>(d.D)), wf = 1.0f / std::sqrt(static_cast<float>(d.F));
  ops::HostTensor g1 = uni({d.D}, 0.1f), g2 = uni({d.D}, 0.1f);
  for (std::uint64_t i = 0; i < d.D; ++i) {
    g1.store_f32(i, 1.0f + g1.load_f32(i));
    g2.store_f32(i, 1.0f + g2.load_f32(i));
  }
  ops::HostTensor mask(DType::f32, {d.T, d.T});
  for (std::uint64_t i = 0; i < d.T; ++i)
    for (std::uint64_t j = 0; j < d.T; ++j) mask.store_f32(i * d.T + j, j <= i ? 0.0f : -INFINITY);
  return {uni({d.B, d.T, d.D}, 1.0f), uni({d.B, d.T, d.D}, 1.0f), g1, uni({d.D, 3 * d.D}, ws), uni({d.D, d.D}, ws), g2,
          uni({d.D, d.F}, ws), uni({d.D, d.F}, ws), uni({d.F, d.D}, wf), ops::HostTensor::scalar_f32(1e-6f),
          ops::HostTensor::scalar_f32(1.0f / std::sqrt(static_cast<float>(d.D / d.H))), mask};
}

std::string hash_of(const ops::HostTensor& t) {
  return sha3_256(std::span<const std::uint8_t>(t.bytes().data(), t.bytes().size())).short_hex(16);
}

struct Gpu {
  cuda::Context& ctx;
  DiagnosticSink d;
  // Profiling (one extra run): CUDA events around every op, summed per op (matmul per shape).
  bool profile = false;
  std::vector<std::pair<std::string, std::pair<cudaEvent_t, cudaEvent_t>>> marks;
  cuda::DevTensor operator()(const char* op, std::vector<cuda::DevTensor> in, const AttrMap& a) {
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    auto s = static_cast<cudaStream_t>(ctx.stream());
    if (profile) {
      cudaEventCreate(&e0);
      cudaEventCreate(&e1);
      cudaEventRecord(e0, s);
    }
    auto out = cuda::run_dev(ctx, *ops::op_registry().find(op), in, a, d);
    if (!out) die(d, op);
    if (profile) {
      cudaEventRecord(e1, s);
      std::string key = op;
      if (key == "matmul") {
        for (const auto& t : in) {
          key += " [";
          for (std::size_t i = 0; i < t.shape.size(); ++i) key += (i ? "," : "") + std::to_string(t.shape[i]);
          key += "]";
        }
        if (a.count("transpose_a") && a.at("transpose_a").as<bool>()) key += " ta";
        if (a.count("transpose_b") && a.at("transpose_b").as<bool>()) key += " tb";
      }
      marks.push_back({key, {e0, e1}});
    }
    return (*out)[0];
  }
};

// Where one forward + backward spends its time on the device: per op (events around each
// launch sequence), against the wall time of the whole run.
void profile_block(cuda::Context& ctx, const bench::BlockDims& dims, const std::vector<ops::HostTensor>& in, const char* label) {
  DiagnosticSink d;
  std::vector<cuda::DevTensor> dev;
  for (const auto& h : in) dev.push_back(*ctx.upload(h, d));
  Gpu g{ctx, {}};
  (void)bench::transformer_block<cuda::DevTensor>(g, dims, dev);  // warm-up
  if (!ctx.sync(d)) die(d, "sync");
  g.profile = true;
  auto t0 = std::chrono::steady_clock::now();
  (void)bench::transformer_block<cuda::DevTensor>(g, dims, dev);
  if (!ctx.sync(d)) die(d, "sync");
  double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::map<std::string, std::pair<double, int>> per;
  double total = 0;
  for (auto& [k, ev] : g.marks) {
    float ms = 0;
    cudaEventElapsedTime(&ms, ev.first, ev.second);
    per[k].first += ms;
    per[k].second += 1;
    total += ms;
    cudaEventDestroy(ev.first);
    cudaEventDestroy(ev.second);
  }
  std::vector<std::pair<double, std::string>> rows;
  for (auto& [k, v] : per) rows.push_back({v.first, k + " x" + std::to_string(v.second)});
  std::sort(rows.rbegin(), rows.rend());
  std::printf("\nprofile of one %s run (%zu ops; sum of per-op device time %.2f ms, wall with events %.2f ms)\n", label,
              g.marks.size(), total, wall);
  std::printf("| op (calls) | ms | share |\n|---|---|---|\n");
  for (const auto& [ms, k] : rows)
    if (ms >= 0.05) std::printf("| %s | %.2f | %.1f%% |\n", k.c_str(), ms, 100.0 * ms / total);
}

struct Cpu {
  DiagnosticSink d;
  ops::HostTensor operator()(const char* op, std::vector<ops::HostTensor> in, const AttrMap& a) {
    auto out = ops::evaluate(op, in, a, d);
    if (!out) die(d, op);
    return (*out)[0];
  }
};

std::vector<ops::HostTensor> run_gpu(cuda::Context& ctx, const bench::BlockDims& dims, const std::vector<ops::HostTensor>& in,
                                     double* ms, int reps) {
  DiagnosticSink d;
  std::vector<cuda::DevTensor> dev;
  for (const auto& h : in) dev.push_back(*ctx.upload(h, d));
  Gpu g{ctx, {}};
  auto s = static_cast<cudaStream_t>(ctx.stream());
  std::vector<cuda::DevTensor> out = bench::transformer_block<cuda::DevTensor>(g, dims, dev);  // warm-up
  if (!ctx.sync(d)) die(d, "sync");
  if (ms) {
    std::vector<float> t;
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    for (int r = 0; r < reps; ++r) {
      cudaEventRecord(a, s);
      out = bench::transformer_block<cuda::DevTensor>(g, dims, dev);
      cudaEventRecord(b, s);
      if (!ctx.check(cudaEventSynchronize(b), "event", d)) die(d, "timing");
      float x = 0;
      cudaEventElapsedTime(&x, a, b);
      t.push_back(x);
    }
    std::sort(t.begin(), t.end());
    *ms = t[t.size() / 2];
  }
  std::vector<ops::HostTensor> host;
  for (const auto& o : out) host.push_back(*ctx.download(o, d));
  return host;
}

}  // namespace

int main(int argc, char** argv) {
  bench::BlockDims small{2, 64, 128, 4, 512};
  if (argc >= 5) small = {std::strtoull(argv[1], nullptr, 10), std::strtoull(argv[2], nullptr, 10),
                          std::strtoull(argv[3], nullptr, 10), std::strtoull(argv[4], nullptr, 10), 0};
  small.F = 4 * small.D;
  DiagnosticSink d;
  auto ctx = cuda::Context::create(ops::Tier::debug, d);
  if (!ctx) die(d, "cuda context");
  auto fast = cuda::Context::create(ops::Tier::fast, d);
  std::printf("device: %s\n", ctx->profile().to_string().c_str());

  // 1. Bit-identity with the reference (scalar oracle on the host) on the same inputs.
  auto in = make_inputs(small, 7);
  auto t0 = std::chrono::steady_clock::now();
  Cpu cpu;
  auto ref = bench::transformer_block<ops::HostTensor>(cpu, small, in);
  double cpu_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto got = run_gpu(*ctx, small, in, nullptr, 0);
  auto names = bench::block_output_names();
  int same = 0;
  std::printf("\nbit-identity, B=%llu T=%llu D=%llu H=%llu F=%llu (reference on the host: %.1f s)\n",
              (unsigned long long)small.B, (unsigned long long)small.T, (unsigned long long)small.D,
              (unsigned long long)small.H, (unsigned long long)small.F, cpu_s);
  std::printf("| output | reference sha3 | cuda debug sha3 | identical |\n|---|---|---|---|\n");
  for (std::size_t i = 0; i < ref.size(); ++i) {
    bool ok = ref[i].identical(got[i]);
    same += ok;
    std::printf("| %s | %s | %s | %s |\n", names[i].c_str(), hash_of(ref[i]).c_str(), hash_of(got[i]).c_str(), ok ? "yes" : "NO");
  }
  std::printf("identical outputs: %d of %zu\n", same, ref.size());

  // 2. Timings at the size.
  bench::BlockDims full{8, 1024, 768, 12, 3072};
  auto fin = make_inputs(full, 8);
  double t_debug = 0, t_fast = 0;
  auto a = run_gpu(*ctx, full, fin, &t_debug, 5);
  auto b = run_gpu(*ctx, full, fin, nullptr, 0);
  int repeat_same = 0;
  for (std::size_t i = 0; i < a.size(); ++i) repeat_same += a[i].identical(b[i]);
  std::printf("\nB=8 T=1024 D=768 H=12 SwiGLU 4x, forward + backward\n");
  std::printf("| tier | ms (median of 5) | notes |\n|---|---|---|\n");
  std::printf("| debug (exact) | %.2f | two runs bit-identical: %d/%zu outputs; y sha3 %s, dx sha3 %s |\n", t_debug, repeat_same,
              a.size(), hash_of(a[0]).c_str(), hash_of(a[1]).c_str());
  if (fast) {
    auto f = run_gpu(*fast, full, fin, &t_fast, 5);
    std::string worst;
    double worst_norm = 0;
    for (std::size_t i = 0; i < f.size(); ++i) {
      auto v = ops::compare(f[i], a[i], ops::TolClass::loose, ops::Tier::fast);
      if (v.normwise >= worst_norm) { worst_norm = v.normwise; worst = names[i]; }
    }
    std::printf("| fast, f32 tensors (cuBLAS SGEMM) | %.2f | worst normwise vs debug: %.2e (%s) |\n", t_fast, worst_norm, worst.c_str());
    // The same program on bf16 tensors: cuBLAS BF16 tensor cores, f32 arithmetic inside
    // every other op, one bf16 rounding per op output.
    std::vector<ops::HostTensor> bin;
    for (const auto& t : fin) {
      ops::HostTensor h(DType::bf16, t.shape());
      for (std::uint64_t i = 0; i < t.numel(); ++i) h.store_f32(i, t.load_f32(i));
      bin.push_back(std::move(h));
    }
    double t_bf = 0;
    auto fb = run_gpu(*fast, full, bin, &t_bf, 5);
    worst_norm = 0;
    for (std::size_t i = 0; i < fb.size(); ++i) {
      ops::HostTensor w(DType::f32, fb[i].shape());
      for (std::uint64_t j = 0; j < w.numel(); ++j) w.store_f32(j, fb[i].load_f32(j));
      auto v = ops::compare(w, a[i], ops::TolClass::loose, ops::Tier::fast);
      if (v.normwise >= worst_norm) { worst_norm = v.normwise; worst = names[i]; }
    }
    std::printf("| fast, bf16 tensors (cuBLAS BF16, flash attention) | %.2f | worst normwise vs debug f32: %.2e (%s) |\n", t_bf,
                worst_norm, worst.c_str());
    // The forward attention composed instead (p kept for the backward), same inputs.
    bench::BlockDims comp = full;
    comp.attention_op = false;
    double c_debug = 0, c_bf = 0;
    (void)run_gpu(*ctx, comp, fin, &c_debug, 5);
    (void)run_gpu(*fast, comp, bin, &c_bf, 5);
    std::printf("| debug, forward attention composed (p kept) | %.2f | the attention op's program: %.2f |\n", c_debug, t_debug);
    std::printf("| fast bf16, forward attention composed (p kept) | %.2f | the attention op's program: %.2f |\n", c_bf, t_bf);
    profile_block(*fast, full, bin, "fast bf16");
  }
  profile_block(*ctx, full, fin, "debug");
  return same == static_cast<int>(ref.size()) && repeat_same == static_cast<int>(a.size()) ? 0 : 1;
}
