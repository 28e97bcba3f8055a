// The narrow interface between the host side of the CUDA backend (g++) and its kernels
// (nvcc): plain views of device memory and one launcher per kernel family. Launchers only
// enqueue work on `stream` and return the launch's cudaError_t (0 = success); the backend
// turns any other value into a diagnostic. Element types are rung's DType codes.
#pragma once

#include <cstdint>

namespace rung::cuda {

inline constexpr int kMaxRank = 8;

#if defined(__CUDACC__)
#define RUNG_CUDA_HD __host__ __device__
#else
#define RUNG_CUDA_HD
#endif

// Extents of a row-major tensor (rank <= kMaxRank).
struct Dims {
  int rank = 0;
  std::uint64_t ext[kMaxRank] = {};
  RUNG_CUDA_HD std::uint64_t numel() const {
    std::uint64_t n = 1;
    for (int i = 0; i < rank; ++i) n *= ext[i];
    return n;
  }
};

// An operand read through element strides aligned to some iteration space (0 where it
// broadcasts). `dense` says the strides are the iteration space's own row-major strides.
struct Strided {
  const void* data = nullptr;
  int dtype = 0;
  std::int64_t stride[kMaxRank] = {};
  bool dense = false;
};

using Stream = void*;  // a cudaStream_t

enum class Ew : int {
  // binary arithmetic
  add, sub, mul, div, maximum, minimum, pow, remainder, shift_left, shift_right,
  // comparisons and logic (bool results)
  eq, ne, lt, le, gt, ge, logical_and, logical_or, logical_xor,
  // unary
  neg, abs, square, sqrt, rsqrt, reciprocal, relu, exp, log, sin, cos, tanh, sigmoid, silu, erf, gelu, gelu_tanh,
  floor, ceil, round, asin, acos, atan,
  logical_not,
};

// y[i] = f(a[i]) over `n` elements; a and y have the same element count, any dtypes the
// op admits (f16/bf16 compute in f32).
int launch_unary(Ew op, const void* x, int x_dtype, void* y, int y_dtype, std::uint64_t n, Stream s);
// y = f(a, b) over `out` with broadcasting strides.
int launch_binary(Ew op, const Strided& a, const Strided& b, void* y, int y_dtype, const Dims& out, Stream s);
// clamp(x; lo, hi) on floats.
int launch_clamp(const void* x, int dtype, void* y, std::uint64_t n, double lo, double hi, Stream s);
// where(cond, a, b) copying the chosen element's bits.
int launch_where(const Strided& c, const Strided& a, const Strided& b, void* y, int elem_bytes, const Dims& out, Stream s);
// cast between plain dtypes (docs/semantics.md §4).
int launch_cast(const void* x, int from, void* y, int to, std::uint64_t n, Stream s);

// Copies `elem_bytes`-sized elements: for every index c of `it` (row-major),
// dst[dst_base + sum c_d * dst_stride_d] = src[src_base + sum c_d * src_stride_d].
int launch_copy_strided(const void* src, std::int64_t src_base, const std::int64_t* src_stride, void* dst,
                        std::int64_t dst_base, const std::int64_t* dst_stride, const Dims& it, int elem_bytes, Stream s);
// Fills n elements with one bit pattern.
int launch_fill(void* dst, std::uint64_t n, int elem_bytes, std::uint64_t pattern, Stream s);

// Reductions. The input is seen as [outer..., reduced...] through `kept` (extents and input
// strides of the kept axes, row-major over outputs) and `red` (of the reduced axes).
enum class Red : int { sum, mean, prod, max, min, argmax, argmin, variance, logsumexp };
struct ReduceSpec {
  Dims kept;
  std::int64_t kept_stride[kMaxRank] = {};
  Dims red;
  std::int64_t red_stride[kMaxRank] = {};
  std::int64_t correction = 0;
};
// Scratch for the tree's levels is taken from the stream-ordered allocator.
int launch_reduce(Red op, const void* x, int dtype, void* y, int y_dtype, const ReduceSpec& spec, Stream s);

// softmax / log_softmax over rows: row r's element i at base(r) + i * inner, with
// base(r) = (r / inner) * n * inner + r % inner.
int launch_softmax(bool log, const void* x, int dtype, void* y, std::uint64_t outer, std::uint64_t n,
                   std::uint64_t inner, Stream s);

// matmul: batch of M x N outputs, C[b](i, j) = chain_k A[b](i, k) * B[b](k, j), with A(i, k)
// at a_off(b) + i * a_rs + k * a_ks and likewise B(k, j) at b_off(b) + k * b_ks + j * b_cs.
struct MatmulSpec {
  std::uint64_t M = 0, N = 0, K = 0;
  std::int64_t a_rs = 0, a_ks = 0, b_ks = 0, b_cs = 0;
  Dims batch;                                 // the output's batch dims
  std::int64_t a_bs[kMaxRank] = {}, b_bs[kMaxRank] = {};  // batch strides (0: broadcast)
  const void* bias = nullptr;                 // linear: + bias[j] after the chain (separately rounded)
  int bias_dtype = 0;
};
int launch_matmul_exact(const void* a, const void* b, int dtype, void* c, int c_dtype, const MatmulSpec& m, Stream s);
// The same chain with another tile configuration (f32 only; for the benchmark): 0 = BK 16,
// 1 block/SM; 1 = BK 8, 2 blocks/SM; 2 = BK 16, 2 blocks/SM; 3 = BK 8, 1 block/SM.
int launch_matmul_exact_variant(int variant, const void* a, const void* b, void* c, const MatmulSpec& m, Stream s);
// The pipelined exact SGEMM (k_sgemm_pipe.cu, the same chain): launch_matmul_exact takes it
// for f32 operands whose 16-byte chunks are whole and aligned (sgemm_pipe_applies) and picks
// its tile configuration from the shape. Variants, for the benchmark (every layout): 0 = the
// shipped choice; 1 = Main, 128x128 tiles, k tiles of 64, 2 stages; 2 = Narrow, 128x64, k
// tiles of 32, 3 stages; 3 = Main with 3 stages; 4 = 128x128, k tiles of 32, 3 stages;
// 5 = the previous kernel (k-contiguous operands kept [row][k] in shared memory); 6 = Mid,
// 64x128; 7 = Small, 64x64; 8 = Tiny, 32x64 (k tiles of 32, 3 stages; for few outputs and a
// long k).
bool sgemm_pipe_applies(const void* a, const void* b, const MatmulSpec& m);
int launch_sgemm_pipe(const float* a, const float* b, void* c, int c_dtype, const MatmulSpec& m, Stream s);
int launch_sgemm_pipe_variant(int variant, const float* a, const float* b, void* c, const MatmulSpec& m, Stream s);
constexpr int kSgemmPipeVariants = 9;

}  // namespace rung::cuda

namespace rung::cuda {

// layer_norm (layer = true) / rms_norm over `groups` runs of n contiguous elements
// (n <= 4096^2); gamma/beta may be null.
int launch_norm(bool layer, const void* x, int dtype, const void* gamma, int gamma_dtype, const void* beta, int beta_dtype,
                void* y, std::uint64_t groups, std::uint64_t n, float eps, Stream s);
// Philox draws: kind 0 bits (u32), 1 uniform(a = low, b = high), 2 normal(a = mean, b = std).
int launch_random(int kind, void* y, int y_dtype, std::uint64_t n, std::uint64_t seed, std::uint64_t offset,
                  std::uint64_t position, float a, float b, Stream s);
int launch_sgd(const float* p, const float* g, const float* vel, float* p_out, float* vel_out, std::uint64_t n, float lr,
               float momentum, float wd, Stream s);
// pows_out must already hold pows * [beta1, beta2] (one f32 multiply each, done by the caller).
int launch_adam(const float* p, const float* g, const float* m, const float* v, const float* pows_out, float* p_out,
                float* m_out, float* v_out, std::uint64_t n, float lr, float b1, float b2, float eps, float wd,
                bool decoupled, Stream s);
// Smallest position whose index lies outside [0, bound) (or ~0 when none), into *first_bad
// (device memory, initialised by the launcher).
int launch_index_check(const void* idx, int idx_dtype, std::uint64_t n, std::uint64_t bound,
                       unsigned long long* first_bad, Stream s);
// y[a, j, b] = x[a, idx[j], b]: outer x nidx x inner elements of elem_bytes.
int launch_gather(const void* x, int elem_bytes, const void* idx, int idx_dtype, void* y, std::uint64_t outer,
                  std::uint64_t nidx, std::uint64_t axis_n, std::uint64_t inner, Stream s);
// y[c] = x[c with c_axis = idx[c]] for every coordinate c of `idx_dims` (row-major);
// x_stride holds x's element strides.
int launch_gather_elements(const void* x, int elem_bytes, const std::int64_t* x_stride, const void* idx, int idx_dtype,
                           void* y, const Dims& idx_dims, int axis, Stream s);
// cumsum of x viewed as [outer, n, inner] along n, in the reference's sequential order
// (ops/family_reduce.cpp); x and y share `dtype`.
int launch_cumsum(const void* x, void* y, int dtype, std::uint64_t outer, std::uint64_t n, std::uint64_t inner, bool exclusive,
                  bool reverse, Stream s);
// y (zero-filled, n x depth of y_dtype) gets one at [i, idx[i]].
int launch_one_hot(const void* idx, int idx_dtype, void* y, int y_dtype, std::uint64_t n, std::uint64_t depth, Stream s);
// y (i64) = the coordinate along `axis` of each element of `d`.
int launch_iota(void* y, const Dims& d, int axis, Stream s);

// pad: y (extents `out`) from x (extents in_ext) shifted by `before` per axis; outside x,
// mode 0 stores fill_bits, 1 repeats the edge, 2 reflects about the edge element.
struct PadSpec {
  Dims out;
  std::uint64_t in_ext[kMaxRank] = {};
  std::int64_t before[kMaxRank] = {};
  int mode = 0;
  std::uint64_t fill_bits = 0;
};
int launch_pad(const void* x, void* y, int elem_bytes, const PadSpec& p, Stream s);
// arange: floats y[i] = start + i * step in binary64, rounded once; integers the exact value.
int launch_arange_float(void* y, int dtype, std::uint64_t n, double start, double step, Stream s);
int launch_arange_int(void* y, int elem_bytes, std::uint64_t n, std::int64_t start, std::int64_t step, Stream s);
// CSR (indptr, indices: i64 when `i64`, else i32; validated by the caller). csr_to_dense writes
// the stored entries into a zeroed y [rows, K]; csr_matmul y[r, j] = the fma chain over row r's
// entries with b[col, j] (b [K, N]; N = 1 for matvec).
int launch_csr_to_dense(const void* indptr, const void* indices, bool i64, const void* values, int elem_bytes, void* y,
                        std::uint64_t rows, std::uint64_t K, Stream s);
// dequantize: n elements of q8_0 (q8) or q4_0 blocks to y_dtype (f32, f16, bf16).
int launch_dequantize(const void* q, bool q8, void* y, int y_dtype, std::uint64_t n, Stream s);
int launch_csr_matmul(const void* indptr, const void* indices, bool i64, const void* values, const void* b, int dtype, void* y,
                      std::uint64_t rows, std::uint64_t N, Stream s);

}  // namespace rung::cuda
