// The WebGPU backend: runtime::OpBackend over Dawn (native) with generated WGSL kernels.
//
// Numeric contract (docs/backend-webgpu.md): WGSL arithmetic is not bit-exact across devices
// (division may be 2.5 ulp, fma may be unfused, subnormals may flush; no binary64 for rung's
// exact transcendentals). So on WebGPU every tier runs fixed-order kernels — the same device
// gives the same bits run to run — and agreement with the reference is the op's tolerance
// class: in tier debug the class the op declares for prod (its exact class is a promise
// only exact backends make), in prod and fast the tier's own class. A request for
// bit-exactness across devices (tolerance `exact`) is refused with A0020.
#pragma once

#include <map>
#include <memory>

#include "backends/webgpu/device.h"
#include "ops/registry.h"
#include "runtime/backend_registry.h"

namespace rung::webgpu {

// The class WebGPU results are judged by for `op` at `tier`: the op's class (prod's in tier
// debug), or the weaker class this backend declares for the few ops listed with a reason in
// `weaker_classes` (docs/backend-webgpu.md).
ops::TolClass tolerance_class(const ops::OpDef& op, ops::Tier tier);
const std::map<std::string, std::pair<ops::TolClass, std::string>>& weaker_classes();

// Registers the WGSL kernels in the op registry under ops::Backend::webgpu (idempotent).
void register_webgpu_kernels(ops::OpRegistry& r);

struct BackendOptions {
  Device::Options device;
};
// Null + A-coded diagnostic when no usable adapter exists. `settings`: the adapter choice and
// the library path (Device::open).
std::unique_ptr<runtime::OpBackend> make_webgpu_backend(ops::Tier tier, DiagnosticSink& diags, const runtime::BackendSettings& settings,
                                                        const BackendOptions& o = {});

}  // namespace rung::webgpu

namespace rung::runtime {
void register_webgpu_backend(BackendRegistry& r);
}
