// Backends by name. Each backend library provides `register_<name>_backend(BackendRegistry&)`
// and src/backends/all links the ones present in this build (the reference always), so
// `rung run --backend cuda` on a build without CUDA says so instead of failing obscurely. A
// factory returns null with a diagnostic when the backend is built but cannot run here (no
// GPU, no adapter): the message names the backends that can. Every backend is created with
// the surface's settings (backend_settings.h), never from the process environment.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/backend_settings.h"
#include "runtime/op_backend.h"

namespace rung::runtime {

struct BackendFactory {
  std::string name;     // "reference", "cpu", "cuda", "webgpu"
  std::string summary;  // one line for `rung run --help` / diagnostics
  std::function<std::unique_ptr<OpBackend>(ops::Tier, DiagnosticSink&, const BackendSettings&)> create;
};

class BackendRegistry {
 public:
  void add(BackendFactory f);
  const BackendFactory* find(std::string_view name) const;
  std::vector<std::string> names() const;
  // Creates `name` at `tier` with `settings`; on failure a diagnostic (C0015 unknown / not
  // built, or the backend's own code for "cannot run here") naming the alternatives.
  std::unique_ptr<OpBackend> create(std::string_view name, ops::Tier tier, DiagnosticSink& diags,
                                    const BackendSettings& settings) const;

 private:
  std::vector<BackendFactory> factories_;
};

// Every backend in this build (reference always; cpu, cuda, webgpu when built). Defined in
// src/backends/all.
BackendRegistry& backend_registry();

// The BlockIR executor runs regions through a ComputeBackend; this views an OpBackend as one
// (the OpBackend must outlive it).
class ComputeBackend;
std::unique_ptr<ComputeBackend> as_compute_backend(OpBackend& b);

}  // namespace rung::runtime
