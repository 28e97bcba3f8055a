// Host side of the CUDA backend: device memory as values (DevTensor), the context that owns
// the stream, cuBLAS handle and pinned staging buffer, and the per-op device kernels.
// Every CUDA call goes through `Context::check`, so a failure becomes a diagnostic (U0002),
// never silently wrong data.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "ops/host_tensor.h"
#include "ops/registry.h"
#include "ops/tier.h"
#include "runtime/backend_settings.h"
#include "runtime/op_backend.h"

namespace rung::cuda {

class Context;

// A buffer in device memory, freed (stream-ordered) when the last DevTensor using it goes.
struct DevBuffer {
  void* ptr = nullptr;
  std::uint64_t bytes = 0;
  Context* ctx = nullptr;
  ~DevBuffer();
};

struct DevTensor {
  DType dtype = DType::f32;
  ops::Extents shape;
  std::shared_ptr<DevBuffer> buf;
  // Written by a registry kernel, so every NaN in it is already the canonical one (each op
  // stores NaNs canonically): copying ops may then move its bits without a canonicalising
  // pass, and a reshape may share its buffer. False for uploads (arguments, constants) and
  // for fused-call results, whose payloads nobody vouched for.
  bool canonical_nans = false;
  std::uint64_t numel() const { return ops::element_count(shape); }
  void* data() const { return buf ? buf->ptr : nullptr; }
};

class Context {
 public:
  // Null (with U0001 naming the alternatives) when no usable device is present.
  static std::unique_ptr<Context> create(ops::Tier tier, DiagnosticSink& diags);
  ~Context();

  ops::Tier tier() const { return tier_; }
  const runtime::DeviceProfile& profile() const { return profile_; }
  void* stream() const { return stream_; }
  void* cublas() const { return cublas_; }

  // `err` is a cudaError_t (or a cuBLAS status when `cublas`); false + U0002 on failure.
  bool check(int err, const std::string& what, DiagnosticSink& diags, bool cublas = false);

  std::optional<DevTensor> alloc(DType dt, ops::Extents shape, DiagnosticSink& diags);
  std::optional<DevTensor> upload(const ops::HostTensor& t, DiagnosticSink& diags);
  std::optional<ops::HostTensor> download(const DevTensor& t, DiagnosticSink& diags);
  bool sync(DiagnosticSink& diags);

  // Transfer counters (recorded for run records and benchmarks).
  std::uint64_t bytes_up = 0, bytes_down = 0, uploads = 0, downloads = 0;
  // Tier fast matmul/linear: calls that ran on cuBLAS, and calls its guard gave to the exact
  // kernel (an empty extent, a non-finite operand, or magnitudes that could overflow).
  std::uint64_t fast_matmul_cublas = 0, fast_matmul_exact = 0;
  // Tier fast attention: calls on the flash kernel, and calls its guard gave to the exact one.
  std::uint64_t fast_attention_flash = 0, fast_attention_exact = 0;
  // Fused elementwise calls: run as one generated kernel, or node by node (the generator
  // could not handle the region, or fusion is off); per region name, the generated
  // kernel's source hash or "op by op: <why>" (cuda_fused.h).
  std::uint64_t fused_one_kernel = 0, fused_op_by_op = 0;
  std::map<std::string, std::string> fused_kernels;
  bool fuse_elementwise = true;  // RUNG_CUDA_FUSION=off turns the generated kernels off (for comparisons)
  // Where compiled fused kernels are kept between processes (fused_module.h); empty: not on disk.
  std::string fused_cache_dir;

 private:
  Context() = default;
  ops::Tier tier_ = ops::Tier::debug;
  runtime::DeviceProfile profile_;
  void* stream_ = nullptr;
  void* cublas_ = nullptr;
  void* pinned_ = nullptr;
  std::uint64_t pinned_bytes_ = 0;
  bool ensure_pinned(std::uint64_t bytes, DiagnosticSink& diags);
};

// A device kernel for one op: inputs on the device, resolved attributes, outputs allocated
// with the types the registry's shape rule inferred (data-dependent shapes are not offered).
using DevKernel = std::function<bool(Context&, std::span<const DevTensor>, const ops::Attrs&, std::vector<DevTensor>&,
                                     DiagnosticSink&)>;
const DevKernel* find_dev_kernel(std::string_view op);
std::vector<std::string> dev_kernel_names();

// Runs `op` on device tensors: type inference through the registry, output allocation,
// the kernel. Diagnostics as ops::evaluate (N0010/N0011/N0013), device failures U0002.
std::optional<std::vector<DevTensor>> run_dev(Context& ctx, const ops::OpDef& op, std::span<const DevTensor> inputs,
                                              const AttrMap& attrs, DiagnosticSink& diags);

// cuBLAS for tier fast: SGEMM for f32 operands, BF16 tensor cores for bf16 (f32 accumulate).
struct MatmulSpec;
// Whether cuBLAS may run this product within matmul's fast class (`admit`); false only on a
// device failure (U0002). See cublas_fast.cpp for the rule.
bool fast_matmul_admits(Context& ctx, const DevTensor& a, const DevTensor& b, const DevTensor& c, const MatmulSpec& m,
                        bool& admit, DiagnosticSink& diags);
bool fast_matmul(Context& ctx, const DevTensor& a, const DevTensor& b, DevTensor& c, const MatmulSpec& m, DiagnosticSink& diags);

// The backend (registered as "cuda"). Settings: RUNG_CUDA_FUSION=off runs fused regions op
// by op; `home` holds the fused-kernel cache (home/cuda-fused).
std::unique_ptr<runtime::OpBackend> make_cuda_backend(ops::Tier tier, DiagnosticSink& diags, const runtime::BackendSettings& settings);

// For callers that keep values on the device across runs (benchmarks): the backend's
// context (its stream, counters and fused-kernel record), and run_region without its uploads
// and downloads (arguments and results stay device values; it syncs before returning).
// `backend` must be one make_cuda_backend made (checked).
Context& context_of(runtime::OpBackend& backend);
std::optional<std::vector<DevTensor>> run_region_on_device(runtime::OpBackend& backend, const Graph& g, RegionId region,
                                                           std::span<const DevTensor> args, DiagnosticSink& diags);

}  // namespace rung::cuda
