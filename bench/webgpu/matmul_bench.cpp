// WGSL matmul throughput: C = A B for square f32 N x N on the WebGPU device, buffers resident,
// the generated tiled kernel (the one `rung show --rung kernel --backend webgpu matmul` prints).
// Times R back-to-back dispatches between two queue syncs (wall clock, includes submission);
// checks 64 entries against a binary64 dot product.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "api/backend_settings.h"
#include "backends/webgpu/device.h"
#include "backends/webgpu/executor.h"
#include "ops/registry.h"

using namespace rung;

int main(int argc, char** argv) {
  std::vector<std::uint64_t> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::stoull(argv[i]));
  if (sizes.empty()) sizes = {1024, 2048, 4096};
  DiagnosticSink d;
  auto dev = webgpu::Device::open(d, api::backend_settings(Environment::from_process()));
  if (!dev) {
    for (const auto& x : d.all()) std::fprintf(stderr, "%s: %s\n", x.code.c_str(), x.message.c_str());
    return 1;
  }
  webgpu::Executor ex(*dev);
  if (!ex.probe_fused_fma(d)) return 1;
  std::printf("adapter: %s (%s, %s), fma %s\n", dev->info().adapter.c_str(), dev->info().backend.c_str(),
              dev->info().description.c_str(), ex.fused_fma() ? "fused" : "emulated");
  const ops::OpDef* mm = ops::op_registry().find("matmul");
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  for (std::uint64_t n : sizes) {
    std::vector<float> a(n * n), b(n * n);
    for (auto& v : a) v = u(rng);
    for (auto& v : b) v = u(rng);
    auto A = ex.upload(ops::HostTensor::from_f32({n, n}, a), d);
    auto B = ex.upload(ops::HostTensor::from_f32({n, n}, b), d);
    if (!A || !B) return 1;
    webgpu::DevTensor in[2] = {*A, *B};
    auto warm = ex.apply(*mm, in, {}, d);  // compiles the pipeline
    if (!warm || !dev->sync(d)) {
      for (const auto& x : d.all()) std::fprintf(stderr, "%s: %s\n", x.code.c_str(), x.message.c_str());
      return 1;
    }
    int reps = n <= 1024 ? 20 : n <= 2048 ? 10 : 5;
    auto t0 = std::chrono::steady_clock::now();
    std::optional<std::vector<webgpu::DevTensor>> out;
    for (int r = 0; r < reps; ++r) out = ex.apply(*mm, in, {}, d);
    if (!out || !dev->sync(d)) return 1;
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / reps;
    double tflops = 2.0 * n * n * n / s / 1e12;
    auto C = ex.download((*out)[0], d);
    double maxrel = 0;
    for (int k = 0; k < 64; ++k) {
      std::uint64_t i = (k * 7919u) % n, j = (k * 104729u) % n;
      double ref = 0, mag = 0;
      for (std::uint64_t t = 0; t < n; ++t) {
        ref += static_cast<double>(a[i * n + t]) * b[t * n + j];
        mag += std::fabs(static_cast<double>(a[i * n + t]) * b[t * n + j]);
      }
      maxrel = std::max(maxrel, std::fabs(C->raw<float>(i * n + j) - ref) / mag);
    }
    std::printf("matmul f32 %llu^3: %.3f ms/run, %.2f TFLOP/s (reps %d); max |err|/sum|terms| over 64 entries %.2e\n",
                static_cast<unsigned long long>(n), s * 1e3, tflops, reps, maxrel);
  }
  return 0;
}
