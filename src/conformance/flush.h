// Subnormals as a device may treat them: WGSL lets an implementation flush subnormal f32
// operands and results to zero of the same sign (SwiftShader does). A backend that declares
// it (OpBackend::flushes_subnormals) is compared with this reading on both sides.
#pragma once

#include <span>
#include <vector>

#include "ops/host_tensor.h"

namespace rung::conformance {

// A copy of `t` with every float element of magnitude below 2^-126 (the smallest normal f32:
// the device computes f16 and bf16 in f32 too) replaced by zero of its sign. Non-float
// tensors come back unchanged.
ops::HostTensor flush_subnormals(const ops::HostTensor& t);
// Whether any element of a float tensor is nonzero with magnitude below 2^-126.
bool has_subnormals(const ops::HostTensor& t);
bool any_subnormals(std::span<const ops::HostTensor> ts);
// A copy of `actual` in which every finite float element within 2^-126 of the reference's
// (both finite) takes the reference's value: a difference below the smallest normal is what
// flushing an operand, an intermediate or the result can leave (p - lr*g with lr*g flushed
// keeps p). Larger differences, NaNs and infinities stay for the comparison to judge.
ops::HostTensor absorb_subnormal_differences(const ops::HostTensor& actual, const ops::HostTensor& reference);
// Per element, of the reference's result on the operands as given (`ref`) and on the
// operands flushed (`flushed_ref`), the one nearer `actual` (bits equal, both NaN, else the
// smaller difference): WGSL lets each operation flush or not, so a kernel's special-value
// tests on the bits (which see a subnormal as nonzero) and its arithmetic (which may flush
// it) can take different readings within one output.
ops::HostTensor nearer_reference(const ops::HostTensor& actual, const ops::HostTensor& ref, const ops::HostTensor& flushed_ref);

}  // namespace rung::conformance
