// The fused exact attention kernel (tiers debug and prod): one block per (batch, tile of BQ
// queries) computes the tile's scores into shared memory, never global memory, and keeps
// them there through both softmax passes and the output chain. The bits are the
// reference's (kernels_attention.cpp):
//   scores  dot(q_i, k_j) as matmul's fma chain over d in increasing order, * scale, + mask;
//   max     over the allowed scores (max is order-free, so any order gives its bits);
//   sum     the canonical tree of k_tree.cuh over the row's Sk positions (a position past
//           the last allowed key holds +0, and adding +0 changes no partial sum, so the
//           causal tail is skipped);
//   output  per (i, dv) the fma chain over allowed j in increasing order of (e_j / l) v_j.
// Causal tiles stop at the last key their last query sees: keys past it are never read.
// Rows up to kFusedMaxSk keys fit (the scores of 8 queries in 227 KB); longer rows take the
// unfused kernels of k_attention.cu.
#include <cuda_runtime.h>

#include "backends/cuda/k_attention.cuh"
#include "backends/cuda/k_tree.cuh"
#include "ops/numerics/elementwise.h"
#include "ops/numerics/exp_log.h"

namespace rung::cuda {
namespace {

constexpr int kThreads = 256, kWarps = 8;
constexpr int kBK = 64;       // keys per tile
constexpr int kDC = 64;       // head-dim columns per chunk (q, k and v tiles)
constexpr int kLD = kDC + 4;  // padded tile row: float4 reads without bank conflicts

struct FusedLayout {
  int rt;                  // query rows per thread in the score tile; BQ = 8 * rt
  std::uint64_t sk_pad;    // floats per score row (>= Sk, a multiple of 4, plus 4 against conflicts)
  std::uint64_t words;     // 32-key words of allowed bits per row (bool masks only, else 0)
  std::uint64_t bytes;     // dynamic shared memory
};

FusedLayout fused_layout(const AttentionSpec& a, int rt) {
  FusedLayout l;
  l.rt = rt;
  std::uint64_t bq = 8u * static_cast<unsigned>(rt);
  l.sk_pad = (a.Sk + 3) / 4 * 4 + 4;
  l.words = a.mask && a.mask_dtype == BOOL ? (a.Sk + 31) / 32 + 2 : 0;
  l.bytes = 4 * (bq * kLD + kBK * kLD + bq * l.sk_pad + bq * l.words);
  return l;
}

// A 64 x 64 tile of a row-major matrix (rows of `ncols` values from element `base`), rows
// row0.. and columns c0.. as f32, +0 outside [0, rows) x [0, ncols): each thread holds 4
// groups of 4 columns. `vec`: f32 data, 16-byte aligned rows, so a group is one float4 load.
struct TileRegs {
  float v[16];
};
__device__ inline void tile_load(TileRegs& r, const void* p, int dt, std::uint64_t base, std::uint64_t row0, std::uint64_t rows,
                                 std::uint64_t c0, std::uint64_t ncols, bool vec) {
#pragma unroll
  for (int g = 0; g < 4; ++g) {
    int e = threadIdx.x + g * kThreads;
    std::uint64_t row = row0 + e / 16, c = c0 + (e % 16) * 4, off = base + row * ncols + c;
    if (vec && row < rows && c + 4 <= ncols) {
      float4 x = *reinterpret_cast<const float4*>(static_cast<const float*>(p) + off);
      r.v[4 * g] = x.x, r.v[4 * g + 1] = x.y, r.v[4 * g + 2] = x.z, r.v[4 * g + 3] = x.w;
    } else {
#pragma unroll
      for (int x = 0; x < 4; ++x) r.v[4 * g + x] = row < rows && c + x < ncols ? ld<float>(p, dt, off + x) : 0.0f;
    }
  }
}
__device__ inline void tile_store(float* T, const TileRegs& r) {
#pragma unroll
  for (int g = 0; g < 4; ++g) {
    int e = threadIdx.x + g * kThreads;
    *reinterpret_cast<float4*>(&T[(e / 16) * kLD + (e % 16) * 4]) = make_float4(r.v[4 * g], r.v[4 * g + 1], r.v[4 * g + 2], r.v[4 * g + 3]);
  }
}
// The query tile (BQ rows) straight into shared memory.
template <int BQ>
__device__ inline void q_fill(float* Qs, const void* p, int dt, std::uint64_t base, std::uint64_t row0, std::uint64_t rows,
                              std::uint64_t c0, std::uint64_t ncols) {
  for (int e = threadIdx.x; e < BQ * 16; e += kThreads) {
    std::uint64_t row = row0 + e / 16, c = c0 + (e % 16) * 4, off = base + row * ncols + c;
#pragma unroll
    for (int x = 0; x < 4; ++x) Qs[(e / 16) * kLD + (e % 16) * 4 + x] = row < rows && c + x < ncols ? ld<float>(p, dt, off + x) : 0.0f;
  }
}

template <int RT>
__global__ void __launch_bounds__(kThreads) attn_fused_k(const void* q, const void* k, const void* v, int dt, AttentionSpec a,
                                                         void* y, int sk_pad, int words, std::uint64_t tiles) {
  constexpr int BQ = 8 * RT;
  // Output mapping: OR rows x DPT columns per thread over a BQ x 64 tile.
  constexpr int DPT = RT >= 2 ? 4 : 2, OR = RT >= 4 ? RT / 2 : 1, TPR = kDC / DPT;
  static_assert(OR * (kThreads / TPR) == BQ, "output mapping covers the tile");
  extern __shared__ float4 smem4[];
  float* Qs = reinterpret_cast<float*>(smem4);  // [BQ][kLD]
  float* Ts = Qs + BQ * kLD;                     // [kBK][kLD]: a k tile, later a v tile
  float* S = Ts + kBK * kLD;                     // [BQ][sk_pad]: scores, then e, then p
  auto* Mb = reinterpret_cast<unsigned*>(S + BQ * sk_pad);  // [BQ][words]: allowed bits (bool mask)
  __shared__ int jlim[BQ];  // per row: one past its last allowed key (keys fit an int here)

  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const std::uint64_t bi = blockIdx.x / tiles, tile = tiles - 1 - blockIdx.x % tiles;  // long causal tiles first
  const std::uint64_t i0 = tile * BQ;
  const AttnRow r = attn_row(a, bi);
  const bool bmask = a.mask && a.mask_dtype == BOOL, fmask = a.mask && !bmask;
  const std::uint64_t i_last = (i0 + BQ < a.Sq ? i0 + BQ : a.Sq) - 1;
  const int kend = static_cast<int>(attn_key_end(a, i_last));  // keys any row of the tile may see
  if (t < BQ) jlim[t] = i0 + t < a.Sq ? static_cast<int>(attn_key_end(a, i0 + t)) : 0;
  __syncthreads();

  // 1. Scores: rows warp*RT + rr, keys lane + 32c of each tile. The (key tile, column
  // chunk) steps run in order; the next step's k tile is loaded into registers while this
  // one computes. A head dim of up to 64 keeps the query tile resident.
  const bool vec_k = dt == F32 && a.D % 4 == 0 && reinterpret_cast<std::uintptr_t>(k) % 16 == 0;
  const bool vec_v = dt == F32 && a.Dv % 4 == 0 && reinterpret_cast<std::uintptr_t>(v) % 16 == 0;
  const int nd = static_cast<int>((a.D + kDC - 1) / kDC), ktiles = (kend + kBK - 1) / kBK, steps = ktiles * nd;
  const bool q_resident = nd == 1;
  if (q_resident) q_fill<BQ>(Qs, q, dt, static_cast<std::uint64_t>(r.q), i0, a.Sq, 0, a.D);
  TileRegs pre;
  if (steps > 0) tile_load(pre, k, dt, static_cast<std::uint64_t>(r.k), 0, kend, 0, a.D, vec_k);
  float acc[RT][2];
  for (int step = 0; step < (nd ? steps : ktiles); ++step) {
    int kt = (nd ? step / nd : step) * kBK, d0 = nd ? step % nd * kDC : 0;
    if (d0 == 0) {
#pragma unroll
      for (int rr = 0; rr < RT; ++rr) acc[rr][0] = acc[rr][1] = 0.0f;
    }
    if (nd > 0) {
      __syncthreads();  // the previous step is done with Ts (and Qs)
      tile_store(Ts, pre);
      if (!q_resident) q_fill<BQ>(Qs, q, dt, static_cast<std::uint64_t>(r.q), i0, a.Sq, d0, a.D);
      __syncthreads();
      if (step + 1 < steps) tile_load(pre, k, dt, static_cast<std::uint64_t>(r.k), (step + 1) / nd * kBK, kend, (step + 1) % nd * kDC, a.D, vec_k);
      // Padding columns hold +0 on both sides: fma(+0, +0, acc) = acc for every chain value
      // (a chain from +0 is never -0), so the chain is exactly D steps long in effect.
      const float* qrow = Qs + warp * RT * kLD;
      const float* krow = Ts + lane * kLD;
#pragma unroll
      for (int dd = 0; dd < kDC; dd += 4) {
        float4 qv[RT], kv[2];
#pragma unroll
        for (int rr = 0; rr < RT; ++rr) qv[rr] = *reinterpret_cast<const float4*>(qrow + rr * kLD + dd);
#pragma unroll
        for (int c = 0; c < 2; ++c) kv[c] = *reinterpret_cast<const float4*>(krow + 32 * c * kLD + dd);
#pragma unroll
        for (int rr = 0; rr < RT; ++rr)
#pragma unroll
          for (int c = 0; c < 2; ++c) {
            acc[rr][c] = num::fma_f32(qv[rr].x, kv[c].x, acc[rr][c]);
            acc[rr][c] = num::fma_f32(qv[rr].y, kv[c].y, acc[rr][c]);
            acc[rr][c] = num::fma_f32(qv[rr].z, kv[c].z, acc[rr][c]);
            acc[rr][c] = num::fma_f32(qv[rr].w, kv[c].w, acc[rr][c]);
          }
      }
      if (d0 + kDC < static_cast<int>(a.D)) continue;  // more columns to come
    }
#pragma unroll
    for (int rr = 0; rr < RT; ++rr) {
      int row = warp * RT + rr;
      std::uint64_t i = i0 + row;
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        int j = kt + lane + 32 * c;
        bool ok = j < jlim[row];
        if (bmask) {
          if (ok) ok = static_cast<const std::uint8_t*>(a.mask)[attn_mask_at(a, r, i, j)] != 0;
          unsigned word = __ballot_sync(0xFFFFFFFFu, ok);
          if (lane == 0) Mb[row * words + (kt + 32 * c) / 32] = word;
        }
        if (!ok) continue;
        float sc = acc[rr][c] * a.scale;
        if (fmask) sc = sc + ld<float>(a.mask, a.mask_dtype, attn_mask_at(a, r, i, j));
        S[row * sk_pad + j] = sc;
      }
    }
  }
  __syncthreads();

  // The first v tile loads while the rows' softmax runs.
  const int vsteps = static_cast<int>((a.Dv + kDC - 1) / kDC) * ktiles;
  if (vsteps > 0) tile_load(pre, v, dt, static_cast<std::uint64_t>(r.v), 0, kend, 0, a.Dv, vec_v);

  // 2. Softmax per row, one warp per row: m, e = exp(s - m), l in the canonical tree, p = e / l.
  // The max takes fmaxf, which skips NaN: an allowed NaN score gives a NaN e whatever m is,
  // so l and every p of the row are NaN, as with the definition's NaN max; and exp(s - m)
  // does not depend on the sign of a zero m.
  for (int row = warp; row < BQ; row += kWarps) {
    const int n = jlim[row];
    if (n == 0) continue;  // no allowed key: the output chain reads nothing
    float* sr = S + row * sk_pad;
    const unsigned* mb = Mb + row * words;
    auto ok = [&](int j) { return !bmask || ((mb[j / 32] >> (j % 32)) & 1u); };
    float m = -num::inf_f32();
    for (int j = lane; j < n; j += 32)
      if (ok(j)) m = fmaxf(m, sr[j]);
#pragma unroll
    for (int o = 16; o >= 1; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, o));
    int j = lane;
    for (; j + 32 < n; j += 64) {  // two independent exps in flight per lane
      float s0 = sr[j], s1 = sr[j + 32];
      bool o0 = ok(j), o1 = ok(j + 32);
      float e0 = num::exp_f32(s0 - m), e1 = num::exp_f32(s1 - m);
      sr[j] = o0 ? e0 : 0.0f;
      sr[j + 32] = o1 ? e1 : 0.0f;
    }
    if (j < n) sr[j] = ok(j) ? num::exp_f32(sr[j] - m) : 0.0f;
    __syncwarp();
    auto ev = [&](std::uint64_t jj) { return jj < static_cast<std::uint64_t>(n) ? sr[jj] : 0.0f; };
    std::uint64_t chunks = (a.Sk + kChunk - 1) / kChunk;
    float l;
    if (chunks == 1) {
      l = warp_reduce(ev, static_cast<std::uint64_t>(n), num::Add{}, 0.0f);
    } else {  // level 1: lane c holds chunk c's result (chunks <= 32 here)
      float mine = 0.0f;
      std::uint64_t un = static_cast<std::uint64_t>(n);
      for (std::uint64_t c = 0; c < chunks; ++c) {
        std::uint64_t b = c * kChunk, e = b + kChunk < un ? b + kChunk : (un > b ? un : b);
        float rc = __shfl_sync(0xFFFFFFFFu, warp_chunk(ev, b, e, num::Add{}, 0.0f), 0);
        if (static_cast<std::uint64_t>(lane) == c) mine = rc;
      }
      l = warp_reduce([&](std::uint64_t) { return mine; }, chunks, num::Add{}, 0.0f);
    }
    for (int jj = lane; jj < n; jj += 32) sr[jj] = sr[jj] / l;
  }

  // 3. Output: rows rg * OR + o, columns cg * DPT .. of each 64-column chunk; the next v
  // tile is loaded into registers while this one computes. Tiles every row of the thread
  // sees whole (no bool mask) run without per-key tests.
  const int rg = t / TPR, cg = t % TPR;
  int jl[OR], jlo = kend;
#pragma unroll
  for (int o = 0; o < OR; ++o) {
    jl[o] = jlim[rg * OR + o];
    jlo = jl[o] < jlo ? jl[o] : jlo;
  }
  const float* prow = S + rg * OR * sk_pad;
  for (int c0 = 0; c0 < static_cast<int>(a.Dv); c0 += kDC) {
    float acc[OR][DPT];
#pragma unroll
    for (int o = 0; o < OR; ++o)
#pragma unroll
      for (int x = 0; x < DPT; ++x) acc[o][x] = 0.0f;
    for (int kt = 0; kt < kend; kt += kBK) {
      __syncthreads();
      tile_store(Ts, pre);
      __syncthreads();
      int step = c0 / kDC * ktiles + kt / kBK + 1;
      if (step < vsteps) tile_load(pre, v, dt, static_cast<std::uint64_t>(r.v), step % ktiles * kBK, kend, step / ktiles * kDC, a.Dv, vec_v);
      const float* vcol = Ts + cg * DPT;
      auto column = [&](int jj, float (&vv)[DPT]) {
        if constexpr (DPT == 4) {
          float4 w = *reinterpret_cast<const float4*>(vcol + jj * kLD);
          vv[0] = w.x, vv[1] = w.y, vv[2] = w.z, vv[3] = w.w;
        } else {
          float2 w = *reinterpret_cast<const float2*>(vcol + jj * kLD);
          vv[0] = w.x, vv[1] = w.y;
        }
      };
      if (!bmask && kt + kBK <= jlo) {
#pragma unroll 4
        for (int jj = 0; jj < kBK; jj += 4) {
          float4 p[OR];
#pragma unroll
          for (int o = 0; o < OR; ++o) p[o] = *reinterpret_cast<const float4*>(prow + o * sk_pad + kt + jj);
#pragma unroll
          for (int u = 0; u < 4; ++u) {
            float vv[DPT];
            column(jj + u, vv);
#pragma unroll
            for (int o = 0; o < OR; ++o) {
              float pu = u == 0 ? p[o].x : u == 1 ? p[o].y : u == 2 ? p[o].z : p[o].w;
#pragma unroll
              for (int x = 0; x < DPT; ++x) acc[o][x] = num::fma_f32(pu, vv[x], acc[o][x]);
            }
          }
        }
        continue;
      }
      int jn = kend - kt < kBK ? kend - kt : kBK;
      for (int jj = 0; jj < jn; jj += 4) {
        float4 p[OR];
#pragma unroll
        for (int o = 0; o < OR; ++o) p[o] = *reinterpret_cast<const float4*>(prow + o * sk_pad + kt + jj);
#pragma unroll
        for (int u = 0; u < 4; ++u) {
          int j = kt + jj + u;
          float vv[DPT];
          column(jj + u, vv);
#pragma unroll
          for (int o = 0; o < OR; ++o) {
            float pu = u == 0 ? p[o].x : u == 1 ? p[o].y : u == 2 ? p[o].z : p[o].w;
            bool ok = j < jl[o] && (!bmask || ((Mb[(rg * OR + o) * words + j / 32] >> (j % 32)) & 1u));
            if (ok)
#pragma unroll
              for (int x = 0; x < DPT; ++x) acc[o][x] = num::fma_f32(pu, vv[x], acc[o][x]);
          }
        }
      }
    }
#pragma unroll
    for (int o = 0; o < OR; ++o) {
      std::uint64_t i = i0 + rg * OR + o;
      if (i >= a.Sq) continue;
#pragma unroll
      for (int x = 0; x < DPT; ++x) {
        std::uint64_t d = c0 + cg * DPT + x;
        if (d < a.Dv) st(y, dt, (bi * a.Sq + i) * a.Dv + d, acc[o][x]);
      }
    }
  }
}

template <int RT>
int launch_fused(const void* q, const void* k, const void* v, int dt, void* y, const AttentionSpec& a, const FusedLayout& l,
                 cudaStream_t s) {
  std::uint64_t tiles = (a.Sq + 8 * RT - 1) / (8 * RT), blocks = tiles * a.batch.numel();
  if (blocks > 0x7FFFFFFFull) return static_cast<int>(cudaErrorInvalidValue);
  cudaError_t e = cudaFuncSetAttribute(attn_fused_k<RT>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(l.bytes));
  if (e != cudaSuccess) return static_cast<int>(e);
  attn_fused_k<RT><<<static_cast<unsigned>(blocks), kThreads, l.bytes, s>>>(q, k, v, dt, a, y, static_cast<int>(l.sk_pad),
                                                                             static_cast<int>(l.words), tiles);
  return launch_status();
}

}  // namespace

// The widest query tile that leaves room for two blocks per SM, else the widest that fits;
// 0 when none does.
int fused_attention_rows_per_thread(const AttentionSpec& a, std::uint64_t smem_limit, int forced) {
  if (forced) return fused_layout(a, forced).bytes <= smem_limit ? forced : 0;
  for (std::uint64_t room : {smem_limit / 2 - 1024, smem_limit})
    for (int rt : {4, 2, 1})
      if (fused_layout(a, rt).bytes <= room) return rt;
  return 0;
}

int launch_attention_fused(const void* q, const void* k, const void* v, int dtype, void* y, const AttentionSpec& a, int rt,
                           Stream stream) {
  auto s = static_cast<cudaStream_t>(stream);
  if (a.batch.numel() * a.Sq == 0 || a.Dv == 0) return 0;
  FusedLayout l = fused_layout(a, rt);
  switch (rt) {
    case 4: return launch_fused<4>(q, k, v, dtype, y, a, l, s);
    case 2: return launch_fused<2>(q, k, v, dtype, y, a, l, s);
    case 1: return launch_fused<1>(q, k, v, dtype, y, a, l, s);
    default: return static_cast<int>(cudaErrorInvalidValue);
  }
}

}  // namespace rung::cuda
