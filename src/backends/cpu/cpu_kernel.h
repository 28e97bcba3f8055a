// What a CPU kernel sees and how it is registered. A CPU kernel has the reference kernel's
// contract (ops::KernelContext: inputs, outputs allocated with the inferred types, resolved
// attributes, fail() for data it refuses) plus the backend's thread pool. Kernels live in
// the op registry under ops::Backend::cpu as a `CpuKernel` in KernelEntry::fn.
#pragma once

#include <string_view>

#include "backends/cpu/thread_pool.h"
#include "ops/op_def.h"
#include "ops/registry.h"

namespace rung::cpu {

struct CpuContext {
  ops::KernelContext& k;
  ThreadPool& pool;
};

using CpuKernel = void (*)(CpuContext&);

// How the kernel computes: "simd" (Highway, runtime dispatch) or "scalar" (plain loops over
// threads, rung's scalar formulas). Shown by docs and kept in the kernel's name.
enum class Impl { simd, scalar };

// What the kernel expects of its preallocated outputs: zero-filled (it may write only some
// elements), or overwritten (it writes every element, so the backend skips the zero fill).
enum class Outputs { zeroed, overwritten };

// Registers `fn` as op `op_name`'s CPU kernel, covering the same dtypes as the reference.
void add_kernel(ops::OpRegistry& r, std::string_view op_name, CpuKernel fn, Impl impl, Outputs outputs = Outputs::zeroed);

// Whether `op`'s CPU kernel was registered with Outputs::overwritten.
bool kernel_overwrites_outputs(const ops::OpDef& op);

// HostTensor::canonicalize_nans (every NaN becomes the dtype's canonical quiet NaN), f32/f64
// vectorised and spread over the pool.
void canonicalize_nans(ops::HostTensor& t, ThreadPool& pool);

// A tensor a kernel will overwrite entirely: allocated without the zero fill, or filled with
// a junk byte pattern when `poison` (CpuOptions::poison_uninitialized, for tests).
ops::HostTensor overwritten_tensor(DType dtype, ops::Extents shape, bool poison);

// Items per parallel task for cheap per-element work (keeps thread handoff negligible).
inline constexpr std::uint64_t kElemGrain = 16384;

// The families (one file each).
void register_elementwise_kernels(ops::OpRegistry& r);
void register_reduce_kernels(ops::OpRegistry& r);
void register_linalg_kernels(ops::OpRegistry& r);
void register_shape_kernels(ops::OpRegistry& r);
void register_nn_kernels(ops::OpRegistry& r);
void register_misc_kernels(ops::OpRegistry& r);
void register_sparse_quant_kernels(ops::OpRegistry& r);
void register_conv_kernels(ops::OpRegistry& r);  // with the pools
void register_pool_kernels(ops::OpRegistry& r);

}  // namespace rung::cpu
