// Launchers for the composite, indexing, quantization and sparse-construction ops (the
// kernels in k_attention.cu and k_sparse_quant.cu). Same rules as device_api.h: they only
// enqueue work on the stream and return a cudaError_t; scratch comes from the caller or the
// stream-ordered allocator. Every formula is the reference's (src/ops/kernels_*.cpp).
#pragma once

#include <cstdint>

#include "backends/cuda/device_api.h"

namespace rung::cuda {

// rope on rows of D (rows = numel / D, the sequence position of row r is r % S): angles
// for the S x D/2 (position, pair) table first (cs, sn: caller's f32 scratch), then the
// rotation. pos: null for 0..S-1, else S integers of pos_dtype.
int launch_rope(const void* x, int dtype, const void* pos, int pos_dtype, void* y, std::uint64_t rows, std::uint64_t S,
                std::uint64_t D, bool interleaved, float base, float* cs, float* sn, Stream s);

// attention over the broadcast batch: q [.., Sq, D], k [.., Sk, D], v [.., Sk, Dv], the
// batch offsets of each operand in elements (0 where it broadcasts); the mask (bool or float
// of mask_dtype, null when absent) through strides over [batch.., Sq, Sk].
struct AttentionSpec {
  std::uint64_t Sq = 0, Sk = 0, D = 0, Dv = 0;
  Dims batch;
  std::int64_t q_bs[kMaxRank] = {}, k_bs[kMaxRank] = {}, v_bs[kMaxRank] = {}, m_bs[kMaxRank] = {};
  std::int64_t m_is = 0, m_js = 0;
  const void* mask = nullptr;
  int mask_dtype = 0;
  bool causal = true;
  float scale = 1.0f;
};
// The exact kernels (tiers debug, prod): the fused kernel (k_attention_fused.cu) where a
// query tile's scores fit in shared memory, else the unfused kernels, which need p: f32
// scratch of attention_scratch_floats(a) (scores, then probabilities; 0: none needed).
std::uint64_t attention_scratch_floats(const AttentionSpec& a);
int launch_attention(const void* q, const void* k, const void* v, int dtype, void* y, const AttentionSpec& a, float* p,
                     Stream s);
// The fused kernel alone: `rt` query rows per thread (a tile of 8 * rt queries: 4, 2 or 1),
// as fused_attention_rows_per_thread picks it for `smem_limit` bytes of shared memory per
// block (`forced`: only that rt, for measurements); 0 when no tile fits.
int fused_attention_rows_per_thread(const AttentionSpec& a, std::uint64_t smem_limit, int forced);
int launch_attention_fused(const void* q, const void* k, const void* v, int dtype, void* y, const AttentionSpec& a, int rt,
                           Stream s);
// Tier fast (k_attention_flash.cu): bf16/f16 operands of one type, no mask tensor, D == Dv
// of 64 or 128, Sk > 0; operands 16-byte aligned (whole tensors). Not the reference's bits.
bool flash_attention_supports(const AttentionSpec& a, int dtype);
// warps: 16 queries per warp, 4 or 8 per block (0: the default).
int launch_attention_flash(const void* q, const void* k, const void* v, int dtype, void* y, const AttentionSpec& a, Stream s,
                           int warps = 0);

// cross_entropy: the first row (ascending) whose target is outside [0, C) and not ignored,
// into *first_bad (~0 when none).
int launch_target_check(const void* t, int t_dtype, std::uint64_t rows, std::uint64_t C, bool has_ignore,
                        std::int64_t ignore, unsigned long long* first_bad, Stream s);
// Row losses into `loss` (f32, rows; +0 for ignored rows) and counted[r] = 1 for every
// counted row (i64), both caller's scratch.
int launch_cross_entropy_rows(const void* x, int dtype, const void* t, int t_dtype, std::uint64_t rows, std::uint64_t C,
                              bool has_ignore, std::int64_t ignore, float* loss, std::int64_t* counted, Stream s);
// y (scalar of y_dtype) = sum, or sum / f32(count) when `mean`.
int launch_loss_finish(const float* sum, const std::int64_t* count, bool mean, void* y, int y_dtype, Stream s);

// scatter_add: y[o, t, k] = x[o, t, k] + canonical sum over j in jlist[jstart[t] .. jstart[t+1])
// (increasing j) of upd[o, j, k]; x and y are outer x n x inner, upd outer x J x inner.
// max_m (the largest list) picks a warp or a block per target.
int launch_scatter_add(const void* x, const void* upd, int dtype, const std::uint64_t* jstart, const std::uint64_t* jlist,
                       void* y, std::uint64_t outer, std::uint64_t n, std::uint64_t J, std::uint64_t inner,
                       std::uint64_t max_m, Stream s);

// quantize: n elements (whole blocks) of x to q8_0 (q8) or q4_0 blocks in q; the first
// failing block b is reported as *first_bad = b * 4 + status (QStatus), ~0 when none.
int launch_quantize(const void* x, int dtype, void* q, bool q8, std::uint64_t n, unsigned long long* first_bad, Stream s);
// linear_q: y[r, n] (y_dtype) for rows x N with W [N, K] quantized; int8 needs qx (rows * K
// int8) and dx (rows * K / 32 f32) scratch, float none. bias: null or N values of bias_dtype.
int launch_linear_q(const void* x, int dtype, const void* w, bool q8, const void* bias, int bias_dtype, void* y,
                    std::uint64_t rows, std::uint64_t N, std::uint64_t K, bool int8, std::int8_t* qx, float* dx, Stream s);

// csr_from_dense, count pass: offsets (u64, M + 1) = the exclusive scan of each row's count
// of entries != 0; offsets[M] = nnz.
int launch_dense_row_offsets(const void* x, int dtype, std::uint64_t M, std::uint64_t K, std::uint64_t* offsets, Stream s);
// Fill pass: indptr (index dtype: i64 when `i64`), indices and values (bit copies).
int launch_dense_to_csr(const void* x, int elem_bytes, int dtype, std::uint64_t M, std::uint64_t K, const std::uint64_t* offsets,
                        bool i64, void* indptr, void* indices, void* values, Stream s);

// csr_from_coo: the first entry whose row is outside [0, M) or column outside [0, K), ~0
// when none.
int launch_coo_check(const void* rows, const void* cols, bool i64, std::uint64_t n, std::uint64_t M, std::uint64_t K,
                     unsigned long long* first_bad, Stream s);
// Count pass: order (n) = entries stably sorted by (row, col); starts (n + 1) = the first
// position in `order` of each distinct (row, col), *nnz (device) their number.
int launch_coo_group(const void* rows, const void* cols, bool i64, std::uint64_t n, std::uint64_t M, std::uint64_t K,
                     std::uint64_t* order, std::uint64_t* starts, std::uint64_t* nnz, Stream s);
// Fill pass (starts[nnz] = n set by the launcher): indptr (M + 1), indices, values (one entry:
// a bit copy; several: the canonical sum in input order).
int launch_coo_fill(const void* rows, const void* cols, bool i64, const void* vals, int dtype, std::uint64_t n,
                    std::uint64_t M, const std::uint64_t* order, std::uint64_t* starts, std::uint64_t nnz, void* indptr,
                    void* indices, void* values, Stream s);

}  // namespace rung::cuda
