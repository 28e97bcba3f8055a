// The full GraphIR pass pipeline on a 100k-node graph (issue 6's target: under 2 s on the
// 2-core CI machine). The graph mixes what the passes act on: calls to inline, constant
// subtrees to fold, identities to simplify, dead nodes to drop, and a long live chain.
//   build/bench/passes/bench_passes --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include "ir/graph/builder.h"
#include "passes/pass.h"

namespace rung {
namespace {

Graph big_graph(int nodes) {
  Graph g;
  GraphBuilder b(g);
  auto t = tensor(DType::f32, {Dim::symbol("N"), Dim::fixed(16)});
  auto row = tensor(DType::f32, {Dim::fixed(16)});
  auto x = b.param("x", 0, t);
  auto hp = b.param("h", 0, t);
  RegionId helper = b.region("helper", {hp}, {b.op("relu", {hp}, t)});
  std::vector<float> one(16, 1.0f);
  ValueRef ones = b.constant_f32({Dim::fixed(16)}, one);
  ValueRef v = x;
  int i = 0;
  while (static_cast<int>(g.node_count()) < nodes) {
    std::vector<float> c(16, static_cast<float>(i % 97) * 0.5f);
    ValueRef k = b.constant_f32({Dim::fixed(16)}, c);
    switch (i % 5) {
      case 0: v = b.op("add", {v, b.op("mul", {k, ones}, row)}, t); break;  // mul folds
      case 1: v = b.op("mul", {v, ones}, t); break;                         // simplifies away
      case 2: v = b.call(helper, {v})[0]; break;                            // inlines
      case 3: b.op("exp", {v}, t); break;                                    // dead
      case 4: v = b.op("sub", {v, k}, t); break;
    }
    ++i;
  }
  b.export_region("f", {x}, {v});
  return g;
}

void BM_DefaultPipeline100k(benchmark::State& state) {
  Graph g = big_graph(100000);
  for (auto _ : state) {
    Graph copy = g;
    DiagnosticSink d;
    PassManager pm({});
    PassContext ctx{d};
    if (!pm.run(copy, ctx)) state.SkipWithError("pipeline failed");
    benchmark::DoNotOptimize(copy.node_count());
  }
  state.counters["nodes"] = static_cast<double>(g.node_count());
}
BENCHMARK(BM_DefaultPipeline100k)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace rung

BENCHMARK_MAIN();
