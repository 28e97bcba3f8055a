// One WebGPU device: instance → adapter → device with the adapter's limits requested, the
// queue, storage buffers, pipelines cached by WGSL text, dispatches, and read-back through
// MAP_READ staging buffers. Errors Dawn reports asynchronously (invalid WGSL, validation,
// out of memory) are collected by the uncaptured-error callback and turned into diagnostics
// at the next synchronisation point (`sync`), never ignored.
//
// Diagnostic codes (A = the WebGPU adapter and backend): A0001 the library cannot be opened, A0002 no
// adapter, A0003 only Dawn's Null backend (outputs would be zeros), A0004 no device,
// A0005 a Dawn error (validation / out of memory / internal / device lost), A0006 a wait timed out,
// A0007 a buffer larger than the device's limits.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backends/webgpu/dawn_api.h"
#include "backends/webgpu/dawn_library.h"
#include "base/diagnostic.h"
#include "runtime/backend_settings.h"
#include "runtime/memory_meter.h"

namespace rung::webgpu {

struct DeviceInfo {
  std::string adapter;       // "SwiftShader Device (LLVM 10.0.0)", "NVIDIA H200"
  std::string vendor, architecture, description;
  std::string backend;       // "vulkan", ...
  std::string adapter_type;  // "cpu", "discrete-gpu", ...
  std::uint32_t vendor_id = 0, device_id = 0, subgroup_min = 0, subgroup_max = 0;
  std::string library;       // path of libwebgpu_wrapper.so
  std::string icd;           // VK_ICD_FILENAMES when rung chose it ("" = the system's drivers)
};

// A storage buffer on the device. Sizes are rounded up to 4 bytes (WGSL arrays of u32).
// Counted by the memory meter active where it is created (runtime/memory_meter.h) until
// it is destroyed, so a run's measured peak includes the device's buffers, as its plan does
// (runtime/memory_model.h).
class GpuBuffer {
 public:
  GpuBuffer() = default;
  GpuBuffer(const api::Functions* f, api::Buffer b, std::uint64_t bytes);
  GpuBuffer(GpuBuffer&& o) noexcept { *this = std::move(o); }
  GpuBuffer& operator=(GpuBuffer&& o) noexcept;
  GpuBuffer(const GpuBuffer&) = delete;
  GpuBuffer& operator=(const GpuBuffer&) = delete;
  ~GpuBuffer();
  api::Buffer handle() const { return b_; }
  std::uint64_t bytes() const { return bytes_; }
  explicit operator bool() const { return b_ != nullptr; }

 private:
  const api::Functions* f_ = nullptr;
  api::Buffer b_ = nullptr;
  std::uint64_t bytes_ = 0;
  runtime::MemoryMeter* meter_ = nullptr;
};

struct BufferRange {
  const GpuBuffer* buffer = nullptr;
  std::uint64_t offset = 0;  // bytes; a multiple of minStorageBufferOffsetAlignment
  std::uint64_t size = 0;    // bytes; 0 = to the end
};

struct Workgroups {
  std::uint32_t x = 1, y = 1, z = 1;
};

class Device {
 public:
  struct Options {
    // Caps on what is requested from the adapter (0 = take the adapter's value). Tests use
    // them to stand in for a device with the W3C default 128 MiB binding limit.
    std::uint64_t max_storage_binding = 0;
    std::uint64_t max_buffer = 0;
  };
  // Null with an A-coded diagnostic naming what is missing and what to use instead.
  // `settings`: RUNG_WEBGPU_ADAPTER (`swiftshader`: SwiftShader's Vulkan driver, which the
  // Vulkan loader is pointed at through the settings' process-variable setter; `system` or
  // unset: the machine's drivers) and RUNG_WEBGPU_LIBRARY (dawn_library.h).
  static std::unique_ptr<Device> open(DiagnosticSink& diags, const runtime::BackendSettings& settings, const Options& options);
  static std::unique_ptr<Device> open(DiagnosticSink& diags, const runtime::BackendSettings& settings) {
    return open(diags, settings, Options{});
  }
  ~Device();

  const DeviceInfo& info() const { return info_; }
  const api::Limits& limits() const { return limits_; }

  // A zero-filled storage buffer (A0007 when over maxBufferSize).
  GpuBuffer create_buffer(std::uint64_t bytes, DiagnosticSink& diags);
  void upload(const GpuBuffer& b, std::span<const std::uint8_t> bytes, std::uint64_t offset = 0);
  // Copies `bytes` from the buffer through a MAP_READ staging buffer and waits.
  bool download(const GpuBuffer& b, std::uint64_t offset, std::span<std::uint8_t> out, DiagnosticSink& diags);

  // The compute pipeline for `wgsl` (entry point `main`, bind group 0), compiled once.
  // Null + A0005 when the WGSL does not compile.
  api::ComputePipeline pipeline(const std::string& wgsl, DiagnosticSink& diags);

  // Records one dispatch; bindings are @binding(0..n-1) of group 0. Submitted in order.
  bool dispatch(api::ComputePipeline p, std::span<const BufferRange> bindings, Workgroups wg, DiagnosticSink& diags);
  // Waits for submitted work; reports the errors Dawn raised since the last sync.
  bool sync(DiagnosticSink& diags);

 private:
  Device() = default;
  bool report_errors(DiagnosticSink& diags);
  bool wait(api::Future f, const char* what, DiagnosticSink& diags);

  const api::Functions* f_ = nullptr;
  api::Instance instance_ = nullptr;
  api::Adapter adapter_ = nullptr;
  api::Device device_ = nullptr;
  api::Queue queue_ = nullptr;
  api::Limits limits_{};
  DeviceInfo info_;
  std::map<std::string, api::ComputePipeline> pipelines_;
  std::vector<std::string> errors_;  // filled by the uncaptured-error / device-lost callbacks
  bool lost_ = false;

  friend struct DeviceCallbacks;
};

}  // namespace rung::webgpu
