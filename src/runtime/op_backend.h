// The contract every executing backend (cpu, cuda, webgpu, and the reference itself) meets,
// so conformance, the execution policy, run records and `rung run --backend X` treat them
// alike:
//   - a DeviceProfile says what the kernels ran on (it is bound into receipts and records);
//   - `kernel(op)` answers "does this backend have a kernel for op" (null: missing, which
//     conformance reports loudly; never a silent detour to another backend);
//   - `kernel_hash(op)` identifies the kernel's code (source text, binary, or build id), so a
//     receipt is invalidated when the kernel changes;
//   - `run_op` runs one op on host tensors (device backends upload, dispatch, download);
//   - `run_region` runs a whole GraphIR region (device backends keep buffers resident; the
//     default walks nodes and calls run_op).
// Backends register a factory in the BackendRegistry (runtime/backend_registry.h).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "base/hash.h"
#include "ir/graph/graph.h"
#include "ops/evaluate.h"
#include "ops/host_tensor.h"
#include "ops/registry.h"
#include "ops/tier.h"

namespace rung::runtime {

// What a result was computed on: backend, device name and the facts that can change bits or
// speed (CPU features, SIMD target, thread count, driver and library versions...). Its hash is
// the canonical encoding of all fields; receipts and run records store it.
struct DeviceProfile {
  std::string backend;                          // "cpu", "cuda", ...
  std::string device;                           // "Intel(R) Xeon(R) ...", "NVIDIA H200", ...
  std::map<std::string, std::string> facts;     // sorted: deterministic encoding
  Hash256 hash() const;
  std::string to_string() const;  // "cpu: <device> (key=value, ...)"
};

// Host <-> device traffic of a device backend since it was created: bytes and transfer
// calls each way (run records keep it; host backends have none).
struct TransferCounts {
  std::uint64_t to_device_bytes = 0, from_device_bytes = 0;
  std::uint64_t uploads = 0, downloads = 0;
};

class OpBackend {
 public:
  virtual ~OpBackend() = default;
  virtual ops::Backend id() const = 0;
  virtual ops::Tier tier() const = 0;
  virtual DeviceProfile profile() const = 0;

  // The kernel for `op` and `dtype` (of its first float/int operand), or null when missing.
  // Default: the registry's entry for (op, id()) if it covers `dtype`.
  virtual const ops::KernelEntry* kernel(const ops::OpDef& op, DType dtype) const;
  // Identity of the kernel's code; empty when missing.
  virtual std::string kernel_hash(const ops::OpDef& op) const = 0;

  // One op on host tensors; same contract as ops::evaluate (diagnostics, never a crash).
  virtual std::optional<std::vector<ops::HostTensor>> run_op(const ops::OpDef& op, std::span<const ops::HostTensor> inputs,
                                                             const AttrMap& attrs, DiagnosticSink& diags) = 0;

  // The memory the device offers a run (bytes), for the planner's verdicts when no --budget
  // is given; nullopt when the backend cannot tell.
  virtual std::optional<std::uint64_t> device_memory_bytes() const { return std::nullopt; }

  // Transfers so far; nullopt for backends that compute in host memory.
  virtual std::optional<TransferCounts> transfers() const { return std::nullopt; }

  // A whole region. Default: the reference interpreter's walk with run_op for each node.
  virtual std::optional<std::vector<ops::HostTensor>> run_region(const Graph& g, RegionId region,
                                                                 std::span<const ops::HostTensor> args,
                                                                 DiagnosticSink& diags);
};

}  // namespace rung::runtime
