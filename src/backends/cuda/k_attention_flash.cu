// Tier fast attention for bf16/f16 operands: a flash-style kernel (online softmax, scores
// and probabilities only in registers) on the tensor cores. Per block 16 queries per warp
// (8 warps by default); per 64-key tile, S = Q K^T by mma.sync m16n8k16 (bf16/f16 in, f32
// accumulation), the running max and sum rescaled in f32 with exp2 (ex2.approx), P rounded
// to the operand type, O += P V by mma.sync. K/V tiles are double-buffered with cp.async;
// causal blocks stop at the last key their last query sees. Results are inside the op's
// `loose` class for tier fast, not the reference's bits (the host's guard decides who runs).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "backends/cuda/k_attention.cuh"

namespace rung::cuda {
namespace {

constexpr int kBK = 64;
constexpr int kFlashWarps = 8;  // 128-query blocks: 0.118 ms vs 0.123 for 64 at the block's shape (bench/RESULTS.md)

__device__ inline void cp16(void* smem, const void* g, bool valid) {
  unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  int n = valid ? 16 : 0;  // 0: the 16 bytes are zero-filled, nothing is read
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(g), "r"(n));
}
__device__ inline void cp_commit() { asm volatile("cp.async.commit_group;\n" ::); }
__device__ inline void cp_wait_all() { asm volatile("cp.async.wait_group 0;\n" ::); }

__device__ inline void ldsm_x4(unsigned (&r)[4], const void* p) {
  unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(s));
}
__device__ inline void ldsm_x4_t(unsigned (&r)[4], const void* p) {
  unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(s));
}

template <typename T> __device__ inline void mma(float (&c)[4], const unsigned (&a)[4], unsigned b0, unsigned b1);
template <> __device__ inline void mma<__nv_bfloat16>(float (&c)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
template <> __device__ inline void mma<__half>(float (&c)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

template <typename T> __device__ inline unsigned pack2(float lo, float hi);
template <> __device__ inline unsigned pack2<__nv_bfloat16>(float lo, float hi) {
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<unsigned*>(&v);
}
template <> __device__ inline unsigned pack2<__half>(float lo, float hi) {
  __half2 v = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<unsigned*>(&v);
}

__device__ inline float ex2(float x) {
  float y;
  asm("ex2.approx.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

// HD: the head dim (D == Dv), 64 or 128; W warps of 16 query rows each. At HD 64 registers
// are capped at 128 so that 16 warps fit an SM (52 bytes spill; 0.118 ms against 0.158 with
// 132 registers for 128-query blocks, 0.123 against 0.132 for 64-query blocks).
template <int HD, typename T, int W>
__global__ void __launch_bounds__(32 * W, HD == 64 ? 16 / W : 1) attn_flash_k(const T* __restrict__ q, const T* __restrict__ k,
                                                        const T* __restrict__ v, void* y, int ydt, AttentionSpec a,
                                                        float scale_log2, std::uint64_t tiles) {
  constexpr int kThreads = 32 * W, kBQ = 16 * W;
  constexpr int LDS = HD + 8;  // padded rows: ldmatrix's 8 row addresses hit 8 distinct 16-byte bank groups
  constexpr int NT = kBK / 8, DT = HD / 8, KS = HD / 16;
  extern __shared__ __align__(16) unsigned char smem[];
  T* Qs = reinterpret_cast<T*>(smem);
  T* Ks = Qs + kBQ * LDS;      // two buffers
  T* Vs = Ks + 2 * kBK * LDS;  // two buffers
  const int t = threadIdx.x, warp = t / 32, lane = t % 32, g = lane / 4, tq = lane % 4;
  const std::uint64_t bi = blockIdx.x / tiles, tile = tiles - 1 - blockIdx.x % tiles;
  const std::uint64_t i0 = tile * kBQ;
  const AttnRow r = attn_row(a, bi);
  const T *qb = q + r.q, *kb = k + r.k, *vb = v + r.v;
  const std::uint64_t i_last = (i0 + kBQ < a.Sq ? i0 + kBQ : a.Sq) - 1;
  const int kend = static_cast<int>(attn_key_end(a, i_last));  // Sk < 2^31 (flash_attention_supports)
  const int ntiles = (kend + kBK - 1) / kBK;

  for (int c = t; c < kBQ * HD / 8; c += kThreads) {
    int row = c / (HD / 8), col = (c % (HD / 8)) * 8;
    std::uint64_t i = i0 + row;
    cp16(&Qs[row * LDS + col], i < a.Sq ? qb + i * HD + col : qb, i < a.Sq);
  }
  auto load_kv = [&](int kt, int buf) {
    for (int c = t; c < kBK * HD / 8; c += kThreads) {
      int row = c / (HD / 8), col = (c % (HD / 8)) * 8;
      int j = kt * kBK + row;
      bool ok = j < kend;
      std::int64_t off = static_cast<std::int64_t>(j) * HD + col;
      cp16(&Ks[(buf * kBK + row) * LDS + col], ok ? kb + off : kb, ok);
      cp16(&Vs[(buf * kBK + row) * LDS + col], ok ? vb + off : vb, ok);
    }
  };
  if (ntiles > 0) load_kv(0, 0);
  cp_commit();
  cp_wait_all();
  __syncthreads();

  unsigned qf[KS][4];
#pragma unroll
  for (int ks = 0; ks < KS; ++ks)
    ldsm_x4(qf[ks], &Qs[(warp * 16 + (lane % 8) + 8 * ((lane / 8) % 2)) * LDS + ks * 16 + 8 * (lane / 16)]);

  float o[DT][4];
#pragma unroll
  for (int n = 0; n < DT; ++n) o[n][0] = o[n][1] = o[n][2] = o[n][3] = 0.0f;
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
  const std::uint64_t row_i[2] = {i0 + warp * 16 + g, i0 + warp * 16 + g + 8};
  const int row_end[2] = {row_i[0] < a.Sq ? static_cast<int>(attn_key_end(a, row_i[0])) : 0,
                          row_i[1] < a.Sq ? static_cast<int>(attn_key_end(a, row_i[1])) : 0};

  for (int kt = 0; kt < ntiles; ++kt) {
    int buf = static_cast<int>(kt & 1);
    if (kt + 1 < ntiles) load_kv(kt + 1, buf ^ 1);
    cp_commit();
    const T* K = Ks + buf * kBK * LDS;
    const T* V = Vs + buf * kBK * LDS;
    float s[NT][4];
#pragma unroll
    for (int n = 0; n < NT; ++n) s[n][0] = s[n][1] = s[n][2] = s[n][3] = 0.0f;
#pragma unroll
    for (int ks = 0; ks < KS; ++ks)
#pragma unroll
      for (int np = 0; np < NT / 2; ++np) {
        unsigned b[4];
        ldsm_x4(b, &K[(np * 16 + (lane % 8) + 8 * (lane / 16)) * LDS + ks * 16 + 8 * ((lane / 8) % 2)]);
        mma<T>(s[2 * np], qf[ks], b[0], b[1]);
        mma<T>(s[2 * np + 1], qf[ks], b[2], b[3]);
      }
    // Scale into the log2 domain, hide keys a row may not see, update the running max.
    float mx[2] = {m[0], m[1]};
    if ((kt + 1) * kBK <= row_end[0]) {  // every key of the tile visible to both rows
#pragma unroll
      for (int n = 0; n < NT; ++n)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          s[n][e] *= scale_log2;
          mx[e / 2] = fmaxf(mx[e / 2], s[n][e]);
        }
    } else {
#pragma unroll
      for (int n = 0; n < NT; ++n)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          int h = e / 2;
          int j = kt * kBK + n * 8 + 2 * tq + (e & 1);
          float x = j < row_end[h] ? s[n][e] * scale_log2 : -INFINITY;
          s[n][e] = x;
          mx[h] = fmaxf(mx[h], x);
        }
    }
    float corr[2], base[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xFFFFFFFFu, mx[h], 1));
      mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xFFFFFFFFu, mx[h], 2));
      base[h] = mx[h] == -INFINITY ? 0.0f : mx[h];  // a row with nothing visible yet stays at 0
      corr[h] = ex2(m[h] - base[h]);
      m[h] = mx[h];
      l[h] *= corr[h];
    }
#pragma unroll
    for (int n = 0; n < DT; ++n) {
      o[n][0] *= corr[0], o[n][1] *= corr[0];
      o[n][2] *= corr[1], o[n][3] *= corr[1];
    }
#pragma unroll
    for (int n = 0; n < NT; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        float p = ex2(s[n][e] - base[e / 2]);
        s[n][e] = p;
        l[e / 2] += p;
      }
    // O += P V: the score accumulators of key tiles 2kk, 2kk+1 are the A fragment of k-step kk.
#pragma unroll
    for (int kk = 0; kk < kBK / 16; ++kk) {
      unsigned pa[4] = {pack2<T>(s[2 * kk][0], s[2 * kk][1]), pack2<T>(s[2 * kk][2], s[2 * kk][3]),
                        pack2<T>(s[2 * kk + 1][0], s[2 * kk + 1][1]), pack2<T>(s[2 * kk + 1][2], s[2 * kk + 1][3])};
#pragma unroll
      for (int np = 0; np < DT / 2; ++np) {
        unsigned b[4];
        ldsm_x4_t(b, &V[(kk * 16 + (lane % 8) + 8 * ((lane / 8) % 2)) * LDS + np * 16 + 8 * (lane / 16)]);
        mma<T>(o[2 * np], pa, b[0], b[1]);
        mma<T>(o[2 * np + 1], pa, b[2], b[3]);
      }
    }
    cp_wait_all();
    __syncthreads();
  }

#pragma unroll
  for (int h = 0; h < 2; ++h) {
    l[h] += __shfl_xor_sync(0xFFFFFFFFu, l[h], 1);
    l[h] += __shfl_xor_sync(0xFFFFFFFFu, l[h], 2);
  }
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    std::uint64_t i = row_i[h];
    if (i >= a.Sq) continue;
    float inv = l[h] > 0.0f ? 1.0f / l[h] : 0.0f;  // no visible key: +0, as the definition
    std::uint64_t yo = (bi * a.Sq + i) * HD;
#pragma unroll
    for (int n = 0; n < DT; ++n) {
      st(y, ydt, yo + n * 8 + 2 * tq, o[n][2 * h] * inv);
      st(y, ydt, yo + n * 8 + 2 * tq + 1, o[n][2 * h + 1] * inv);
    }
  }
}

template <int HD, typename T, int W>
int launch_flash(const void* q, const void* k, const void* v, int dt, void* y, const AttentionSpec& a, cudaStream_t s) {
  std::uint64_t tiles = (a.Sq + 16 * W - 1) / (16 * W), blocks = tiles * a.batch.numel();
  if (blocks == 0) return 0;
  if (blocks > 0x7FFFFFFFull) return static_cast<int>(cudaErrorInvalidValue);
  int bytes = static_cast<int>((16 * W + 4 * kBK) * (HD + 8) * sizeof(T));
  cudaError_t e = cudaFuncSetAttribute(attn_flash_k<HD, T, W>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  if (e != cudaSuccess) return static_cast<int>(e);
  float scale_log2 = a.scale * 1.4426950408889634f;
  attn_flash_k<HD, T, W><<<static_cast<unsigned>(blocks), 32 * W, bytes, s>>>(
      static_cast<const T*>(q), static_cast<const T*>(k), static_cast<const T*>(v), y, dt, a, scale_log2, tiles);
  return launch_status();
}

template <int HD, typename T>
int launch_flash_w(const void* q, const void* k, const void* v, int dt, void* y, const AttentionSpec& a, int warps, cudaStream_t s) {
  return warps == 8 ? launch_flash<HD, T, 8>(q, k, v, dt, y, a, s) : launch_flash<HD, T, 4>(q, k, v, dt, y, a, s);
}

}  // namespace

bool flash_attention_supports(const AttentionSpec& a, int dtype) {
  return (dtype == BF16 || dtype == F16) && !a.mask && a.D == a.Dv && (a.D == 64 || a.D == 128) && a.Sk > 0 &&
         a.Sk < (1ull << 31);
}

int launch_attention_flash(const void* q, const void* k, const void* v, int dtype, void* y, const AttentionSpec& a, Stream stream,
                           int warps) {
  auto s = static_cast<cudaStream_t>(stream);
  if (!flash_attention_supports(a, dtype) || (warps != 0 && warps != 4 && warps != 8)) return static_cast<int>(cudaErrorInvalidValue);
  if (warps == 0) warps = kFlashWarps;
  bool bf = dtype == BF16;
  if (a.D == 64)
    return bf ? launch_flash_w<64, __nv_bfloat16>(q, k, v, dtype, y, a, warps, s) : launch_flash_w<64, __half>(q, k, v, dtype, y, a, warps, s);
  return bf ? launch_flash_w<128, __nv_bfloat16>(q, k, v, dtype, y, a, warps, s)
            : launch_flash_w<128, __half>(q, k, v, dtype, y, a, warps, s);
}

}  // namespace rung::cuda
