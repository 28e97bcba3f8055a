// Finds and opens libwebgpu_wrapper.so (Dawn's C API) with dlopen and resolves the functions
// rung uses. Search order: the path the settings give (RUNG_WEBGPU_LIBRARY), then the copy the
// set-up installed into the source tree (build-deps/webgpu, baked in at configure time), then
// the dynamic loader's path.
// Also makes a Vulkan loader visible to Dawn: the system libvulkan.so.1, else the copy that
// ships beside SwiftShader in Debian's chromium-common (opened RTLD_GLOBAL first, so Dawn's
// own dlopen of the same soname finds it).
#pragma once

#include <string>

#include "backends/webgpu/dawn_api.h"

namespace rung::webgpu {

struct DawnLibrary {
  api::Functions fn{};
  std::string path;          // the wrapper that was opened
  std::string vulkan_loader;  // the libvulkan that was found ("" if none)
};

// The process-wide library, opened on first call (`first`, when not empty, is tried before the
// usual places; later calls get the library the first one opened). Null with `error` set
// when it cannot be opened or lacks a function (the message names the path tried and the
// missing symbol).
const DawnLibrary* dawn_library(const std::string& first, std::string& error);

// Where SwiftShader's Vulkan driver lives on Debian (chromium-common), and the ICD json with
// its absolute path that rung writes (the packaged json has a relative path). Returns the
// json path, or "" when SwiftShader is not installed.
std::string swiftshader_icd_json(std::string& error);

}  // namespace rung::webgpu
