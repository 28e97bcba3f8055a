// A 1 GiB input passes into a run with no extra resident memory (issue 18): the input is
// borrowed (Tensor::borrow), the program reads it in place, and the process's peak resident
// set grows by far less than the input. Prints the figures bench/RESULTS.md records.
//
//   build/bench/api/zero_copy_rss [MiB]
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "rung/rung.hpp"

namespace {

const char* kSum = R"(module total;

tier debug;
tolerance exact;

export fn main(x: f32[N]) -> f32 {
    sum(x)
}
)";

long rss_kib() {  // now
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

long peak_kib() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t mib = argc > 1 ? std::atoll(argv[1]) : 1024;
  std::int64_t n = mib * 1024 * 1024 / 4;
  auto m = rung::Module::load(rung::Source::text("total.rung", kSum));
  auto p = rung::Program::compile(*m, {});
  rung::SessionOptions so;
  so.receipts = rung::Receipts::ignore;
  so.write_records = false;
  so.environment.home = "/tmp/rung-bench-store";
  auto s = rung::Session::open(*p, so);
  if (!s) return std::fputs(s.diagnostics().text().c_str(), stderr), 1;
  std::vector<float> x(static_cast<std::size_t>(n), 1.0f);  // touched: resident
  std::int64_t shape[1] = {n};
  // A warm-up run on a small input, so code and pools are resident before the measurement.
  std::int64_t small[1] = {1024};
  (void)s->run("main", {{"x", *rung::Tensor::borrow({rung::DType::f32, small, {}, x.data()})}});
  // VmHWM is reset by writing to clear_refs (5): the peak from here on is the run's.
  std::ofstream("/proc/self/clear_refs") << "5";
  long before = rss_kib();
  auto r = s->run("main", {{"x", *rung::Tensor::borrow({rung::DType::f32, shape, {}, x.data()})}});
  if (!r) return std::fputs(r.diagnostics().text().c_str(), stderr), 1;
  long peak = peak_kib();
  float total = *static_cast<const float*>(r->outputs[0].tensor.data());
  std::printf("input            %lld MiB (f32[%lld]), borrowed %llu, copied %llu\n", static_cast<long long>(mib),
              static_cast<long long>(n), static_cast<unsigned long long>(r->stats.inputs_borrowed),
              static_cast<unsigned long long>(r->stats.inputs_copied));
  std::printf("rss before run   %ld KiB\npeak during run  %ld KiB\nextra resident   %ld KiB (%.3f%% of the input)\n", before, peak,
              peak - before, 100.0 * static_cast<double>(peak - before) / static_cast<double>(mib * 1024));
  std::printf("sum              %.1f (want %lld)\n", static_cast<double>(total), static_cast<long long>(n));
  return 0;
}
