#include "runtime/backend_registry.h"

namespace rung::runtime {

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
    reg->add({"reference", "scalar reference kernels: the oracle every backend is compared with",
              [](ops::Tier t, DiagnosticSink&) { return make_reference_op_backend(t); }});
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
