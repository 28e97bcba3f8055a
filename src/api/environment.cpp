// The one place the library reads the process environment, and only when a surface asks.
#include <cstdlib>
#include <filesystem>

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

}  // namespace rung
