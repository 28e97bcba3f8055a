#include "runtime/backend_registry.h"

namespace rung::runtime {

void register_reference_backend(BackendRegistry& r);
#if RUNG_HAVE_BACKEND_CPU
void register_cpu_backend(BackendRegistry& r);
#endif
#if RUNG_HAVE_BACKEND_CUDA
void register_cuda_backend(BackendRegistry& r);
#endif
#if RUNG_HAVE_BACKEND_WEBGPU
void register_webgpu_backend(BackendRegistry& r);
#endif

BackendRegistry& backend_registry() {
  static BackendRegistry* r = [] {
    auto* reg = new BackendRegistry;
    register_reference_backend(*reg);
#if RUNG_HAVE_BACKEND_CPU
    register_cpu_backend(*reg);
#endif
#if RUNG_HAVE_BACKEND_CUDA
    register_cuda_backend(*reg);
#endif
#if RUNG_HAVE_BACKEND_WEBGPU
    register_webgpu_backend(*reg);
#endif
    return reg;
  }();
  return *r;
}

}  // namespace rung::runtime
