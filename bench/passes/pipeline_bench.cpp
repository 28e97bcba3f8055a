// The full GraphIR pass pipeline on a 100k-node graph (issue 6's target: under 2 s on the
// 2-core CI machine). The graph mixes what the passes act on: calls to inline, constant
// subtrees to fold, identities to simplify, dead nodes to drop, same-shape elementwise
// chains to fuse, transposes to fold into matmul, and a long live chain.
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
  auto sq = tensor(DType::f32, {Dim::fixed(16), Dim::fixed(16)});
  auto x = b.param("x", 0, t);
  auto wp = b.param("w", 1, sq);
  auto hp = b.param("h", 0, t);
  RegionId helper = b.region("helper", {hp}, {b.op("relu", {hp}, t)});
  std::vector<float> one(16, 1.0f);
  ValueRef ones = b.constant_f32({Dim::fixed(16)}, one);
  ValueRef v = x;
  int i = 0;
  while (static_cast<int>(g.node_count()) < nodes) {
    std::vector<float> c(16, static_cast<float>(i % 97) * 0.5f);
    ValueRef k = b.constant_f32({Dim::fixed(16)}, c);
    switch (i % 7) {
      case 0: v = b.op("add", {v, b.op("mul", {k, ones}, row)}, t); break;  // mul folds
      case 1: v = b.op("mul", {v, ones}, t); break;                         // simplifies away
      case 2: v = b.call(helper, {v})[0]; break;                            // inlines
      case 3: b.op("exp", {v}, t); break;                                    // dead
      case 4: v = b.op("sub", {v, k}, t); break;
      case 5: v = b.op("tanh", {b.op("neg", {b.op("sigmoid", {v}, t)}, t)}, t); break;  // fuses
      case 6: v = b.op("matmul", {v, b.op("transpose", {wp}, sq)}, t); break;          // layout folds
    }
    ++i;
  }
  b.export_region("f", {x, wp}, {v});
  return g;
}

// state.range(0): 1 = the default pipeline, 0 = the same without layout and fuse (the
// pipeline before fusion existed, measured in the same run for comparison). Counters give
// the milliseconds each pass took, summed over the pipeline's iterations.
void BM_Pipeline100k(benchmark::State& state) {
  Graph g = big_graph(100000);
  PipelineOptions o;
  if (state.range(0) == 0) o.passes = {"inline", "fold", "simplify", "dce"};
  std::vector<PassStats> stats;
  for (auto _ : state) {
    Graph copy = g;
    DiagnosticSink d;
    PassManager pm(o);
    PassContext ctx{d};
    if (!pm.run(copy, ctx)) state.SkipWithError("pipeline failed");
    benchmark::DoNotOptimize(copy.node_count());
    stats = pm.stats();
  }
  state.counters["nodes"] = static_cast<double>(g.node_count());
  for (const auto& s : stats) {
    state.counters[s.pass + "_ms"] = s.milliseconds / static_cast<double>(state.iterations());
    state.counters[s.pass + "_changed"] = static_cast<double>(s.changed);
  }
}
BENCHMARK(BM_Pipeline100k)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace rung

BENCHMARK_MAIN();
