// What a backend is told about the world it runs in, as a value. Library code reads no
// process environment: the surface (the CLI, a binding, a sandboxed worker) builds a
// rung::Environment (include/rung/environment.h) and hands its parts to the backends it
// creates (runtime::BackendRegistry::create) and to the store (conformance::Store).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace rung::runtime {

struct BackendSettings {
  // By the names users know them by (docs/cli.md): RUNG_CPU_THREADS, RUNG_CPU_SIMD,
  // RUNG_CUDA_FUSION, RUNG_WEBGPU_LIBRARY, RUNG_WEBGPU_ADAPTER. Absent or empty: the
  // backend's default.
  std::map<std::string, std::string, std::less<>> values;
  // The store's folder (Environment::home): device backends keep kernel caches below it
  // (cuda: cuda-fused/). Empty: nothing is cached on disk.
  std::string home;
  // Some driver loaders take a choice only from the process environment: the Vulkan loader
  // finds its drivers through VK_ICD_FILENAMES, which the webgpu backend points at
  // SwiftShader when RUNG_WEBGPU_ADAPTER=swiftshader. The library never writes the process
  // environment itself; it asks the surface through this, and the surface decides (the
  // API's sessions do it in src/api/environment.cpp; `overwrite` false keeps a value already
  // set). Empty: the surface allows none, and a backend that needs one refuses with a
  // diagnostic naming the variable to set before the process starts.
  std::function<void(const std::string& name, const std::string& value, bool overwrite)> set_process_variable;

  // The value of `name`, or "" when it is not set.
  std::string value(std::string_view name) const {
    auto it = values.find(name);
    return it == values.end() ? std::string() : it->second;
  }
};

}  // namespace rung::runtime
