// The settings the WebGPU tests open their adapter with: the CLI's (Environment::from_process
// through api::backend_settings), with RUNG_WEBGPU_ADAPTER defaulting to swiftshader.
#pragma once

#include "api/backend_settings.h"

namespace rung::webgpu {

inline runtime::BackendSettings test_adapter_settings() {
  runtime::BackendSettings s = rung::api::backend_settings(rung::Environment::from_process());
  if (s.value("RUNG_WEBGPU_ADAPTER").empty()) s.values["RUNG_WEBGPU_ADAPTER"] = "swiftshader";
  return s;
}

}  // namespace rung::webgpu
