// rope, attention and cross_entropy as the reference defines them (kernels_rope.cpp,
// kernels_attention.cpp, kernels_loss.cpp): rung's pow/sin/cos/exp/log, matmul's fma chain
// for the dot products, the canonical tree (k_tree.cuh) for every row max and sum, and the
// output chain of attention over j in increasing order. Rows of up to 4096 values are one
// warp's chunk; longer rows take a block (up to 4096^2, the caller checks). Attention runs
// the fused kernel (k_attention_fused.cu) wherever a query tile's scores fit in shared
// memory; the unfused kernels here (scores in global scratch) take the longer rows.
#include "backends/cuda/device_api_nn.h"
#include "backends/cuda/k_attention.cuh"
#include "backends/cuda/k_tree.cuh"
#include "ops/numerics/dot.h"
#include "ops/numerics/elementwise.h"
#include "ops/numerics/exp_log.h"
#include "ops/numerics/special.h"
#include "ops/numerics/trig.h"

namespace rung::cuda {
namespace {

// Signed integers widen as i64; u64 as itself (positions and targets).
__device__ inline float index_as_f32(const void* p, int dt, std::uint64_t i) {
  switch (dt) {
    case I64: return static_cast<float>(static_cast<const std::int64_t*>(p)[i]);
    case I32: return static_cast<float>(static_cast<const std::int32_t*>(p)[i]);
    case I16: return static_cast<float>(static_cast<const std::int16_t*>(p)[i]);
    case I8: return static_cast<float>(static_cast<const std::int8_t*>(p)[i]);
    case U64: return static_cast<float>(static_cast<const std::uint64_t*>(p)[i]);
    case U32: return static_cast<float>(static_cast<const std::uint32_t*>(p)[i]);
    case U16: return static_cast<float>(static_cast<const std::uint16_t*>(p)[i]);
    default: return static_cast<float>(static_cast<const std::uint8_t*>(p)[i]);
  }
}

// An integer element as (negative?, magnitude): u64 values above 2^63 stay positive.
struct IndexValue {
  bool negative;
  std::uint64_t mag;
};
__device__ inline IndexValue index_at(const void* p, int dt, std::uint64_t i) {
  std::int64_t v;
  switch (dt) {
    case U64: return {false, static_cast<const std::uint64_t*>(p)[i]};
    case I64: v = static_cast<const std::int64_t*>(p)[i]; break;
    case I32: v = static_cast<const std::int32_t*>(p)[i]; break;
    case I16: v = static_cast<const std::int16_t*>(p)[i]; break;
    case I8: v = static_cast<const std::int8_t*>(p)[i]; break;
    case U32: v = static_cast<const std::uint32_t*>(p)[i]; break;
    case U16: v = static_cast<const std::uint16_t*>(p)[i]; break;
    default: v = static_cast<const std::uint8_t*>(p)[i]; break;
  }
  return {v < 0, static_cast<std::uint64_t>(v)};
}

// ---- rope

__global__ void rope_angles_k(const void* pos, int pdt, std::uint64_t S, std::uint64_t half, float df, float base, float* cs,
                              float* sn) {
  RUNG_GRID_LOOP(i, S * half) {
    std::uint64_t s = i / half, p = i % half;
    float ps = pos ? index_as_f32(pos, pdt, s) : static_cast<float>(s);
    float inv = num::pow_f32(base, -(static_cast<float>(2 * p) / df));
    float theta = ps * inv;
    cs[i] = num::cos_f32(theta);
    sn[i] = num::sin_f32(theta);
  }
}

__global__ void rope_k(const void* x, int dt, void* y, std::uint64_t rows, std::uint64_t S, std::uint64_t D, bool inter,
                       const float* cs, const float* sn) {
  std::uint64_t half = D / 2;
  RUNG_GRID_LOOP(i, rows * half) {
    std::uint64_t r = i / half, p = i % half, s = r % S, row = r * D;
    std::uint64_t ia = row + (inter ? 2 * p : p), ib = row + (inter ? 2 * p + 1 : p + half);
    float a = ld<float>(x, dt, ia), b = ld<float>(x, dt, ib), c = cs[s * half + p], sv = sn[s * half + p];
    st(y, dt, ia, a * c - b * sv);
    st(y, dt, ib, a * sv + b * c);
  }
}

// ---- attention

// p[row, j] = dot(q_i, k_j) * scale (+ mask) for allowed j.
__global__ void attn_scores_k(const void* q, const void* k, int dt, AttentionSpec a, float* p, std::uint64_t rows) {
  RUNG_GRID_LOOP(t, rows * a.Sk) {
    std::uint64_t row = t / a.Sk, j = t % a.Sk, bi = row / a.Sq, i = row % a.Sq;
    AttnRow r = attn_row(a, bi);
    if (!attn_allowed(a, r, i, j)) continue;
    std::uint64_t qo = static_cast<std::uint64_t>(r.q) + i * a.D, ko = static_cast<std::uint64_t>(r.k) + j * a.D;
    float dot = num::dot_chain_f32(a.D, [&](std::uint64_t d) { return ld<float>(q, dt, qo + d); },
                                   [&](std::uint64_t d) { return ld<float>(k, dt, ko + d); });
    float s = dot * a.scale;
    if (a.mask && a.mask_dtype != BOOL)
      s = s + ld<float>(a.mask, a.mask_dtype, static_cast<std::uint64_t>(r.m + static_cast<std::int64_t>(i) * a.m_is +
                                                                          static_cast<std::int64_t>(j) * a.m_js));
    p[t] = s;
  }
}

// Per row: m = max over allowed s (tree, -inf elsewhere), e = exp(s - m) (+0 elsewhere),
// l = the canonical sum of e, p = e / l. A row without allowed keys is left alone (its
// output chain reads none of it).
template <bool kBlock>
__global__ void attn_softmax_k(AttentionSpec a, float* p, std::uint64_t rows) {
  __shared__ float part[kBlock ? kChunk + 1 : 1];
  __shared__ int ipart[kBlock ? kChunk + 1 : 1];
  std::uint64_t per_block = kBlock ? 1 : blockDim.x / 32;
  std::uint64_t first = blockIdx.x * per_block + (kBlock ? 0 : threadIdx.x / 32);
  std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * per_block;
  std::uint64_t n = a.Sk;
  for (std::uint64_t row = first; row < rows; row += stride) {
    std::uint64_t bi = row / a.Sq, i = row % a.Sq;
    AttnRow r = attn_row(a, bi);
    float* pr = p + row * n;
    auto ok = [&](std::uint64_t j) { return attn_allowed(a, r, i, j) ? 1 : 0; };
    auto imax = [](int x, int y) { return x > y ? x : y; };
    int any;
    if constexpr (kBlock) any = block_reduce(ok, n, imax, 0, ipart);
    else any = warp_reduce(ok, n, imax, 0);
    if (!any) continue;
    auto sv = [&](std::uint64_t j) { return attn_allowed(a, r, i, j) ? pr[j] : -num::inf_f32(); };
    float m, l;
    if constexpr (kBlock) m = block_reduce(sv, n, num::Maximum{}, -num::inf_f32(), part);
    else m = warp_reduce(sv, n, num::Maximum{}, -num::inf_f32());
    unsigned t0 = kBlock ? threadIdx.x : (threadIdx.x & 31u), nt = kBlock ? blockDim.x : 32;
    if constexpr (kBlock) __syncthreads();
    else __syncwarp();
    for (std::uint64_t j = t0; j < n; j += nt) pr[j] = attn_allowed(a, r, i, j) ? num::exp_f32(pr[j] - m) : 0.0f;
    if constexpr (kBlock) __syncthreads();
    else __syncwarp();
    auto ev = [&](std::uint64_t j) { return pr[j]; };
    if constexpr (kBlock) l = block_reduce(ev, n, num::Add{}, 0.0f, part);
    else l = warp_reduce(ev, n, num::Add{}, 0.0f);
    for (std::uint64_t j = t0; j < n; j += nt) pr[j] = pr[j] / l;
    if constexpr (kBlock) __syncthreads();
    else __syncwarp();
  }
}

// y[row, d] = fma chain over allowed j (increasing) of p[row, j] * v[j, d], from +0.
__global__ void attn_out_k(const void* v, int dt, AttentionSpec a, const float* p, void* y, std::uint64_t rows) {
  RUNG_GRID_LOOP(t, rows * a.Dv) {
    std::uint64_t row = t / a.Dv, d = t % a.Dv, bi = row / a.Sq, i = row % a.Sq;
    AttnRow r = attn_row(a, bi);
    const float* pr = p + row * a.Sk;
    std::uint64_t vo = static_cast<std::uint64_t>(r.v) + d;
    float acc = 0.0f;
    for (std::uint64_t j = 0; j < a.Sk; ++j)
      if (attn_allowed(a, r, i, j)) acc = num::fma_f32(pr[j], ld<float>(v, dt, vo + j * a.Dv), acc);
    st(y, dt, t, acc);
  }
}

// ---- cross_entropy

__device__ inline bool ignored(const void* t, int tdt, std::uint64_t r, bool has_ignore, std::int64_t ignore) {
  if (!has_ignore) return false;
  IndexValue v = index_at(t, tdt, r);
  if (ignore < 0) return v.negative && static_cast<std::int64_t>(v.mag) == ignore;
  return !v.negative && v.mag == static_cast<std::uint64_t>(ignore);
}

__global__ void target_check_k(const void* t, int tdt, std::uint64_t rows, std::uint64_t C, bool has_ignore, std::int64_t ignore,
                               unsigned long long* first) {
  RUNG_GRID_LOOP(r, rows) {
    if (ignored(t, tdt, r, has_ignore, ignore)) continue;
    IndexValue v = index_at(t, tdt, r);
    if (v.negative || v.mag >= C) atomicMin(first, static_cast<unsigned long long>(r));
  }
}

__global__ void init_first_k(unsigned long long* p) { *p = ~0ull; }

template <bool kBlock>
__global__ void ce_rows_k(const void* x, int dt, const void* t, int tdt, std::uint64_t rows, std::uint64_t C, bool has_ignore,
                          std::int64_t ignore, float* loss, std::int64_t* counted) {
  __shared__ float part[kBlock ? kChunk + 1 : 1];
  std::uint64_t per_block = kBlock ? 1 : blockDim.x / 32;
  std::uint64_t first = blockIdx.x * per_block + (kBlock ? 0 : threadIdx.x / 32);
  std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * per_block;
  bool leader = kBlock ? threadIdx.x == 0 : (threadIdx.x & 31u) == 0;
  for (std::uint64_t r = first; r < rows; r += stride) {
    if (ignored(t, tdt, r, has_ignore, ignore)) {  // uniform across the row's threads
      if (leader) loss[r] = 0.0f, counted[r] = 0;
      continue;
    }
    auto at = [&](std::uint64_t j) { return ld<float>(x, dt, r * C + j); };
    float m, s;
    if constexpr (kBlock) m = block_reduce(at, C, num::Maximum{}, -num::inf_f32(), part);
    else m = warp_reduce(at, C, num::Maximum{}, -num::inf_f32());
    auto e = [&](std::uint64_t j) { return num::exp_f32(at(j) - m); };
    if constexpr (kBlock) s = block_reduce(e, C, num::Add{}, 0.0f, part);
    else s = warp_reduce(e, C, num::Add{}, 0.0f);
    if (leader) {
      std::uint64_t tg = index_at(t, tdt, r).mag;  // checked by target_check_k
      loss[r] = num::Neg{}((at(tg) - m) - num::log_f32(s));
      counted[r] = 1;
    }
  }
}

__global__ void loss_finish_k(const float* sum, const std::int64_t* count, bool mean, void* y, int ydt) {
  float s = *sum;
  st(y, ydt, 0, mean ? s / static_cast<float>(static_cast<std::uint64_t>(*count)) : s);
}

}  // namespace

int launch_rope(const void* x, int dtype, const void* pos, int pos_dtype, void* y, std::uint64_t rows, std::uint64_t S,
                std::uint64_t D, bool interleaved, float base, float* cs, float* sn, Stream stream) {
  auto s = static_cast<cudaStream_t>(stream);
  std::uint64_t half = D / 2;
  if (S * half > 0) rope_angles_k<<<blocks_for(S * half, 256), 256, 0, s>>>(pos, pos_dtype, S, half, static_cast<float>(D), base, cs, sn);
  if (rows * half > 0) rope_k<<<blocks_for(rows * half, 256), 256, 0, s>>>(x, dtype, y, rows, S, D, interleaved, cs, sn);
  return launch_status();
}

namespace {

std::uint64_t block_smem_limit() {
  int dev = 0, bytes = 48 * 1024;
  if (cudaGetDevice(&dev) == cudaSuccess) cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
  return static_cast<std::uint64_t>(bytes);
}

}  // namespace

std::uint64_t attention_scratch_floats(const AttentionSpec& a) {
  if (fused_attention_rows_per_thread(a, block_smem_limit(), 0)) return 0;
  return a.batch.numel() * a.Sq * a.Sk;
}

int launch_attention(const void* q, const void* k, const void* v, int dtype, void* y, const AttentionSpec& a, float* p,
                     Stream stream) {
  auto s = static_cast<cudaStream_t>(stream);
  std::uint64_t rows = a.batch.numel() * a.Sq;
  if (rows == 0 || a.Dv == 0) return 0;
  if (int rt = fused_attention_rows_per_thread(a, block_smem_limit(), 0)) return launch_attention_fused(q, k, v, dtype, y, a, rt, stream);
  if (a.Sk > kChunk * kChunk || !p) return static_cast<int>(cudaErrorInvalidValue);
  if (a.Sk > 0) {
    attn_scores_k<<<blocks_for(rows * a.Sk, 256), 256, 0, s>>>(q, k, dtype, a, p, rows);
    if (a.Sk <= kChunk) attn_softmax_k<false><<<blocks_for(rows, 8), 256, 0, s>>>(a, p, rows);
    else attn_softmax_k<true><<<blocks_for(rows, 1), 512, 0, s>>>(a, p, rows);
  }
  attn_out_k<<<blocks_for(rows * a.Dv, 256), 256, 0, s>>>(v, dtype, a, p, y, rows);
  return launch_status();
}

int launch_target_check(const void* t, int t_dtype, std::uint64_t rows, std::uint64_t C, bool has_ignore, std::int64_t ignore,
                        unsigned long long* first_bad, Stream stream) {
  auto s = static_cast<cudaStream_t>(stream);
  init_first_k<<<1, 1, 0, s>>>(first_bad);
  if (rows > 0) target_check_k<<<blocks_for(rows, 256), 256, 0, s>>>(t, t_dtype, rows, C, has_ignore, ignore, first_bad);
  return launch_status();
}

int launch_cross_entropy_rows(const void* x, int dtype, const void* t, int t_dtype, std::uint64_t rows, std::uint64_t C,
                              bool has_ignore, std::int64_t ignore, float* loss, std::int64_t* counted, Stream stream) {
  auto s = static_cast<cudaStream_t>(stream);
  if (rows == 0) return 0;
  if (C > kChunk * kChunk) return static_cast<int>(cudaErrorInvalidValue);
  if (C <= kChunk) ce_rows_k<false><<<blocks_for(rows, 8), 256, 0, s>>>(x, dtype, t, t_dtype, rows, C, has_ignore, ignore, loss, counted);
  else ce_rows_k<true><<<blocks_for(rows, 1), 512, 0, s>>>(x, dtype, t, t_dtype, rows, C, has_ignore, ignore, loss, counted);
  return launch_status();
}

int launch_loss_finish(const float* sum, const std::int64_t* count, bool mean, void* y, int y_dtype, Stream stream) {
  loss_finish_k<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(sum, count, mean, y, y_dtype);
  return launch_status();
}

}  // namespace rung::cuda
