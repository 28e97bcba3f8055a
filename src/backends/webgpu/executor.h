// Runs generated programs on a Device: tensors resident as device buffers (DevTensor), host
// tensors converted to the device layout of wgsl/kernel.h on upload and back on download,
// one op application = type inference, generation (cached by types and attributes),
// allocation of outputs and scratch, the dispatches, and the status word of ops that can
// refuse their data (an index out of range: the reference's N0012).
//
// Codes: A0010 a tensor cannot live on the device (f64, a 64-bit integer outside 32 bits),
// A0011 no WGSL kernel for this op / these types, N0011/N0012 as the reference evaluator.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "backends/webgpu/device.h"
#include "backends/webgpu/wgsl/kernel.h"
#include "ops/registry.h"

namespace rung::webgpu {

struct DevTensor {
  TensorDesc desc;
  std::shared_ptr<GpuBuffer> buffer;
};

class Executor {
 public:
  explicit Executor(Device& d);

  DeviceCaps caps() const;
  std::optional<DevTensor> upload(const ops::HostTensor& t, DiagnosticSink& diags);
  std::optional<ops::HostTensor> download(const DevTensor& t, DiagnosticSink& diags);

  // Applies `op` to resident tensors; outputs stay resident. Waits only when the op can
  // refuse its data (the status word is read back).
  std::optional<std::vector<DevTensor>> apply(const ops::OpDef& op, std::span<const DevTensor> inputs, const AttrMap& attrs,
                                              DiagnosticSink& diags);

  // The program `apply` would run (for `rung show`); nullopt + diagnostic when unsupported.
  std::optional<Program> program_for(const ops::OpDef& op, std::span<const TensorDesc> inputs, const AttrMap& attrs,
                                     std::vector<TensorDesc>& outputs, DiagnosticSink& diags) const;

  Device& device() { return d_; }

  // Runs fma(1 + 2^-12, 1 + 2^-12, -(1 + 2^-11)) on the device: 2^-24 when fused, 0 when the product
  // is rounded first. Kernels then use WGSL's fma or fma_x (wgsl/library.cpp).
  bool probe_fused_fma(DiagnosticSink& diags);
  bool fused_fma() const { return fused_fma_; }
  // Whether the device flushes subnormal f32 operands or results to zero (WGSL permits it);
  // probed by probe_fused_fma, which calls it.
  bool probe_subnormals(DiagnosticSink& diags);
  bool flushes_subnormals() const { return flushes_subnormals_; }

 private:
  // Runs a one-invocation probe shader on `in` (binding 0, read-write) and reads back `count`
  // floats from element `first`; nullopt after a diagnostic.
  std::optional<std::vector<float>> run_probe(const std::string& wgsl, std::span<const float> in, std::size_t first,
                                              std::size_t count, DiagnosticSink& diags);
  bool run_steps(const ops::OpDef& op, const Program& prog, const std::function<const GpuBuffer*(int)>& slot_buffer,
                 DiagnosticSink& diags);
  // The program for these operand types (and the count, for a second program), generated once.
  std::shared_ptr<Program> cached_program(const ops::OpDef& op, std::span<const TensorDesc> in, const AttrMap& attrs,
                                          std::optional<std::uint64_t> count, std::vector<TensorDesc>& outs,
                                          DiagnosticSink& diags);

  Device& d_;
  bool fused_fma_ = true;
  bool flushes_subnormals_ = false;
  std::map<std::string, std::shared_ptr<Program>> programs_;
  std::map<std::string, std::vector<TensorDesc>> out_types_;
};

// Program generation without a device (for `rung show` on machines without an adapter): the
// W3C default limits stand in for the device's. For an op with a data-dependent result size,
// `count` unset gives the first program (data-dependent extents 0), set the second.
std::optional<Program> program_for_types(const ops::OpDef& op, std::span<const TensorDesc> inputs, const AttrMap& attrs,
                                         const DeviceCaps& caps, std::vector<TensorDesc>& outputs, DiagnosticSink& diags,
                                         std::optional<std::uint64_t> count = std::nullopt);

}  // namespace rung::webgpu
