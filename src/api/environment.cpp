// The one place the library touches the process environment, and only when a surface asks:
// from_process reads it; the settings made from an Environment carry the setter a backend
// asks to point a driver loader at its drivers (the webgpu backend: VK_ICD_FILENAMES and
// XDG_RUNTIME_DIR for SwiftShader). tests/layering/no_getenv fails on any other use in src/.
#include <cstdlib>
#include <filesystem>

#include "api/backend_settings.h"
#include "rung/environment.h"

namespace rung {

Environment Environment::from_process() {
  Environment e;
  if (const char* h = std::getenv("RUNG_HOME"); h && *h) e.home = h;
  else if (const char* home = std::getenv("HOME"); home && *home) e.home = (std::filesystem::path(home) / ".rung").string();
  else e.home = ".rung";
  if (const char* env = std::getenv("RUNG_DATA_PATH"))
    for (std::string_view rest = env; !rest.empty();) {
      auto colon = rest.find(':');
      if (colon != 0) e.data_path.emplace_back(rest.substr(0, colon));
      rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
    }
  for (const char* name : {"RUNG_CPU_THREADS", "RUNG_CPU_SIMD", "RUNG_CUDA_FUSION", "RUNG_WEBGPU_LIBRARY", "RUNG_WEBGPU_ADAPTER"})
    if (const char* v = std::getenv(name)) e.settings[name] = v;
  return e;
}

namespace api {

runtime::BackendSettings backend_settings(const Environment& env) {
  runtime::BackendSettings s;
  for (const auto& [k, v] : env.settings) s.values.emplace(k, v);
  s.home = env.home;
  s.set_process_variable = [](const std::string& name, const std::string& value, bool overwrite) {
    ::setenv(name.c_str(), value.c_str(), overwrite ? 1 : 0);
  };
  return s;
}

}  // namespace api

}  // namespace rung
