// Tier fast's operand guards (k_operand_scan.cu), used by cublas_fast.cpp and the attention guard.
#pragma once

#include <cstdint>

namespace rung::cuda {

// host_out[0], host_out[1] = the largest |x| of a (na elements) and of b (nb), NaN and ±inf
// read as +inf, 0 for an empty operand. `dtype` is the DType code (f32 or bf16); `stream`
// a cudaStream_t. Synchronizes the stream; returns the first cudaError_t (0 = success).
int operand_max_abs(const void* a, std::uint64_t na, const void* b, std::uint64_t nb, int dtype, float host_out[2],
                    void* stream);
// The same for `count` (<= 4) operands x[i] of n[i] elements, one stream synchronization.
int operand_max_abs_n(const void* const* x, const std::uint64_t* n, int count, int dtype, float* host_out, void* stream);

}  // namespace rung::cuda
