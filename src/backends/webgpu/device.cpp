#include "backends/webgpu/device.h"

#include <cstring>

namespace rung::webgpu {

namespace {

constexpr std::uint64_t kWaitNs = 120ull * 1000 * 1000 * 1000;  // generous: SwiftShader on 2 cores is slow

api::StringView sv(std::string_view s) { return {s.data(), s.size()}; }
std::string str(api::StringView v) {
  if (!v.data) return "";
  return v.length == api::kStrlen ? std::string(v.data) : std::string(v.data, v.length);
}

const char* backend_name(std::uint32_t b) {
  switch (b) {
    case api::kBackendNull: return "null";
    case api::kBackendWebGPU: return "webgpu";
    case api::kBackendD3D11: return "d3d11";
    case api::kBackendD3D12: return "d3d12";
    case api::kBackendMetal: return "metal";
    case api::kBackendVulkan: return "vulkan";
    case api::kBackendOpenGL: return "opengl";
    case api::kBackendOpenGLES: return "opengles";
    default: return "undefined";
  }
}
const char* adapter_type_name(std::uint32_t t) {
  switch (t) {
    case api::kAdapterDiscrete: return "discrete-gpu";
    case api::kAdapterIntegrated: return "integrated-gpu";
    case api::kAdapterCPU: return "cpu";
    default: return "unknown";
  }
}
const char* error_type_name(std::uint32_t t) {
  switch (t) {
    case api::kErrorValidation: return "validation error";
    case api::kErrorOutOfMemory: return "out of memory";
    case api::kErrorInternal: return "internal error";
    default: return "error";
  }
}

struct AdapterResult {
  std::uint32_t status = 0;
  api::Adapter adapter = nullptr;
  std::string message;
};
struct DeviceResult {
  std::uint32_t status = 0;
  api::Device device = nullptr;
  std::string message;
};
struct StatusResult {
  std::uint32_t status = 0;
  std::string message;
};

const char* kAlternatives =
    "alternatives: `--backend cpu` or `--backend reference` (no GPU needed); for WebGPU without a GPU, "
    "set RUNG_WEBGPU_ADAPTER=swiftshader (SwiftShader's Vulkan driver from Debian's chromium-common, "
    "installed by scripts/setup.sh)";

// Chooses the Vulkan drivers before Dawn loads them: RUNG_WEBGPU_ADAPTER=swiftshader points
// VK_ICD_FILENAMES at SwiftShader (an ICD json with its absolute path) and gives the loader
// an XDG_RUNTIME_DIR (/tmp) when there is none; otherwise the system's drivers (or the
// caller's VK_ICD_FILENAMES) are used as they are. The Vulkan loader reads both only from
// the process environment, which the library does not write itself: the surface's setter
// in `settings` does (BackendSettings::set_process_variable).
bool choose_icd(DeviceInfo& info, const runtime::BackendSettings& settings, DiagnosticSink& diags) {
  const std::string want = settings.value("RUNG_WEBGPU_ADAPTER");
  if (want.empty() || want == "system") return true;
  if (want != "swiftshader") {
    diags.error("A0002", "RUNG_WEBGPU_ADAPTER=" + want + " is not a known adapter choice")
        .note("use `swiftshader` (software Vulkan) or `system` (the machine's drivers)");
    return false;
  }
  std::string err;
  std::string json = swiftshader_icd_json(err);
  if (json.empty()) {
    diags.error("A0002", "RUNG_WEBGPU_ADAPTER=swiftshader, but SwiftShader cannot be used: " + err)
        .note("scripts/setup.sh installs chromium-common");
    return false;
  }
  if (!settings.set_process_variable) {
    diags.error("A0002", "RUNG_WEBGPU_ADAPTER=swiftshader, but this surface lets rung set no process variable, and the Vulkan "
                         "loader finds SwiftShader only through VK_ICD_FILENAMES")
        .note("set VK_ICD_FILENAMES=" + json + " (and XDG_RUNTIME_DIR) before the process starts, and leave "
              "RUNG_WEBGPU_ADAPTER unset or `system`");
    return false;
  }
  settings.set_process_variable("VK_ICD_FILENAMES", json, true);
  settings.set_process_variable("XDG_RUNTIME_DIR", "/tmp", false);
  info.icd = json;
  return true;
}

}  // namespace

struct DeviceCallbacks {
  static void adapter(std::uint32_t status, api::Adapter a, api::StringView msg, void* ud1, void*) {
    auto* r = static_cast<AdapterResult*>(ud1);
    r->status = status;
    r->adapter = a;
    r->message = str(msg);
  }
  static void device(std::uint32_t status, api::Device d, api::StringView msg, void* ud1, void*) {
    auto* r = static_cast<DeviceResult*>(ud1);
    r->status = status;
    r->device = d;
    r->message = str(msg);
  }
  static void status(std::uint32_t status, api::StringView msg, void* ud1, void*) {
    auto* r = static_cast<StatusResult*>(ud1);
    r->status = status;
    r->message = str(msg);
  }
  static void uncaptured(const api::Device*, std::uint32_t type, api::StringView msg, void* ud1, void*) {
    auto* self = static_cast<Device*>(ud1);
    self->errors_.push_back(std::string(error_type_name(type)) + ": " + str(msg));
  }
  static void lost(const api::Device*, std::uint32_t reason, api::StringView msg, void* ud1, void*) {
    auto* self = static_cast<Device*>(ud1);
    if (!self) return;
    // reason 2 = destroyed (our own teardown), 3 = callback cancelled: not errors.
    if (reason == 2 || reason == 3) return;
    self->lost_ = true;
    self->errors_.push_back("device lost: " + str(msg));
  }
};

GpuBuffer::GpuBuffer(const api::Functions* f, api::Buffer b, std::uint64_t bytes) : f_(f), b_(b), bytes_(bytes) {
  if (b_ && (meter_ = runtime::active_meter())) meter_->allocate(bytes_);
}

GpuBuffer& GpuBuffer::operator=(GpuBuffer&& o) noexcept {
  if (this != &o) {
    this->~GpuBuffer();
    f_ = o.f_;
    b_ = o.b_;
    bytes_ = o.bytes_;
    meter_ = o.meter_;
    o.b_ = nullptr;
    o.meter_ = nullptr;
  }
  return *this;
}

GpuBuffer::~GpuBuffer() {
  if (b_) {
    if (meter_) meter_->release(bytes_);
    meter_ = nullptr;
    f_->bufferDestroy(b_);
    f_->bufferRelease(b_);
    b_ = nullptr;
  }
}

std::unique_ptr<Device> Device::open(DiagnosticSink& diags, const runtime::BackendSettings& settings, const Options& options) {
  std::unique_ptr<Device> d(new Device);
  if (!choose_icd(d->info_, settings, diags)) return nullptr;
  std::string err;
  const DawnLibrary* lib = dawn_library(settings.value("RUNG_WEBGPU_LIBRARY"), err);
  if (!lib) {
    diags.error("A0001", "the WebGPU backend cannot load Dawn: " + err).note(kAlternatives);
    return nullptr;
  }
  d->f_ = &lib->fn;
  d->info_.library = lib->path;
  const api::Functions& f = *d->f_;

  api::InstanceDescriptor idesc{};
  idesc.capabilities.timedWaitAnyEnable = 1;
  idesc.capabilities.timedWaitAnyMaxCount = 1;
  d->instance_ = f.createInstance(&idesc);
  if (!d->instance_) {
    diags.error("A0001", "Dawn could not create a WebGPU instance").note(kAlternatives);
    return nullptr;
  }

  api::RequestAdapterOptions aopt{};
  aopt.featureLevel = api::kFeatureLevelCore;
  aopt.powerPreference = api::kPowerPreferenceHighPerformance;
  AdapterResult ar;
  api::CallbackInfo<api::RequestAdapterCallback> acb{nullptr, api::kCallbackModeWaitAnyOnly, &DeviceCallbacks::adapter, &ar, nullptr};
  if (!d->wait(f.instanceRequestAdapter(d->instance_, &aopt, acb), "requestAdapter", diags)) return nullptr;
  if (ar.status != api::kStatusSuccess || !ar.adapter) {
    auto& e = diags.error("A0002", "no WebGPU adapter on this machine" + (ar.message.empty() ? "" : " (" + ar.message + ")"));
    e.note(lib->vulkan_loader.empty() ? "no Vulkan loader (libvulkan.so.1) was found" : "Dawn found no usable Vulkan device");
    e.note(kAlternatives);
    return nullptr;
  }
  d->adapter_ = ar.adapter;

  // Dawn may write more than this struct in later versions: give it room.
  alignas(8) unsigned char info_storage[512] = {};
  auto* ai = reinterpret_cast<api::AdapterInfo*>(info_storage);
  if (f.adapterGetInfo(d->adapter_, ai) == api::kStatusSuccess) {
    d->info_.adapter = str(ai->device);
    d->info_.vendor = str(ai->vendor);
    d->info_.architecture = str(ai->architecture);
    d->info_.description = str(ai->description);
    d->info_.backend = backend_name(ai->backendType);
    d->info_.adapter_type = adapter_type_name(ai->adapterType);
    d->info_.vendor_id = ai->vendorID;
    d->info_.device_id = ai->deviceID;
    d->info_.subgroup_min = ai->subgroupMinSize;
    d->info_.subgroup_max = ai->subgroupMaxSize;
    std::uint32_t backend = ai->backendType;
    f.adapterInfoFreeMembers(*ai);
    if (backend == api::kBackendNull) {
      // Dawn hands back its Null backend when no real driver is accepted: every output would be 0.
      diags.error("A0003", "no usable WebGPU adapter on this machine: Dawn offers only its Null backend (no GPU driver "
                           "was accepted), whose outputs are all zeros; refused")
          .note(kAlternatives);
      return nullptr;
    }
  }

  api::Limits want{};
  if (f.adapterGetLimits(d->adapter_, &want) != api::kStatusSuccess) {
    diags.error("A0004", "the WebGPU adapter did not report its limits").note(kAlternatives);
    return nullptr;
  }
  want.nextInChain = nullptr;
  if (options.max_storage_binding && options.max_storage_binding < want.maxStorageBufferBindingSize)
    want.maxStorageBufferBindingSize = options.max_storage_binding;
  if (options.max_buffer && options.max_buffer < want.maxBufferSize) want.maxBufferSize = options.max_buffer;

  api::DeviceDescriptor ddesc{};
  ddesc.label = sv("rung");
  ddesc.requiredLimits = &want;
  ddesc.deviceLostCallbackInfo = {nullptr, api::kCallbackModeAllowSpontaneous, &DeviceCallbacks::lost, d.get(), nullptr};
  ddesc.uncapturedErrorCallbackInfo = {nullptr, &DeviceCallbacks::uncaptured, d.get(), nullptr};
  DeviceResult dr;
  api::CallbackInfo<api::RequestDeviceCallback> dcb{nullptr, api::kCallbackModeWaitAnyOnly, &DeviceCallbacks::device, &dr, nullptr};
  if (!d->wait(f.adapterRequestDevice(d->adapter_, &ddesc, dcb), "requestDevice", diags)) return nullptr;
  if (dr.status != api::kStatusSuccess || !dr.device) {
    diags.error("A0004", "the WebGPU adapter '" + d->info_.adapter + "' gave no device: " + dr.message).note(kAlternatives);
    return nullptr;
  }
  d->device_ = dr.device;
  d->queue_ = f.deviceGetQueue(d->device_);
  if (f.deviceGetLimits(d->device_, &d->limits_) != api::kStatusSuccess) d->limits_ = want;
  return d;
}

Device::~Device() {
  if (!f_) return;
  for (auto& [_, p] : pipelines_) f_->computePipelineRelease(p);
  if (queue_) f_->queueRelease(queue_);
  if (device_) {
    f_->deviceDestroy(device_);
    f_->deviceRelease(device_);
  }
  if (adapter_) f_->adapterRelease(adapter_);
  if (instance_) f_->instanceRelease(instance_);
}

bool Device::wait(api::Future fut, const char* what, DiagnosticSink& diags) {
  api::FutureWaitInfo w{fut, 0};
  std::uint32_t st = f_->instanceWaitAny(instance_, 1, &w, kWaitNs);
  if (st != api::kWaitStatusSuccess || !w.completed) {
    diags.error("A0006", std::string("WebGPU: waiting for ") + what +
                             (st == api::kWaitStatusTimedOut ? " timed out" : " failed (status " + std::to_string(st) + ")"));
    return false;
  }
  return true;
}

bool Device::report_errors(DiagnosticSink& diags) {
  if (errors_.empty()) return true;
  for (const auto& e : errors_) diags.error("A0005", "WebGPU " + e).note("adapter: " + info_.adapter + " (" + info_.backend + ")");
  errors_.clear();
  return false;
}

GpuBuffer Device::create_buffer(std::uint64_t bytes, DiagnosticSink& diags) {
  std::uint64_t padded = (bytes + 3) / 4 * 4;
  if (padded == 0) padded = 4;
  if (padded > limits_.maxBufferSize) {
    diags.error("A0007", "a buffer of " + std::to_string(bytes) + " bytes exceeds the device's maxBufferSize (" +
                             std::to_string(limits_.maxBufferSize) + ")");
    return {};
  }
  api::BufferDescriptor bd{};
  bd.label = sv("rung.tensor");
  bd.usage = api::kBufferUsageStorage | api::kBufferUsageCopySrc | api::kBufferUsageCopyDst;
  bd.size = padded;
  api::Buffer b = f_->deviceCreateBuffer(device_, &bd);
  return GpuBuffer(f_, b, padded);
}

void Device::upload(const GpuBuffer& b, std::span<const std::uint8_t> bytes, std::uint64_t offset) {
  // writeBuffer needs a multiple of 4 bytes.
  std::size_t whole = bytes.size() / 4 * 4;
  if (whole) f_->queueWriteBuffer(queue_, b.handle(), offset, bytes.data(), whole);
  if (whole != bytes.size()) {
    std::uint8_t tail[4] = {};
    std::memcpy(tail, bytes.data() + whole, bytes.size() - whole);
    f_->queueWriteBuffer(queue_, b.handle(), offset + whole, tail, 4);
  }
}

bool Device::download(const GpuBuffer& b, std::uint64_t offset, std::span<std::uint8_t> out, DiagnosticSink& diags) {
  if (out.empty()) return sync(diags);
  std::uint64_t size = (out.size() + 3) / 4 * 4;
  api::BufferDescriptor bd{};
  bd.label = sv("rung.readback");
  bd.usage = api::kBufferUsageMapRead | api::kBufferUsageCopyDst;
  bd.size = size;
  GpuBuffer staging(f_, f_->deviceCreateBuffer(device_, &bd), size);
  api::CommandEncoder enc = f_->deviceCreateCommandEncoder(device_, nullptr);
  f_->commandEncoderCopyBufferToBuffer(enc, b.handle(), offset, staging.handle(), 0, size);
  api::CommandBuffer cb = f_->commandEncoderFinish(enc, nullptr);
  f_->queueSubmit(queue_, 1, &cb);
  f_->commandBufferRelease(cb);
  f_->commandEncoderRelease(enc);
  StatusResult mr;
  api::CallbackInfo<api::BufferMapCallback> mcb{nullptr, api::kCallbackModeWaitAnyOnly, &DeviceCallbacks::status, &mr, nullptr};
  if (!wait(f_->bufferMapAsync(staging.handle(), api::kMapModeRead, 0, size, mcb), "mapAsync", diags)) return false;
  bool ok = report_errors(diags);
  if (mr.status != api::kStatusSuccess) {
    diags.error("A0005", "WebGPU: reading a result back failed: " + mr.message);
    return false;
  }
  const void* p = f_->bufferGetConstMappedRange(staging.handle(), 0, size);
  if (!p) {
    diags.error("A0005", "WebGPU: the read-back buffer could not be mapped");
    return false;
  }
  std::memcpy(out.data(), p, out.size());
  f_->bufferUnmap(staging.handle());
  return ok;
}

api::ComputePipeline Device::pipeline(const std::string& wgsl, DiagnosticSink& diags) {
  if (auto it = pipelines_.find(wgsl); it != pipelines_.end()) return it->second;
  api::ShaderSourceWGSL src{{nullptr, api::kSTypeShaderSourceWGSL}, sv(wgsl)};
  api::ShaderModuleDescriptor sd{reinterpret_cast<const api::ChainedStruct*>(&src), sv("rung.kernel")};
  api::ShaderModule m = f_->deviceCreateShaderModule(device_, &sd);
  api::ComputePipelineDescriptor pd{};
  pd.label = sv("rung.kernel");
  pd.compute.module = m;
  pd.compute.entryPoint = sv("main");
  api::ComputePipeline p = f_->deviceCreateComputePipeline(device_, &pd);
  f_->shaderModuleRelease(m);
  // Invalid WGSL still yields handles; the errors arrive through the callback.
  f_->instanceProcessEvents(instance_);
  if (!errors_.empty() || !p) {
    report_errors(diags);
    if (p) f_->computePipelineRelease(p);
    diags.last().note("while compiling a generated WGSL kernel (`rung show --rung kernel --backend webgpu` prints it)");
    return nullptr;
  }
  pipelines_.emplace(wgsl, p);
  return p;
}

bool Device::dispatch(api::ComputePipeline p, std::span<const BufferRange> bindings, Workgroups wg, DiagnosticSink& diags) {
  const std::uint32_t maxwg = limits_.maxComputeWorkgroupsPerDimension;
  if (wg.x > maxwg || wg.y > maxwg || wg.z > maxwg) {
    diags.error("A0007", "a dispatch of " + std::to_string(wg.x) + "x" + std::to_string(wg.y) + "x" + std::to_string(wg.z) +
                             " workgroups exceeds maxComputeWorkgroupsPerDimension (" + std::to_string(maxwg) + ")");
    return false;
  }
  if (wg.x == 0 || wg.y == 0 || wg.z == 0) return true;
  std::vector<api::BindGroupEntry> entries(bindings.size());
  for (std::size_t i = 0; i < bindings.size(); ++i) {
    const BufferRange& r = bindings[i];
    std::uint64_t size = r.size ? (r.size + 3) / 4 * 4 : r.buffer->bytes() - r.offset;
    if (size > limits_.maxStorageBufferBindingSize) {
      diags.error("A0007", "a binding of " + std::to_string(size) + " bytes exceeds maxStorageBufferBindingSize (" +
                               std::to_string(limits_.maxStorageBufferBindingSize) + ")");
      return false;
    }
    entries[i] = {nullptr, static_cast<std::uint32_t>(i), r.buffer->handle(), r.offset, size, nullptr, nullptr};
  }
  api::BindGroupLayout layout = f_->computePipelineGetBindGroupLayout(p, 0);
  api::BindGroupDescriptor bgd{nullptr, sv("rung.bindings"), layout, entries.size(), entries.data()};
  api::BindGroup bg = f_->deviceCreateBindGroup(device_, &bgd);
  api::CommandEncoder enc = f_->deviceCreateCommandEncoder(device_, nullptr);
  api::ComputePassEncoder pass = f_->commandEncoderBeginComputePass(enc, nullptr);
  f_->computePassEncoderSetPipeline(pass, p);
  f_->computePassEncoderSetBindGroup(pass, 0, bg, 0, nullptr);
  f_->computePassEncoderDispatchWorkgroups(pass, wg.x, wg.y, wg.z);
  f_->computePassEncoderEnd(pass);
  api::CommandBuffer cb = f_->commandEncoderFinish(enc, nullptr);
  f_->queueSubmit(queue_, 1, &cb);
  f_->commandBufferRelease(cb);
  f_->computePassEncoderRelease(pass);
  f_->commandEncoderRelease(enc);
  f_->bindGroupRelease(bg);
  f_->bindGroupLayoutRelease(layout);
  return errors_.empty() || report_errors(diags);
}

bool Device::sync(DiagnosticSink& diags) {
  StatusResult r;
  api::CallbackInfo<api::QueueWorkDoneCallback> cb{nullptr, api::kCallbackModeWaitAnyOnly, &DeviceCallbacks::status, &r, nullptr};
  if (!wait(f_->queueOnSubmittedWorkDone(queue_, cb), "the queue", diags)) return false;
  return report_errors(diags);
}

}  // namespace rung::webgpu
