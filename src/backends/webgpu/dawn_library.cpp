#include "backends/webgpu/dawn_library.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <vector>

#ifndef RUNG_WEBGPU_DEPS_DIR
#define RUNG_WEBGPU_DEPS_DIR ""
#endif

namespace rung::webgpu {
namespace {

constexpr const char* kSwiftShaderDir = "/usr/lib/chromium";

std::string open_vulkan_loader() {
  for (const char* cand : {"libvulkan.so.1", "/usr/lib/chromium/libvulkan.so.1"})
    if (dlopen(cand, RTLD_NOW | RTLD_GLOBAL)) return cand;
  return "";
}

template <typename F>
bool resolve(void* h, const char* name, F& slot, std::string& missing) {
  void* p = dlsym(h, name);
  if (!p) {
    if (missing.empty()) missing = name;
    return false;
  }
  slot = reinterpret_cast<F>(p);
  return true;
}

bool resolve_all(void* h, api::Functions& f, std::string& missing) {
  bool ok = true;
#define RUNG_WGPU(slot, sym) ok &= resolve(h, sym, f.slot, missing)
  RUNG_WGPU(createInstance, "wgpuCreateInstance");
  RUNG_WGPU(instanceRequestAdapter, "wgpuInstanceRequestAdapter");
  RUNG_WGPU(instanceWaitAny, "wgpuInstanceWaitAny");
  RUNG_WGPU(instanceProcessEvents, "wgpuInstanceProcessEvents");
  RUNG_WGPU(instanceRelease, "wgpuInstanceRelease");
  RUNG_WGPU(adapterGetInfo, "wgpuAdapterGetInfo");
  RUNG_WGPU(adapterInfoFreeMembers, "wgpuAdapterInfoFreeMembers");
  RUNG_WGPU(adapterGetLimits, "wgpuAdapterGetLimits");
  RUNG_WGPU(adapterRequestDevice, "wgpuAdapterRequestDevice");
  RUNG_WGPU(adapterRelease, "wgpuAdapterRelease");
  RUNG_WGPU(deviceGetLimits, "wgpuDeviceGetLimits");
  RUNG_WGPU(deviceGetQueue, "wgpuDeviceGetQueue");
  RUNG_WGPU(deviceCreateBuffer, "wgpuDeviceCreateBuffer");
  RUNG_WGPU(deviceCreateShaderModule, "wgpuDeviceCreateShaderModule");
  RUNG_WGPU(deviceCreateComputePipeline, "wgpuDeviceCreateComputePipeline");
  RUNG_WGPU(deviceCreateBindGroup, "wgpuDeviceCreateBindGroup");
  RUNG_WGPU(deviceCreateCommandEncoder, "wgpuDeviceCreateCommandEncoder");
  RUNG_WGPU(deviceRelease, "wgpuDeviceRelease");
  RUNG_WGPU(deviceDestroy, "wgpuDeviceDestroy");
  RUNG_WGPU(computePipelineGetBindGroupLayout, "wgpuComputePipelineGetBindGroupLayout");
  RUNG_WGPU(computePipelineRelease, "wgpuComputePipelineRelease");
  RUNG_WGPU(bindGroupLayoutRelease, "wgpuBindGroupLayoutRelease");
  RUNG_WGPU(bindGroupRelease, "wgpuBindGroupRelease");
  RUNG_WGPU(shaderModuleRelease, "wgpuShaderModuleRelease");
  RUNG_WGPU(commandEncoderBeginComputePass, "wgpuCommandEncoderBeginComputePass");
  RUNG_WGPU(commandEncoderCopyBufferToBuffer, "wgpuCommandEncoderCopyBufferToBuffer");
  RUNG_WGPU(commandEncoderFinish, "wgpuCommandEncoderFinish");
  RUNG_WGPU(commandEncoderRelease, "wgpuCommandEncoderRelease");
  RUNG_WGPU(commandBufferRelease, "wgpuCommandBufferRelease");
  RUNG_WGPU(computePassEncoderSetPipeline, "wgpuComputePassEncoderSetPipeline");
  RUNG_WGPU(computePassEncoderSetBindGroup, "wgpuComputePassEncoderSetBindGroup");
  RUNG_WGPU(computePassEncoderDispatchWorkgroups, "wgpuComputePassEncoderDispatchWorkgroups");
  RUNG_WGPU(computePassEncoderEnd, "wgpuComputePassEncoderEnd");
  RUNG_WGPU(computePassEncoderRelease, "wgpuComputePassEncoderRelease");
  RUNG_WGPU(queueSubmit, "wgpuQueueSubmit");
  RUNG_WGPU(queueWriteBuffer, "wgpuQueueWriteBuffer");
  RUNG_WGPU(queueOnSubmittedWorkDone, "wgpuQueueOnSubmittedWorkDone");
  RUNG_WGPU(queueRelease, "wgpuQueueRelease");
  RUNG_WGPU(bufferMapAsync, "wgpuBufferMapAsync");
  RUNG_WGPU(bufferGetConstMappedRange, "wgpuBufferGetConstMappedRange");
  RUNG_WGPU(bufferUnmap, "wgpuBufferUnmap");
  RUNG_WGPU(bufferDestroy, "wgpuBufferDestroy");
  RUNG_WGPU(bufferRelease, "wgpuBufferRelease");
#undef RUNG_WGPU
  return ok;
}

std::vector<std::string> candidates(const std::string& first) {
  std::vector<std::string> c;
  if (!first.empty()) c.push_back(first);
  std::string deps = RUNG_WEBGPU_DEPS_DIR;
  if (!deps.empty()) c.push_back(deps + "/node_modules/bun-webgpu-linux-x64/libwebgpu_wrapper.so");
  c.push_back("libwebgpu_wrapper.so");
  return c;
}

}  // namespace

const DawnLibrary* dawn_library(const std::string& first, std::string& error) {
  static std::once_flag once;
  static DawnLibrary* lib = nullptr;
  static std::string open_error;
  std::call_once(once, [&first] {
    auto* l = new DawnLibrary;
    l->vulkan_loader = open_vulkan_loader();
    std::string tried;
    for (const auto& path : candidates(first)) {
      void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!h) {
        tried += (tried.empty() ? "" : "; ") + path + ": " + dlerror();
        continue;
      }
      std::string missing;
      if (!resolve_all(h, l->fn, missing)) {
        open_error = path + " lacks " + missing + " (not the WebGPU C API this build expects)";
        return;
      }
      l->path = path;
      lib = l;
      return;
    }
    open_error = "libwebgpu_wrapper.so not found (" + tried + "); scripts/setup.sh installs it";
  });
  if (!lib) error = open_error;
  return lib;
}

std::string swiftshader_icd_json(std::string& error) {
  namespace fs = std::filesystem;
  std::string so = std::string(kSwiftShaderDir) + "/libvk_swiftshader.so";
  if (!fs::exists(so)) {
    error = so + " not found (Debian package chromium-common)";
    return "";
  }
  std::string dir = RUNG_WEBGPU_DEPS_DIR;
  if (dir.empty() || !fs::is_directory(dir)) dir = fs::temp_directory_path().string();
  std::string json = dir + "/swiftshader_icd.json";
  std::string text = "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": \"" + so +
                     "\", \"api_version\": \"1.0.5\"}}\n";
  std::ifstream in(json);
  std::string existing((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (existing != text) {
    std::string tmp = json + "." + std::to_string(getpid());
    {
      std::ofstream out(tmp);
      out << text;
      if (!out) {
        error = "cannot write " + tmp;
        return "";
      }
    }
    fs::rename(tmp, json);  // atomic: concurrent tests never read a half-written file
  }
  return json;
}

}  // namespace rung::webgpu
