// The contract every executing backend (cpu, cuda, webgpu, and the reference itself) meets,
// so conformance, the execution policy, run records and `rung run --backend X` treat them
// alike:
//   - a DeviceProfile says what the kernels ran on (it is bound into receipts and records);
//   - `kernel(op)` answers "does this backend have a kernel for op" (null: missing, which
//     conformance reports loudly; never a silent detour to another backend);
//   - `kernel_hash(op)` identifies the kernel's code (source text, binary, or build id), so a
//     receipt is invalidated when the kernel changes;
//   - `run_op` runs one op on host tensors (device backends upload, dispatch, download);
//   - `run_region` runs a whole GraphIR region (device backends keep buffers resident with
//     the device walk, device_walk.h; the default is the host walk, host_walk.h, calling
//     run_op for each node).
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

// The class a backend that is not exact-capable is judged by for `op`: the op's prod class,
// except that an op declared `exact` whose results may be floats computed by arithmetic is
// `tight` (WGSL division, fma and subnormals are the device's). Integer and bool results and
// bit copies (reshape, gather, where, ...: every float result is an input element or a
// constant) stay `exact`.
ops::TolClass convergent_class(const ops::OpDef& op);
// Ops whose float results are bit copies of input elements or of constants.
bool is_bit_copy_op(std::string_view op);

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

  // --- Agreement with the reference (SEMANTICS: replayable vs convergent) ---
  // Exact-capable: in tier debug this backend gives the reference's bits on every device
  // (cpu, cuda, the reference). A backend that is not (webgpu: WGSL leaves division, fma
  // fusion and subnormals to the device) is judged by each op's class resolved for tier prod
  // (`agreement_class`), its runs are convergent, and bit-exactness across devices is refused.
  virtual bool exact_capable() const { return true; }
  // The class results are judged by for `op` when the run asks for `tier`. Exact-capable:
  // the op's own class for the tier. Otherwise `convergent_class(op)` (prod's class, never
  // `exact` for arithmetic on floats).
  virtual ops::TolClass agreement_class(const ops::OpDef& op, ops::Tier tier) const;
  // The tier whose thresholds resolve that class: `tier` itself, or prod for a backend that
  // is not exact-capable (its kernels are the same in every tier).
  ops::Tier agreement_tier(ops::Tier tier) const { return exact_capable() ? tier : ops::Tier::prod; }
  // The device may treat subnormal operands and results as zero of the same sign (WGSL
  // permits it; SwiftShader does): conformance then also accepts the reference's result on
  // the flushed operands, compared with subnormals read as zero.
  virtual bool flushes_subnormals() const { return false; }
  // A dtype the device cannot hold at all (f64, i64, u64 on WebGPU): "CODE reason", or empty.
  // Rows of such dtypes are `unsupported` (not supported on this device), not a missing kernel.
  virtual std::string unsupported_dtype(DType) const { return {}; }
  // Whether the device can hold tensors of `t` at all (WebGPU: not f64; i64 and u64 are held
  // in 32 bits where a kernel claims them). The execution policy sends a region holding a
  // dtype the device cannot hold to the declared fallback.
  virtual bool holds_dtype(DType) const { return true; }
  // A diagnostic code by which the backend refuses data its device cannot represent (a
  // 64-bit value beyond 32 bits on WebGPU): such a case is "not supported on this device",
  // never a wrong result. Any other refusal of a case the reference accepts is a failure.
  virtual bool is_capability_refusal(std::string_view /*code*/) const { return false; }

  // The memory the device offers a run (bytes), for the planner's verdicts when no --budget
  // is given; nullopt when the backend cannot tell.
  virtual std::optional<std::uint64_t> device_memory_bytes() const { return std::nullopt; }

  // Transfers so far; nullopt for backends that compute in host memory.
  virtual std::optional<TransferCounts> transfers() const { return std::nullopt; }

  // Fused elementwise regions run so far as kernels generated for them: region name -> the
  // kernel's identity (a hash of its source), or "op by op: <why>" where the region ran
  // node by node instead. Empty for backends that generate none.
  virtual std::map<std::string, std::string> generated_kernels() const { return {}; }

  // A whole region. Default: the host walk (host_walk.h) with run_op for each node.
  virtual std::optional<std::vector<ops::HostTensor>> run_region(const Graph& g, RegionId region,
                                                                 std::span<const ops::HostTensor> args,
                                                                 DiagnosticSink& diags);
};

}  // namespace rung::runtime
