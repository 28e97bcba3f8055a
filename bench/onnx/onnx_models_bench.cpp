// CPU latency of imported ONNX models through the public C++ API, per tier and thread count, as
// JSON on stdout; bench/onnx/models_vs_ort.sh runs it beside onnxruntime-node in the same run
// (bench/RESULTS.md, issue 19).
//
//   build/bench/onnx/onnx_models_bench DIR [--filter SUBSTRING] [--runs N] [--warmup W]
//       [--tiers debug,fast] [--tolerance default] [--threads 1,2] [--backend cpu] [--home DIR]
// (an imported model declares neither tier nor class: tiers other than debug take --tolerance)
//
// DIR holds one folder per model (model.onnx, test_data_set_0/input_K.npy and output_K.npy, as
// tests/onnx/torch/export_models.py writes them). Each timed call is Session::run with records off
// and receipts ignored, the way a serving loop calls it; the inputs are loaded once. Besides the
// latency, each model's largest absolute difference from output_K.npy is printed, so a number is
// never reported for a model that computes something else.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "rung/rung.hpp"

namespace fs = std::filesystem;

namespace {

struct Args {
  std::string dir, filter, backend = "cpu", home = "/tmp/rung-bench-store", tolerance = "default";
  int runs = 200, warmup = 20;
  std::vector<std::string> tiers = {"debug", "fast"};
  std::vector<std::string> threads = {"1", "2"};
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "onnx_models_bench: %s\nusage: onnx_models_bench DIR [--filter S] [--runs N] [--warmup W] "
               "[--tiers debug,fast] [--tolerance default] [--threads 1,2] [--backend cpu] [--home DIR]\n",
               why.c_str());
  std::exit(2);
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(k + " needs a value");
      return argv[++i];
    };
    if (k == "--filter") a.filter = value();
    else if (k == "--runs") a.runs = std::atoi(value().c_str());
    else if (k == "--warmup") a.warmup = std::atoi(value().c_str());
    else if (k == "--tiers") a.tiers = split(value());
    else if (k == "--threads") a.threads = split(value());
    else if (k == "--backend") a.backend = value();
    else if (k == "--tolerance") a.tolerance = value();
    else if (k == "--home") a.home = value();
    else if (k.rfind("--", 0) == 0 || !a.dir.empty()) usage("unexpected " + k);
    else a.dir = k;
  }
  if (a.dir.empty()) usage("DIR missing");
  if (a.runs < 1 || a.warmup < 0 || a.tiers.empty() || a.threads.empty()) usage("bad --runs, --warmup, --tiers or --threads");
  return a;
}

std::vector<fs::path> numbered(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> out;
  for (int k = 0;; ++k) {
    fs::path p = dir / (prefix + "_" + std::to_string(k) + ".npy");
    if (!fs::exists(p)) return out;
    out.push_back(p);
  }
}

// The elements as f64, for the dtypes the exported models return; empty for another dtype.
std::vector<double> as_f64(const rung::Tensor& t) {
  std::vector<double> out(t.numel());
  auto fill = [&](auto tag) {
    const auto* p = static_cast<const decltype(tag)*>(t.data());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(p[i]);
  };
  switch (t.dtype()) {
    case rung::DType::f32: fill(float{}); break;
    case rung::DType::f64: fill(double{}); break;
    case rung::DType::i64: fill(std::int64_t{}); break;
    case rung::DType::i32: fill(std::int32_t{}); break;
    default: out.clear();
  }
  return out;
}

// The largest |got - want| over one output; +inf when dtype or shape differ or cannot be read.
double max_abs_diff(const rung::Tensor& got, const rung::Tensor& want) {
  if (got.dtype() != want.dtype() || got.shape() != want.shape()) return INFINITY;
  std::vector<double> g = as_f64(got), w = as_f64(want);
  if (g.size() != got.numel() || w.size() != want.numel()) return INFINITY;
  double worst = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(g[i]) && std::isnan(w[i])) continue;
    worst = std::max(worst, std::fabs(g[i] - w[i]));
  }
  return worst;
}

struct Timing {
  double median = 0, p10 = 0, p90 = 0;
};

template <typename F>
Timing time_runs(int warmup, int runs, F&& f) {
  for (int i = 0; i < warmup; ++i) f();
  std::vector<double> us;
  for (int i = 0; i < runs; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(us.begin(), us.end());
  auto at = [&](double q) { return us[std::min(us.size() - 1, static_cast<std::size_t>(q * us.size()))]; };
  return {at(0.5), at(0.1), at(0.9)};
}

// One model: "name": {"debug": {"1": {...}, "2": {...}}, ...}, or "name": {"error": "..."}.
std::string bench_model(const Args& a, const fs::path& dir) {
  auto fail = [](const std::string& why) {
    std::string e;
    for (char c : why) e += (c == '"' || c == '\\') ? std::string("\\") + c : c == '\n' ? std::string(" ") : std::string(1, c);
    return "{\"error\": \"" + e + "\"}";
  };
  auto module = rung::Module::load(rung::Source::file((dir / "model.onnx").string()));
  if (!module) return fail(module.diagnostics().text());
  std::vector<rung::Tensor> ins, want;
  for (const auto& p : numbered(dir / "test_data_set_0", "input")) {
    auto t = rung::Tensor::load_npy(p.string());
    if (!t) return fail(t.diagnostics().text());
    ins.push_back(*t);
  }
  for (const auto& p : numbered(dir / "test_data_set_0", "output")) {
    auto t = rung::Tensor::load_npy(p.string());
    if (!t) return fail(t.diagnostics().text());
    want.push_back(*t);
  }
  std::string json = "{";
  for (std::size_t ti = 0; ti < a.tiers.size(); ++ti) {
    rung::CompileOptions co;
    co.tier = a.tiers[ti];
    if (a.tiers[ti] != "debug") co.tolerance = a.tolerance;
    auto program = rung::Program::compile(*module, co);
    if (!program) return fail(program.diagnostics().text());
    const rung::EntryInfo entry = program->entries().at(0);  // entries() is a value: copy, not a reference
    if (entry.params.size() != ins.size()) return fail("the model takes " + std::to_string(entry.params.size()) + " inputs");
    rung::Inputs inputs;
    for (std::size_t k = 0; k < ins.size(); ++k) inputs.push_back({entry.params[k].name, ins[k]});
    json += (ti ? ", \"" : "\"") + a.tiers[ti] + "\": {";
    for (std::size_t hi = 0; hi < a.threads.size(); ++hi) {
      rung::SessionOptions so;
      so.backend = a.backend;
      so.receipts = rung::Receipts::ignore;
      so.write_records = false;
      so.environment.home = a.home;
      so.environment.settings["RUNG_CPU_THREADS"] = a.threads[hi];
      auto session = rung::Session::open(*program, so);
      if (!session) return fail(session.diagnostics().text());
      auto first = session->run(entry.name, inputs);
      if (!first) return fail(first.diagnostics().text());
      double diff = 0;
      for (std::size_t k = 0; k < want.size() && k < first->outputs.size(); ++k)
        diff = std::max(diff, max_abs_diff(first->outputs[k].tensor, want[k]));
      bool failed = false;
      Timing t = time_runs(a.warmup, a.runs, [&] { failed |= !session->run(entry.name, inputs); });
      if (failed) return fail("a timed run failed");
      char buf[256];
      std::snprintf(buf, sizeof buf, "%s\"%s\": {\"median_us\": %.1f, \"p10_us\": %.1f, \"p90_us\": %.1f, \"max_abs_vs_torch\": %.3g}",
                    hi ? ", " : "", a.threads[hi].c_str(), t.median, t.p10, t.p90, diff);
      json += buf;
    }
    json += "}";
  }
  return json + "}";
}

}  // namespace

int main(int argc, char** argv) {
  Args a = parse(argc, argv);
  std::vector<fs::path> models;
  for (const auto& e : fs::directory_iterator(a.dir))
    if (fs::exists(e.path() / "model.onnx") && e.path().filename().string().find(a.filter) != std::string::npos)
      models.push_back(e.path());
  std::sort(models.begin(), models.end());
  if (models.empty()) usage("no model folders in " + a.dir);
  std::printf("{\n");
  for (std::size_t i = 0; i < models.size(); ++i) {
    std::fprintf(stderr, "onnx_models_bench: %s\n", models[i].filename().c_str());
    std::printf("  \"%s\": %s%s\n", models[i].filename().c_str(), bench_model(a, models[i]).c_str(),
                i + 1 < models.size() ? "," : "");
  }
  std::printf("}\n");
  return 0;
}
