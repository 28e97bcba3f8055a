// What one run costs above its kernels (issue 18, bench/RESULTS.md): a tiny cached program run
// through the public C++ API (Session::run, records off, receipts ignored) against the same
// region run directly on the backend (OpBackend::run_region, what a run cannot avoid).
//
//   build/bench/api/api_overhead_bench [iterations]
//
// Prints medians over rounds of `iterations` calls each, in microseconds per call.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "api/backend_settings.h"
#include "api/impl.h"
#include "ir/graph/graph.h"
#include "ops/tier.h"
#include "rung/rung.hpp"
#include "runtime/backend_registry.h"

namespace {

const char* kTiny = R"(module tiny;

tier debug;
tolerance exact;

export fn main(x: f32[4], y: f32[4]) -> f32[4] {
    x + y
}
)";

template <typename F>
double median_us(int rounds, int iters, F&& f) {
  std::vector<double> per;
  for (int r = 0; r < rounds; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) f();
    auto t1 = std::chrono::steady_clock::now();
    per.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / iters);
  }
  std::sort(per.begin(), per.end());
  return per[per.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int iters = argc > 1 ? std::atoi(argv[1]) : 20000;
  auto m = rung::Module::load(rung::Source::text("tiny.rung", kTiny));
  auto p = rung::Program::compile(*m, {});
  rung::SessionOptions so;
  so.backend = "cpu";
  so.receipts = rung::Receipts::ignore;
  so.write_records = false;
  so.environment.home = "/tmp/rung-bench-store";
  auto s = rung::Session::open(*p, so);
  if (!s) {
    std::fputs(s.diagnostics().text().c_str(), stderr);
    return 1;
  }
  float xs[4] = {1, 2, 3, 4}, ys[4] = {5, 6, 7, 8};
  std::int64_t shape[1] = {4};
  rung::Inputs in{{"x", *rung::Tensor::borrow({rung::DType::f32, shape, {}, xs})},
                  {"y", *rung::Tensor::borrow({rung::DType::f32, shape, {}, ys})}};
  double run = median_us(9, iters, [&] {
    auto r = s->run("main", in);
    if (!r) std::abort();
  });

  // The kernel floor: the program's one region on a cpu backend, called directly.
  const rung::block::Program& bp = p->impl().program;
  rung::RegionId region = 0;
  bool found = false;
  for (const auto& f : bp.functions)
    for (const auto& st : f.body)
      if (st.kind == rung::block::StmtKind::compute)
        if (auto r = bp.graph.find_region(st.region)) {
          region = *r;
          found = true;
        }
  if (!found) return 1;
  rung::DiagnosticSink diags;
  // The settings a session takes from SessionOptions::environment (Environment::from_process()).
  auto backend = rung::runtime::backend_registry().create(
      "cpu", rung::ops::Tier::debug, diags, rung::api::backend_settings(rung::Environment::from_process()));
  std::vector<rung::ops::HostTensor> args = {rung::api::host_of(in[0].tensor).share(), rung::api::host_of(in[1].tensor).share()};
  double kernel = median_us(9, iters, [&] {
    auto r = backend->run_region(bp.graph, region, args, diags);
    if (!r) std::abort();
  });
  std::printf("kernel (run_region)   %8.2f us/call\n", kernel);
  std::printf("Session::run          %8.2f us/call\n", run);
  std::printf("overhead (C++ API)    %8.2f us/call\n", run - kernel);
  return 0;
}
