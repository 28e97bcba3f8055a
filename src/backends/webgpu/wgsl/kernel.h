// What the WGSL generator produces for one op application: a short program of compute
// dispatches over the op's tensors (inputs, then outputs, then scratch buffers), each with its
// full, commented WGSL source. Emitters (one per op family, emit_*.cpp) are looked up by op
// name in a table (generator.cpp); shapes and attributes are baked into the source as
// constants, so the text a user reads is exactly what ran.
//
// Device layout of a tensor: one 32-bit word per element (f32 for f32/f16/bf16, i32 for
// signed ints, u32 for unsigned ints and bool); the quantized formats keep their raw bytes.
// f16/bf16 values are kept rounded to their format (each kernel rounds its results), so the
// layout is exact; 64-bit ints must fit in 32 bits (checked at upload).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ops/attrs.h"
#include "ops/host_tensor.h"
#include "ops/op_def.h"

namespace rung::webgpu {

enum class Scalar : std::uint8_t { f32, i32, u32 };

Scalar scalar_of(DType t);                 // the WGSL word type of a device tensor
std::string_view wgsl_type(Scalar s);      // "f32", "i32", "u32"
// An emitter's error starting with this names something the device cannot represent (f64,
// 64-bit integer arithmetic): the executor reports it as A0010 (not supported on this
// device), not as a missing kernel (A0011).
inline constexpr std::string_view kDeviceLacks = "device: ";
bool device_representable(DType t);        // false for f64 (WGSL has no binary64)
std::uint64_t device_words(DType t, const ops::Extents& shape);  // 32-bit words on the device

struct TensorDesc {
  DType dtype = DType::f32;
  ops::Extents shape;
  std::uint64_t numel() const { return ops::element_count(shape); }
  std::string to_string() const;  // "f32[2, 3]"
};

struct DeviceCaps {
  std::uint64_t max_binding = 128ull << 20;   // maxStorageBufferBindingSize
  std::uint32_t max_workgroups = 65535;       // maxComputeWorkgroupsPerDimension
  std::uint32_t max_invocations = 256;        // maxComputeInvocationsPerWorkgroup
  std::uint32_t max_workgroup_storage = 16384;
  std::uint32_t offset_alignment = 256;       // minStorageBufferOffsetAlignment
  // WGSL's fma may be evaluated as a rounded multiply and add (SwiftShader does); then the
  // kernels use fma_x, an fma from exact two-product / two-sum steps (probed at device open).
  bool fused_fma = true;
};

struct Dispatch {
  std::uint32_t x = 1, y = 1, z = 1;
};

// A binding of one step: tensor `slot` (inputs, outputs, scratch in that order), optionally a
// window of it in bytes (for tensors split across bindings).
struct Binding {
  int slot = 0;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;  // 0 = whole buffer
};

struct Step {
  std::string title;  // one line: what this dispatch does
  std::string wgsl;
  std::vector<Binding> bindings;
  Dispatch groups;
};

struct Program {
  std::vector<Step> steps;
  std::vector<std::uint64_t> scratch_words;  // extra device buffers, in 32-bit words
  bool can_fail = false;  // the last scratch buffer is a status word (nonzero: data refused)
  std::string fail_message;  // what a nonzero status means
  std::string fail_code = "N0012";  // its diagnostic code (the reference's, where it refuses too)
  // Data-dependent result sizes (csr_from_dense, csr_from_coo): these steps end with a count
  // in word `count_word` of tensor `count_slot`; the executor reads it back, sizes the outputs
  // listed in `sized_by_count` as [count], and generates the second program (KernelArgs::count
  // set), whose slots are the inputs, the sized outputs, this program's scratch, then its own.
  int count_slot = -1;
  std::uint64_t count_word = 0;
  std::vector<int> sized_by_count;
};

struct KernelArgs {
  const ops::OpDef& op;
  std::span<const TensorDesc> in;
  std::span<const TensorDesc> out;
  const ops::Attrs& attrs;
  DeviceCaps caps;
  // Set for the second program of an op with a data-dependent result size: the count read
  // back after the first (the outputs in `out` are then sized by it).
  std::optional<std::uint64_t> count = std::nullopt;
};

// Emits the program, or nullopt with `error` saying why this application is not supported.
using Emitter = std::function<std::optional<Program>(const KernelArgs&, std::string& error)>;

}  // namespace rung::webgpu
