// What the tier-fast tests share: a fast-tier context (or a loud skip), and one op run on the
// device and on the reference from the same inputs, for the caller to judge.
#pragma once

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/cuda/cuda_context.h"
#include "ops/evaluate.h"

namespace rung::cuda_test {

inline std::unique_ptr<cuda::Context> fast_context(const char* suite) {
  DiagnosticSink d;
  auto ctx = cuda::Context::create(ops::Tier::fast, d);
  if (!ctx) std::fprintf(stderr, "\n*** SKIPPED: no CUDA device here; the %s tests did not run ***\n", suite);
  return ctx;
}

struct DeviceAndReference {
  ops::HostTensor got;  // the device's first result
  ops::HostTensor ref;  // the reference's
};

// nullopt with `error` set when an upload, the device op, the download or the reference fails.
inline std::optional<DeviceAndReference> run_device_and_reference(cuda::Context& ctx, const ops::OpDef& op,
                                                                  const std::vector<ops::HostTensor>& in,
                                                                  const AttrMap& attrs, std::string& error) {
  DiagnosticSink d;
  auto first_message = [&](const char* what) {
    error = std::string(what) + (d.all().empty() ? "" : ": " + d.all()[0].message);
    return std::nullopt;
  };
  std::vector<cuda::DevTensor> dev;
  for (const auto& t : in) {
    auto u = ctx.upload(t, d);
    if (!u) return first_message("upload");
    dev.push_back(*u);
  }
  auto out = cuda::run_dev(ctx, op, dev, attrs, d);
  if (!out) return first_message("device op");
  auto got = ctx.download((*out)[0], d);
  if (!got) return first_message("download");
  auto ref = ops::evaluate(op, in, attrs, d);
  if (!ref) return first_message("reference");
  return DeviceAndReference{std::move(*got), std::move((*ref)[0])};
}

}  // namespace rung::cuda_test
