// The Highway-vectorised building blocks, one entry point each, dispatched at run time to
// the best target this CPU supports (hwy::SupportedTargets(); tests force a target with
// hwy::SetSupportedTargetsForTest). Every routine keeps each output's operation sequence
// equal to the reference's: lanes hold independent outputs (elementwise, GEMM columns) or
// the canonical tree's own lanes (reduction chunks), never a reassociated sum.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace rung::cpu::simd {

enum class BinOp : std::uint8_t { add, sub, mul, div, maximum, minimum };
enum class UnOp : std::uint8_t { neg, abs, square, sqrt, rsqrt, reciprocal, relu, floor, ceil, round };

// y[i] = a[a_scalar ? 0 : i] op b[b_scalar ? 0 : i], i < n.
void binary_f32(BinOp op, const float* a, bool a_scalar, const float* b, bool b_scalar, float* y, std::size_t n);
void binary_f64(BinOp op, const double* a, bool a_scalar, const double* b, bool b_scalar, double* y, std::size_t n);
void unary_f32(UnOp op, const float* x, float* y, std::size_t n);
void unary_f64(UnOp op, const double* x, double* y, std::size_t n);

// y[i] = num::exp_f32(x[i]): the same binary64 operation sequence in f64 lanes, rounded
// once to f32 (bit-identical, including NaN, overflow, underflow and subnormal results).
void exp_f32(const float* x, float* y, std::size_t n);

// One chunk of the canonical reduction tree (numerics/reduce_tree.h) over n <= 4096
// contiguous values: 32 lanes from the identity, lane l taking values l, l+32, ...; then
// the pairwise fold 16, 8, 4, 2, 1.
enum class RedOp : std::uint8_t { sum, max, min };
float chunk_f32(RedOp op, const float* x, std::size_t n);
double chunk_f64(RedOp op, const double* x, std::size_t n);
// The same chunk for w independent outputs at once: output j reduces x[r * stride + j],
// r < n (a reduction over a leading axis with the kept axis innermost); out[j] = result.
void column_chunk_f32(RedOp op, const float* x, std::size_t stride, std::size_t n, std::size_t w, float* out);

// C[M, N] (row stride ldc) = sequential-k fma chains of op(A)(i, k) * op(B)(k, j), starting
// from +0 (with `accumulate`: from C's value, e.g. conv's bias): element (i, k) of op(A) is
// a[i * a_rs + k * a_ks], element (k, j) of op(B) is b[k * b_ks + j * b_cs]. Packed,
// cache-blocked, register-tiled; k-blocks continue the chain (load C, keep chaining,
// store), so the bits equal the scalar definition.
void gemm_f32(std::size_t M, std::size_t N, std::size_t K, const float* a, std::size_t a_rs, std::size_t a_ks,
              const float* b, std::size_t b_ks, std::size_t b_cs, float* c, std::size_t ldc, bool accumulate = false);
void gemm_f64(std::size_t M, std::size_t N, std::size_t K, const double* a, std::size_t a_rs, std::size_t a_ks,
              const double* b, std::size_t b_ks, std::size_t b_cs, double* c, std::size_t ldc, bool accumulate = false);

// One (n, c) plane of max_pool / avg_pool in f32 (docs/semantics.md §17), vectorised across
// the output positions of a row, each lane running its output's own sequence. Plane offsets
// must fit int32 and avg's taps one canonical chunk (k_h * k_w <= 4096).
struct PoolWindow {
  std::size_t in_h, in_w, k_h, k_w, s_h, s_w, d_h, d_w, pad_t, pad_l, out_h, out_w;
};
// y[o] and idx[o] = plane_base + the flat position in the plane of output o's first maximum.
void max_pool_plane_f32(const float* x, const PoolWindow& w, std::int64_t plane_base, float* y, std::int64_t* idx);
// y[o] = the canonical sum of output o's taps / count[o].
void avg_pool_plane_f32(const float* x, const PoolWindow& w, const float* count, float* y);

// Every NaN among p[0, n) becomes the NaN with bits `canonical_bits` (no other element is
// written).
void canonicalize_nans_f32(float* p, std::size_t n, std::uint32_t canonical_bits);
void canonicalize_nans_f64(double* p, std::size_t n, std::uint64_t canonical_bits);

// memcpy with non-temporal stores (for results written once and not read again soon).
void stream_copy(void* dst, const void* src, std::size_t bytes);

// The register tile's width in elements of the current target (the GEMM's N granularity)
// and its height (rows).
std::size_t gemm_nr_f32();
std::size_t gemm_nr_f64();
std::size_t gemm_mr();

// Blocking: k-blocks of kGemmKC, column panels of kGemmNCPanels register tiles (a packed
// KC x NC block of B is 1 MiB at AVX-512: it stays in the 2 MiB L2 while row strips stream).
inline constexpr std::size_t kGemmKC = 256, kGemmNCPanels = 32;

}  // namespace rung::cpu::simd

namespace rung::cpu {
std::string highway_version();
}
