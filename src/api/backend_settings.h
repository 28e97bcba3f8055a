// An Environment as the settings the library's backends are created with (runtime/
// backend_settings.h). Private to src/.
#pragma once

#include "rung/environment.h"
#include "runtime/backend_settings.h"

namespace rung::api {

// `env`'s settings and home; the process-variable setter writes the process environment
// (for the Vulkan loader: RUNG_WEBGPU_ADAPTER=swiftshader), the only place the library does.
runtime::BackendSettings backend_settings(const Environment& env);

}  // namespace rung::api
