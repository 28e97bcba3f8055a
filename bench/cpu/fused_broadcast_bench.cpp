// The CPU backend's fused elementwise calls with broadcast inputs (bench/RESULTS.md):
//   BM_RmsScale/R/D/mode  rms norm's tail y = (x * r) * g, x [R, D], r [R, 1], g [D], through
//                         run_region: mode 0 = the fused call (r and g gathered per chunk),
//                         1 = the same graph unfused (two broadcasting muls, a full-size
//                         intermediate), 2 = the fused call with r and g already expanded to
//                         [R, D] (dense inputs: the gather's cost is the 0-vs-2 difference).
//                         Counters: gbps (x read + y written, 8 bytes per element), copy_gbps
//                         (a memcpy of x, timed alternately) and ratio = gbps / copy_gbps.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <random>

#include "bench_threads.h"
#include "backends/cpu/cpu_backend.h"
#include "ir/graph/builder.h"

namespace {

using rung::ops::HostTensor;
using Clock = std::chrono::steady_clock;

using rung::bench::cpu_threads;

HostTensor random_f32(const rung::ops::Extents& shape, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(rung::ops::element_count(shape));
  for (auto& x : v) x = u(rng);
  return HostTensor::from_f32(shape, v);
}

rung::TensorType f32(const rung::ops::Extents& e) {
  rung::TensorType t{rung::DType::f32, {}};
  for (auto d : e) t.shape.push_back(rung::Dim::fixed(d));
  return t;
}

void BM_RmsScale(benchmark::State& state) {
  auto R = static_cast<std::uint64_t>(state.range(0)), D = static_cast<std::uint64_t>(state.range(1));
  int mode = static_cast<int>(state.range(2));
  rung::ops::Extents full{R, D}, rs = mode == 2 ? full : rung::ops::Extents{R, 1}, gs = mode == 2 ? full : rung::ops::Extents{D};
  rung::Graph g;
  rung::GraphBuilder b(g);
  auto tf = f32(full);
  auto x = b.param("x", 0, tf), r = b.param("r", 1, f32(rs)), w = b.param("g", 2, f32(gs));
  rung::RegionId main;
  if (mode == 1) {
    main = b.export_region("main", {x, r, w}, {b.op("mul", {b.op("mul", {x, r}, tf), w}, tf)});
  } else {
    auto a = b.param("a", 0, tf), c = b.param("c", 1, f32(rs)), e = b.param("e", 2, f32(gs));
    rung::RegionId fused = b.region("main.fused.0", {a, c, e}, {b.op("mul", {b.op("mul", {a, c}, tf), e}, tf)});
    auto call = b.op_multi("call", {x, r, w}, {tf},
                           {{"callee", rung::AttrValue(g.region(fused).hash)},
                            {"fusion", rung::AttrValue(std::string("elementwise"))}});
    main = b.export_region("main", {x, r, w}, call);
  }
  auto cpu = rung::cpu::make_cpu_backend(rung::ops::Tier::debug, {.threads = cpu_threads()});
  std::vector<HostTensor> in{random_f32(full, 1), random_f32(rs, 2), random_f32(gs, 3)};
  std::vector<float> dst(R * D);
  double t_run = 0, t_copy = 0;
  for (auto _ : state) {
    rung::DiagnosticSink d;
    auto t0 = Clock::now();
    auto out = cpu->run_region(g, main, in, d);
    t_run += std::chrono::duration<double>(Clock::now() - t0).count();
    if (!out) state.SkipWithError("the region failed");
    benchmark::DoNotOptimize(out);
    auto t1 = Clock::now();
    std::memcpy(dst.data(), in[0].bytes().data(), R * D * 4);
    t_copy += std::chrono::duration<double>(Clock::now() - t1).count();
    benchmark::DoNotOptimize(dst.data());
  }
  double it = static_cast<double>(state.iterations()), n = static_cast<double>(R * D);
  state.counters["gbps"] = 8.0 * n * it / t_run * 1e-9;
  state.counters["copy_gbps"] = 8.0 * n * it / t_copy * 1e-9;
  state.counters["ratio"] = t_copy / t_run;
}
// 16384 x 768 (the bench block's [B*T, D] at B*T = 16384), and a short inner dim.
BENCHMARK(BM_RmsScale)
    ->Args({16384, 768, 0})->Args({16384, 768, 1})->Args({16384, 768, 2})
    ->Args({1 << 20, 12, 0})->Args({1 << 20, 12, 1})
    ->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
