// CPU backend benchmarks (bench/RESULTS.md records the figures and commands):
//   BM_Gemm/N        rung's exact GEMM (through the backend's matmul) and OpenBLAS sgemm on
//                    the same N x N x N problem, timed alternately in one process; counters
//                    rung_gflops, blas_gflops and ratio = rung / blas.
//   BM_GemmKernel/N  the same, kernel to kernel: rung's GEMM driver into a preallocated C.
//                    The GEMM label names the OpenBLAS kernel in use: OpenBLAS 0.3.21 does not
//                    know every AVX-512 CPU model and falls back to "Prescott" (SSE3, ~5x
//                    slower) there; run with OPENBLAS_CORETYPE=SkylakeX, and with
//                    OPENBLAS_THREAD_TIMEOUT=4 so its idle worker stops spinning on the core
//                    rung's next call needs (bench/RESULTS.md).
//   BM_FusedElementwise/N  a fused region (relu(a * b + a)) on the chunked executor vs memcpy.
//   BM_Elementwise/N the `add` kernel and a memcpy of the same bytes, alternately; counters
//                    add_gbps (3 streams: a, b, y), copy_gbps (2 streams) and ratio.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstring>
#include <random>
#include <string>

#include "bench_threads.h"
#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/fused_region.h"
#include "backends/cpu/gemm.h"
#include "ir/graph/builder.h"
#include "ops/evaluate.h"
#include "ops/registry.h"

#if RUNG_HAVE_OPENBLAS
#include <cblas.h>
extern "C" void openblas_set_num_threads(int);
extern "C" char* openblas_get_corename(void);
#endif

namespace {

using rung::ops::HostTensor;
using Clock = std::chrono::steady_clock;

using rung::bench::cpu_threads;

HostTensor random_f32(std::uint64_t rows, std::uint64_t cols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(rows * cols);
  for (auto& x : v) x = u(rng);
  return HostTensor::from_f32({rows, cols}, v);
}

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

void BM_Gemm(benchmark::State& state) {
  auto n = static_cast<std::uint64_t>(state.range(0));
  auto cpu = rung::cpu::make_cpu_backend(rung::ops::Tier::debug, {.threads = cpu_threads()});
  const rung::ops::OpDef* matmul = rung::ops::op_registry().find("matmul");
  std::vector<HostTensor> in{random_f32(n, n, 1), random_f32(n, n, 2)};
  std::vector<float> c(n * n);
#if RUNG_HAVE_OPENBLAS
  openblas_set_num_threads(static_cast<int>(cpu_threads()));
#endif
  double t_rung = 0, t_blas = 0;
  for (auto _ : state) {
    rung::DiagnosticSink d;
    auto t0 = Clock::now();
    auto y = cpu->run_op(*matmul, in, {}, d);
    t_rung += seconds_since(t0);
    if (!y) state.SkipWithError("matmul failed");
    benchmark::DoNotOptimize(y);
#if RUNG_HAVE_OPENBLAS
    auto t1 = Clock::now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(n), static_cast<int>(n), static_cast<int>(n),
                1.0f, reinterpret_cast<const float*>(in[0].bytes().data()), static_cast<int>(n),
                reinterpret_cast<const float*>(in[1].bytes().data()), static_cast<int>(n), 0.0f, c.data(), static_cast<int>(n));
    t_blas += seconds_since(t1);
    benchmark::DoNotOptimize(c.data());
#endif
  }
  double flops = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(state.iterations());
  state.counters["rung_gflops"] = flops / t_rung * 1e-9;
#if RUNG_HAVE_OPENBLAS
  state.counters["blas_gflops"] = flops / t_blas * 1e-9;
  state.counters["ratio"] = t_blas / t_rung;
  state.SetLabel(std::string("openblas:") + openblas_get_corename());
#endif
  state.counters["threads"] = cpu_threads();
}
BENCHMARK(BM_Gemm)->Arg(256)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same comparison kernel to kernel: rung's threaded GEMM driver writing a preallocated C
// (no output allocation, no NaN canonicalisation), as the BLAS call does.
void BM_GemmKernel(benchmark::State& state) {
  auto n = static_cast<std::uint64_t>(state.range(0));
  rung::cpu::ThreadPool pool(cpu_threads());
  HostTensor a = random_f32(n, n, 1), b = random_f32(n, n, 2);
  std::vector<float> c(n * n), c2(n * n);
  rung::cpu::GemmArgs<float> g;
  g.M = n, g.N = n, g.K = n;
  g.a = reinterpret_cast<const float*>(a.bytes().data()), g.a_rs = n, g.a_ks = 1;
  g.b = reinterpret_cast<const float*>(b.bytes().data()), g.b_ks = n, g.b_cs = 1;
  g.c = c.data(), g.ldc = n;
#if RUNG_HAVE_OPENBLAS
  openblas_set_num_threads(static_cast<int>(cpu_threads()));
#endif
  double t_rung = 0, t_blas = 0;
  for (auto _ : state) {
    auto t0 = Clock::now();
    rung::cpu::gemm_batch(pool, {g});
    t_rung += seconds_since(t0);
    benchmark::DoNotOptimize(c.data());
#if RUNG_HAVE_OPENBLAS
    auto t1 = Clock::now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(n), static_cast<int>(n), static_cast<int>(n),
                1.0f, g.a, static_cast<int>(n), g.b, static_cast<int>(n), 0.0f, c2.data(), static_cast<int>(n));
    t_blas += seconds_since(t1);
    benchmark::DoNotOptimize(c2.data());
#endif
  }
  double flops = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(state.iterations());
  state.counters["rung_gflops"] = flops / t_rung * 1e-9;
#if RUNG_HAVE_OPENBLAS
  state.counters["blas_gflops"] = flops / t_blas * 1e-9;
  state.counters["ratio"] = t_blas / t_rung;
  state.SetLabel(std::string("openblas:") + openblas_get_corename());
#endif
}
BENCHMARK(BM_GemmKernel)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Elementwise(benchmark::State& state) {
  auto n = static_cast<std::uint64_t>(state.range(0));
  auto cpu = rung::cpu::make_cpu_backend(rung::ops::Tier::debug, {.threads = cpu_threads()});
  const rung::ops::OpDef* add = rung::ops::op_registry().find("add");
  std::vector<HostTensor> in{random_f32(1, n, 3), random_f32(1, n, 4)};
  std::vector<float> dst(n);
  double t_add = 0, t_copy = 0;
  for (auto _ : state) {
    rung::DiagnosticSink d;
    auto t0 = Clock::now();
    auto y = cpu->run_op(*add, in, {}, d);
    t_add += seconds_since(t0);
    benchmark::DoNotOptimize(y);
    auto t1 = Clock::now();
    std::memcpy(dst.data(), in[0].bytes().data(), n * 4);
    t_copy += seconds_since(t1);
    benchmark::DoNotOptimize(dst.data());
  }
  double it = static_cast<double>(state.iterations());
  state.counters["add_gbps"] = 12.0 * static_cast<double>(n) * it / t_add * 1e-9;
  state.counters["copy_gbps"] = 8.0 * static_cast<double>(n) * it / t_copy * 1e-9;
  state.counters["ratio"] = (12.0 / t_add) / (8.0 / t_copy);
}
BENCHMARK(BM_Elementwise)->Arg(1 << 24)->Unit(benchmark::kMillisecond)->UseRealTime();

// A fused elementwise region as the fuse pass emits it: y = relu(a * b + a) over n floats,
// run by the CPU backend's chunked executor (no full-size intermediates), against a memcpy
// of the same n floats. Streams: read a, b, write y (12 bytes per element); copy: 8.
void BM_FusedElementwise(benchmark::State& state) {
  auto n = static_cast<std::uint64_t>(state.range(0));
  rung::Graph g;
  rung::GraphBuilder b(g);
  rung::TensorType t{rung::DType::f32, rung::Shape{rung::Dim::fixed(n)}};
  auto pa = b.param("a", 0, t), pb = b.param("b", 1, t);
  auto y = b.op("relu", {b.op("add", {b.op("mul", {pa, pb}, t), pa}, t)}, t);
  rung::RegionId fused = b.region("main.fused.0", {pa, pb}, {y});
  auto x0 = b.param("x0", 0, t), x1 = b.param("x1", 1, t);
  auto call = b.op_multi("call", {x0, x1}, {t},
                         {{"callee", rung::AttrValue(g.region(fused).hash)}, {"fusion", rung::AttrValue(std::string("elementwise"))}});
  rung::RegionId main = b.export_region("main", {x0, x1}, call);
  auto cpu = rung::cpu::make_cpu_backend(rung::ops::Tier::debug, {.threads = cpu_threads()});
  std::vector<HostTensor> in{random_f32(1, n, 5), random_f32(1, n, 6)};
  in[0] = HostTensor(rung::DType::f32, {n}, std::vector<std::uint8_t>(in[0].bytes().begin(), in[0].bytes().end()));
  in[1] = HostTensor(rung::DType::f32, {n}, std::vector<std::uint8_t>(in[1].bytes().begin(), in[1].bytes().end()));
  std::vector<float> dst(n);
  double t_fused = 0, t_copy = 0;
  // state.range(1): 0 = through run_region (the graph walk, which copies its arguments and
  // results), 1 = the fused executor alone on the call node.
  bool direct = state.range(1) == 1;
  rung::cpu::ThreadPool pool(cpu_threads());
  const rung::Node& call_node = g.node(call.front().node);
  for (auto _ : state) {
    rung::DiagnosticSink d;
    auto t0 = Clock::now();
    auto out = direct ? rung::cpu::run_fused_elementwise(g, call_node, in, pool, d) : cpu->run_region(g, main, in, d);
    t_fused += seconds_since(t0);
    if (!out) state.SkipWithError("fused region failed");
    benchmark::DoNotOptimize(out);
    auto t1 = Clock::now();
    std::memcpy(dst.data(), in[0].bytes().data(), n * 4);
    t_copy += seconds_since(t1);
    benchmark::DoNotOptimize(dst.data());
  }
  double it = static_cast<double>(state.iterations());
  state.counters["fused_gbps"] = 12.0 * static_cast<double>(n) * it / t_fused * 1e-9;
  state.counters["copy_gbps"] = 8.0 * static_cast<double>(n) * it / t_copy * 1e-9;
  state.counters["ratio"] = (12.0 / t_fused) / (8.0 / t_copy);
}
BENCHMARK(BM_FusedElementwise)->Args({1 << 24, 0})->Args({1 << 24, 1})->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
