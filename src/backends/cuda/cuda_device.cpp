// Device probe, memory and transfers. The probe fills the DeviceProfile that receipts and
// run records bind results to: device name, SM count, memory, compute capability, driver,
// runtime and cuBLAS versions.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstring>

#include "backends/cuda/cuda_context.h"

namespace rung::cuda {

namespace {

std::string version_string(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

}  // namespace

DevBuffer::~DevBuffer() {
  if (ptr) cudaFreeAsync(ptr, static_cast<cudaStream_t>(ctx->stream()));  // errors surface at the next checked call
}

std::unique_ptr<Context> Context::create(ops::Tier tier, DiagnosticSink& diags) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    diags.error("U0001", std::string("the cuda backend cannot run here: ") +
                             (e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device is present"))
        .note("the reference backend (`--backend reference`) runs on any machine");
    cudaGetLastError();
    return nullptr;
  }
  std::unique_ptr<Context> c(new Context);
  c->tier_ = tier;
  cudaDeviceProp p{};
  if (!c->check(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties", diags)) return nullptr;
  if (!c->check(cudaSetDevice(0), "cudaSetDevice", diags)) return nullptr;
  int driver = 0, runtime_v = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime_v);
  cudaStream_t s = nullptr;
  if (!c->check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate", diags)) return nullptr;
  c->stream_ = s;
  cublasHandle_t h = nullptr;
  if (!c->check(cublasCreate(&h), "cublasCreate", diags, true)) return nullptr;
  c->cublas_ = h;
  if (!c->check(cublasSetStream(h, s), "cublasSetStream", diags, true)) return nullptr;
  int cublas_v = 0;
  cublasGetVersion(h, &cublas_v);
  // Keep freed blocks in the stream-ordered pool: regions allocate and free per node.
  cudaMemPool_t pool;
  if (cudaDeviceGetDefaultMemPool(&pool, 0) == cudaSuccess) {
    std::uint64_t threshold = ~std::uint64_t{0};
    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
  }
  auto& prof = c->profile_;
  prof.backend = "cuda";
  prof.device = p.name;
  prof.facts["compute_capability"] = std::to_string(p.major) + "." + std::to_string(p.minor);
  prof.facts["sm_count"] = std::to_string(p.multiProcessorCount);
  prof.facts["memory_bytes"] = std::to_string(p.totalGlobalMem);
  prof.facts["driver"] = version_string(driver);
  prof.facts["cuda_runtime"] = version_string(runtime_v);
  prof.facts["cublas"] = std::to_string(cublas_v);
  prof.facts["tier"] = std::string(ops::tier_name(tier));
  prof.facts["exact_flags"] = "--fmad=false -ftz=false -prec-div=true -prec-sqrt=true";
  return c;
}

Context::~Context() {
  if (stream_) cudaStreamSynchronize(static_cast<cudaStream_t>(stream_));
  if (pinned_) cudaFreeHost(pinned_);
  if (cublas_) cublasDestroy(static_cast<cublasHandle_t>(cublas_));
  if (stream_) cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
}

bool Context::check(int err, const std::string& what, DiagnosticSink& diags, bool cublas) {
  if (err == 0) return true;
  std::string msg = cublas ? "cuBLAS status " + std::to_string(err)
                           : std::string(cudaGetErrorName(static_cast<cudaError_t>(err))) + ": " +
                                 cudaGetErrorString(static_cast<cudaError_t>(err));
  diags.error("U0002", "CUDA failure in " + what + ": " + msg)
      .note("the result was not produced; nothing computed after the failure is returned");
  if (!cublas) cudaGetLastError();  // clear a non-sticky error so later calls report their own
  return false;
}

std::optional<DevTensor> Context::alloc(DType dt, ops::Extents shape, DiagnosticSink& diags) {
  auto bytes = ops::HostTensor::checked_bytes(dt, shape);
  if (!bytes) {
    diags.error("N0013", "a " + std::string(dtype_name(dt)) + ops::extents_to_string(shape) + " tensor is too large");
    return std::nullopt;
  }
  DevTensor t{dt, std::move(shape), std::make_shared<DevBuffer>()};
  t.buf->ctx = this;
  t.buf->bytes = *bytes;
  if (*bytes > 0 &&
      !check(cudaMallocAsync(&t.buf->ptr, *bytes, static_cast<cudaStream_t>(stream_)), "cudaMallocAsync(" + std::to_string(*bytes) + " bytes)", diags))
    return std::nullopt;
  return t;
}

bool Context::ensure_pinned(std::uint64_t bytes, DiagnosticSink& diags) {
  if (bytes <= pinned_bytes_) return true;
  if (!sync(diags)) return false;
  if (pinned_) cudaFreeHost(pinned_);
  pinned_ = nullptr;
  pinned_bytes_ = 0;
  if (!check(cudaMallocHost(&pinned_, bytes), "cudaMallocHost", diags)) return false;
  pinned_bytes_ = bytes;
  return true;
}

// Transfers go through one pinned staging buffer (one copy into it, one DMA), in slices of
// at most 64 MiB so the buffer stays small.
std::optional<DevTensor> Context::upload(const ops::HostTensor& h, DiagnosticSink& diags) {
  auto t = alloc(h.dtype(), h.shape(), diags);
  if (!t) return std::nullopt;
  const std::uint64_t total = h.bytes().size(), slice = std::uint64_t{64} << 20;
  if (total == 0) return t;
  if (!ensure_pinned(total < slice ? total : slice, diags)) return std::nullopt;
  auto s = static_cast<cudaStream_t>(stream_);
  for (std::uint64_t off = 0; off < total; off += slice) {
    std::uint64_t n = total - off < slice ? total - off : slice;
    if (!check(cudaStreamSynchronize(s), "cudaStreamSynchronize", diags)) return std::nullopt;  // staging reuse
    std::memcpy(pinned_, h.bytes().data() + off, n);
    if (!check(cudaMemcpyAsync(static_cast<char*>(t->data()) + off, pinned_, n, cudaMemcpyHostToDevice, s),
               "cudaMemcpyAsync (upload)", diags))
      return std::nullopt;
  }
  bytes_up += total;
  ++uploads;
  return t;
}

std::optional<ops::HostTensor> Context::download(const DevTensor& t, DiagnosticSink& diags) {
  ops::HostTensor h(t.dtype, t.shape);
  const std::uint64_t total = h.bytes().size(), slice = std::uint64_t{64} << 20;
  if (total == 0) return h;
  if (!ensure_pinned(total < slice ? total : slice, diags)) return std::nullopt;
  auto s = static_cast<cudaStream_t>(stream_);
  for (std::uint64_t off = 0; off < total; off += slice) {
    std::uint64_t n = total - off < slice ? total - off : slice;
    if (!check(cudaMemcpyAsync(pinned_, static_cast<const char*>(t.data()) + off, n, cudaMemcpyDeviceToHost, s),
               "cudaMemcpyAsync (download)", diags) ||
        !check(cudaStreamSynchronize(s), "cudaStreamSynchronize (download)", diags))
      return std::nullopt;
    std::memcpy(h.bytes().data() + off, pinned_, n);
  }
  bytes_down += total;
  ++downloads;
  return h;
}

bool Context::sync(DiagnosticSink& diags) {
  return check(cudaStreamSynchronize(static_cast<cudaStream_t>(stream_)), "cudaStreamSynchronize", diags);
}

}  // namespace rung::cuda
