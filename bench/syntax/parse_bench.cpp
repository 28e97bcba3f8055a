// How fast the syntax layer reads rung source: lexing, the event parser, the green tree
// and the formatter, each over a generated file of about 10 MB (a few thousand functions
// and structs in the style of examples/, comments included). Reports bytes per second.
//   bench_syntax [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <string>

#include "base/source.h"
#include "syntax/format.h"
#include "syntax/parse.h"

namespace {

using namespace rung::syntax;

// A deterministic program of about `bytes` bytes: numbered copies of a block that uses
// most of the grammar, so names and numbers differ from copy to copy.
std::string generate(std::size_t bytes) {
  std::string out = "// generated for the syntax benchmark\nmodule bench;\n\ntier prod;\ntolerance default;\n\n";
  for (std::size_t i = 0; out.size() < bytes; ++i) {
    std::string n = std::to_string(i);
    out += "/// Parameters of layer " + n + ".\n";
    out += "struct Layer" + n + " {\n    w: f32[" + n + ", 128] @device,\n    b: f32[128],\n}\n\n";
    out += "fn forward" + n + "[B](p: &Layer" + n + ", x: f32[B, " + n + "]) -> f32[B, 128] !{rand, io} {\n";
    out += "    let h = relu(x @ p.w + p.b * " + n + ".5e-3); // the hidden layer\n";
    out += "    let (a, mut b) = (h[0, :], [[1, 2], [3, 4]]);\n";
    out += "    for i in 0.." + n + " {\n";
    out += "        if i % 7 == 0 && !done(i) { b += a[i:, ::2]; } else { log(\"step\", i, lr: 1e-3); }\n";
    out += "    }\n";
    out += "    /* block comment */ opt.step(&mut b, Layer" + n + " { w: zeros([" + n + ", 128]), b: h });\n";
    out += "    softmax(h, axis: -1) @ transpose(p.w)\n}\n\n";
  }
  return out;
}

const std::string& source() {
  static const std::string s = generate(10u << 20);
  return s;
}

// The floor every tool pays: copying the file into a SourceFile and indexing its lines.
void BM_SourceFileBaseline(benchmark::State& state) {
  const std::string& src = source();
  for (auto _ : state) {
    rung::SourceFile f("bench.rung", src, false);
    benchmark::DoNotOptimize(f.line_count());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * src.size()));
}

void BM_Lex(benchmark::State& state) {
  const std::string& src = source();
  for (auto _ : state) {
    Lexed l = lex(src);
    benchmark::DoNotOptimize(l.size());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * src.size()));
}

void BM_LexAndParseEvents(benchmark::State& state) {
  const std::string& src = source();
  std::size_t tokens = 0, events = 0;
  for (auto _ : state) {
    Lexed l = lex(src);
    ParseOutput out = parse_events(l);
    tokens = l.size();
    events = out.events.size();
    benchmark::DoNotOptimize(out.events.size());
  }
  state.counters["tokens"] = static_cast<double>(tokens);
  state.counters["events"] = static_cast<double>(events);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * src.size()));
}

void BM_ParseToTree(benchmark::State& state) {
  const std::string& src = source();
  for (auto _ : state) {
    Parse p = parse(src);
    if (!p.diagnostics.empty()) state.SkipWithError("the generated source has syntax errors");
    benchmark::DoNotOptimize(p.tree.root().range().end);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * src.size()));
  state.counters["MB"] = static_cast<double>(src.size()) / 1e6;
}

void BM_Format(benchmark::State& state) {
  const std::string& src = source();
  for (auto _ : state) {
    std::vector<rung::Diagnostic> diags;
    std::optional<std::string> out = format_source(src, 0, diags);
    if (!out) state.SkipWithError("the formatter refused the generated source");
    benchmark::DoNotOptimize(out->size());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * src.size()));
}

BENCHMARK(BM_SourceFileBaseline)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Lex)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LexAndParseEvents)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ParseToTree)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Format)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
