// The reference backend: the host walk (runtime/host_walk.h) over the op registry's scalar
// reference kernels. It is the oracle every other backend is compared with, so it stays
// plain: no fusion, no reordering, one node at a time in a topological order. Everything
// else reaches it as any backend, through the registry ("reference") and the OpBackend
// contract.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "runtime/backend_registry.h"

namespace rung::reference {

std::unique_ptr<runtime::OpBackend> make_backend(ops::Tier tier);

// The oracle's results for `region` on `args` (the host walk with the reference kernels at
// `tier`), for callers that want the reference itself rather than a backend chosen by name.
std::optional<std::vector<ops::HostTensor>> run_region(const Graph& g, RegionId region, std::span<const ops::HostTensor> args,
                                                       DiagnosticSink& diags, ops::Tier tier = ops::Tier::debug);

}  // namespace rung::reference

namespace rung::runtime {
void register_reference_backend(BackendRegistry& r);
}
