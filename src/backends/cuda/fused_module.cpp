#include "backends/cuda/fused_module.h"

#include "base/file_io.h"
#include "base/hash.h"

#include <cuda_runtime.h>
#if RUNG_CUDA_HAVE_NVRTC
#include <nvrtc.h>
#endif

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#ifndef RUNG_CUDA_HAVE_NVRTC
#define RUNG_CUDA_HAVE_NVRTC 0
#endif

namespace rung::cuda {

namespace {

std::mutex g_mutex;
std::map<std::string, std::unique_ptr<FusedKernel>>& cache() {
  static std::map<std::string, std::unique_ptr<FusedKernel>> c;
  return c;
}

std::string device_arch(std::string& error) {
  int dev = 0, major = 0, minor = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess) {
    error = std::string("cannot read the device's compute capability: ") + cudaGetErrorString(cudaGetLastError());
    return {};
  }
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

}  // namespace

bool fused_compiler_available() { return RUNG_CUDA_HAVE_NVRTC != 0; }

std::string fused_cache_dir(const std::string& home) {
  if (home.empty()) return {};
  return (std::filesystem::path(home) / "cuda-fused").string();
}

namespace {

std::string nvrtc_version() {
#if RUNG_CUDA_HAVE_NVRTC
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) == NVRTC_SUCCESS) return std::to_string(major) + "." + std::to_string(minor);
#endif
  return "none";
}

}  // namespace

std::vector<char> fused_cubin(const FusedSource& src, const std::string& arch, const std::string& cache_dir, std::string& error,
                              bool* from_disk) {
  namespace fs = std::filesystem;
  if (from_disk) *from_disk = false;
  if (cache_dir.empty()) return compile_fused_kernel(src, arch, error);
  static const std::string version = nvrtc_version();
  std::string path = (fs::path(cache_dir) / (src.hash + "-" + arch + "-nvrtc" + version + ".cubin")).string();
  {
    DiagnosticSink quiet;  // a missing or unreadable entry is a cache miss
    std::error_code ec;
    if (fs::is_regular_file(path, ec)) {
      if (auto bytes = read_file(path, quiet, std::uint64_t{1} << 30); bytes && bytes->size() > 32) {
        std::size_t n = bytes->size() - 32;
        Hash256 h = sha3_256(std::string_view(bytes->data(), n));
        if (std::memcmp(h.bytes.data(), bytes->data() + n, 32) == 0) {
          if (from_disk) *from_disk = true;
          return std::vector<char>(bytes->begin(), bytes->begin() + static_cast<std::ptrdiff_t>(n));
        }
      }
    }
  }
  std::vector<char> cubin = compile_fused_kernel(src, arch, error);
  if (cubin.empty()) return cubin;
  Hash256 h = sha3_256(std::string_view(cubin.data(), cubin.size()));
  std::vector<std::uint8_t> file(cubin.begin(), cubin.end());
  file.insert(file.end(), h.bytes.begin(), h.bytes.end());
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  DiagnosticSink ignored;  // a read-only home still runs; it only compiles again next time
  if (!ec) write_file_atomic(path, file, ignored);
  return cubin;
}

std::vector<char> compile_fused_kernel(const FusedSource& src, const std::string& arch, std::string& error) {
#if !RUNG_CUDA_HAVE_NVRTC
  (void)src;
  (void)arch;
  error = "this build has no NVRTC";
  return {};
#else
  auto headers = nvrtc_embedded_headers();
  std::vector<const char*> names, texts;
  for (const auto& [n, t] : headers) {
    names.push_back(n);
    texts.push_back(t);
  }
  nvrtcProgram prog = nullptr;
  nvrtcResult rc = nvrtcCreateProgram(&prog, src.source.c_str(), ("rung_fused_" + src.hash.substr(0, 16) + ".cu").c_str(),
                                      static_cast<int>(names.size()), texts.data(), names.data());
  if (rc != NVRTC_SUCCESS) {
    error = std::string("nvrtcCreateProgram: ") + nvrtcGetErrorString(rc);
    return {};
  }
  std::vector<std::string> opts = fused_compile_options(arch);
  std::vector<const char*> o;
  for (const auto& s : opts) o.push_back(s.c_str());
  rc = nvrtcCompileProgram(prog, static_cast<int>(o.size()), o.data());
  std::vector<char> cubin;
  if (rc != NVRTC_SUCCESS) {
    std::size_t n = 0;
    nvrtcGetProgramLogSize(prog, &n);
    std::string log(n, '\0');
    if (n) nvrtcGetProgramLog(prog, log.data());
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    error = std::string("NVRTC could not compile the generated kernel (") + nvrtcGetErrorString(rc) + "): " + log;
  } else {
    std::size_t n = 0;
    if ((rc = nvrtcGetCUBINSize(prog, &n)) == NVRTC_SUCCESS) {
      cubin.resize(n);
      rc = nvrtcGetCUBIN(prog, cubin.data());
    }
    if (rc != NVRTC_SUCCESS || cubin.empty()) {
      error = std::string("nvrtcGetCUBIN: ") + nvrtcGetErrorString(rc);
      cubin.clear();
    }
  }
  nvrtcDestroyProgram(&prog);
  return cubin;
#endif
}

namespace {

unsigned blocks_for(std::uint64_t n, unsigned threads) {
  std::uint64_t b = (n + threads - 1) / threads;
  return static_cast<unsigned>(b < 1 ? 1 : (b > 4096 ? 4096 : b));
}

std::size_t storage_bytes(DType t) { return dtype_info(t).block_bytes; }

}  // namespace

std::vector<std::string> fused_compile_options(const std::string& arch) {
  return {"--gpu-architecture=" + arch, "--fmad=false", "--ftz=false", "--prec-div=true", "--prec-sqrt=true", "-std=c++20"};
}

const FusedKernel* fused_kernel(const FusedSource& src, const std::string& cache_dir, std::string& error) {
  std::string arch = device_arch(error);
  if (arch.empty()) return nullptr;
  std::string key = src.hash + "/" + arch;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = cache().find(key);
    if (it != cache().end()) return it->second.get();
  }
  // Compiled outside the lock: NVRTC is thread-safe, so regions compile concurrently.
  std::vector<char> cubin = fused_cubin(src, arch, cache_dir, error);
  if (cubin.empty()) return nullptr;
  cudaLibrary_t lib = nullptr;
  cudaError_t e = cudaLibraryLoadData(&lib, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
  cudaKernel_t kern = nullptr;
  if (e == cudaSuccess) e = cudaLibraryGetKernel(&kern, lib, kFusedKernelName);
  if (e != cudaSuccess) {
    cudaGetLastError();
    error = std::string("loading the generated kernel: ") + cudaGetErrorString(e);
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  if (auto it = cache().find(key); it != cache().end()) {  // another thread finished first
    cudaLibraryUnload(lib);
    return it->second.get();
  }
  auto k = std::make_unique<FusedKernel>();
  k->kernel = kern;
  k->hash = src.hash;
  k->arch = arch;
  k->args = src.args;
  k->results = src.results;
  return cache().emplace(key, std::move(k)).first->second.get();  // the library stays loaded for the process
}

std::size_t fused_kernels_cached() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return cache().size();
}

int launch_fused(const FusedKernel& k, std::span<const void* const> args, std::span<void* const> results, std::uint64_t n,
                 void* stream) {
  if (args.size() != k.args.size() || results.size() != k.results.size()) return static_cast<int>(cudaErrorInvalidValue);
  // 16-byte (or 4-element) accesses when every full-size operand is aligned for them
  // (broadcast arguments are read element by element: their alignment does not matter).
  bool vec = n >= 4;
  auto aligned = [](const void* p, DType t) {
    std::size_t a = std::min<std::size_t>(16, 4 * storage_bytes(t));
    return reinterpret_cast<std::uintptr_t>(p) % a == 0;
  };
  for (std::size_t i = 0; i < args.size(); ++i)
    if (!k.args[i].scalar && k.args[i].broadcast.empty()) vec = vec && aligned(args[i], k.args[i].dtype);
  for (std::size_t i = 0; i < results.size(); ++i)
    if (!k.results[i].scalar) vec = vec && aligned(results[i], k.results[i].dtype);
  std::vector<const void*> ptrs(args.begin(), args.end());
  ptrs.insert(ptrs.end(), results.begin(), results.end());
  unsigned long long count = n;
  int v = vec ? 1 : 0;
  std::vector<void*> params;
  for (auto& p : ptrs) params.push_back(&p);
  params.push_back(&count);
  params.push_back(&v);
  unsigned blocks = blocks_for(vec ? (n + 3) / 4 : n, 256);
  cudaError_t e = cudaLaunchKernel(static_cast<const void*>(k.kernel), dim3(blocks), dim3(256), params.data(), 0,
                                   static_cast<cudaStream_t>(stream));
  return static_cast<int>(e);
}

}  // namespace rung::cuda
