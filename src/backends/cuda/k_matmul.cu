// Exact-tier matmul: a tiled, register-blocked SGEMM in which every output keeps one
// accumulator, starting at +0.0, and chains one fma per k in increasing k (docs/semantics.md
// §6). Tiles of k only continue the chain (no split-K, no partial sums). 128x128 outputs per
// block of 256 threads, 8x8 per thread, k tiles of 16 double-buffered through shared
// memory; the last k tile runs only its valid steps (a padded step would turn -0 into +0).
// f16/bf16 operands widen exactly on load; f64 has a plain one-thread-per-output chain.
#include "backends/cuda/k_common.cuh"
#include "ops/numerics/dot.h"

namespace rung::cuda {
namespace {

constexpr int BM = 128, BN = 128, NT = 256, APAD = 4;

template <int DT> __device__ inline float ldx(const void* p, std::int64_t i) {
  if constexpr (DT == F32) return static_cast<const float*>(p)[i];
  else if constexpr (DT == F16) return num::f32_from_f16(static_cast<const std::uint16_t*>(p)[i]);
  else return num::f32_from_bf16(static_cast<const std::uint16_t*>(p)[i]);
}

// Thread t loads BK/2 elements of each tile. Because 256 is a multiple of both BK and BM, the
// in-tile coordinates of a thread's r-th element are (fixed, base + r * step): one address
// and one step per operand, which keeps the loader's registers few.
template <int BK, int DT, bool kAK, bool kBN>  // kAK: A's k stride is 1; kBN: B's column stride is 1
__device__ inline void load_tiles(const void* A, const void* B, const MatmulSpec& m, std::int64_t aoff, std::int64_t boff,
                                  std::uint64_t row0, std::uint64_t col0, std::uint64_t k0, float (&ra)[BK / 2],
                                  float (&rb)[BK / 2]) {
  constexpr int kRowStep = NT / BK;  // rows (or columns) between a thread's elements when k is contiguous
  const int tid = threadIdx.x;
  {
    // kAK: kk = tid % BK, mm = tid / BK + (256 / BK) r;  else: mm = tid % 128, kk = tid / 128 + 2 r
    std::uint64_t gk = k0 + (kAK ? tid % BK : tid / BM), gi = row0 + (kAK ? tid / BK : tid % BM);
    std::int64_t addr = aoff + static_cast<std::int64_t>(gi) * m.a_rs + static_cast<std::int64_t>(gk) * m.a_ks;
    std::int64_t step = kAK ? kRowStep * m.a_rs : 2 * m.a_ks;
#pragma unroll
    for (int r = 0; r < BK / 2; ++r) {
      std::uint64_t ri = kAK ? gi + kRowStep * r : gi, rk = kAK ? gk : gk + 2 * r;
      ra[r] = (ri < m.M && rk < m.K) ? ldx<DT>(A, addr + r * step) : 0.0f;
    }
  }
  {
    // kBN: nn = tid % 128, kk = tid / 128 + 2 r;  else: kk = tid % BK, nn = tid / BK + (256 / BK) r
    std::uint64_t gk = k0 + (kBN ? tid / BN : tid % BK), gj = col0 + (kBN ? tid % BN : tid / BK);
    std::int64_t addr = boff + static_cast<std::int64_t>(gk) * m.b_ks + static_cast<std::int64_t>(gj) * m.b_cs;
    std::int64_t step = kBN ? 2 * m.b_ks : kRowStep * m.b_cs;
#pragma unroll
    for (int r = 0; r < BK / 2; ++r) {
      std::uint64_t rj = kBN ? gj : gj + kRowStep * r, rk = kBN ? gk + 2 * r : gk;
      rb[r] = (rj < m.N && rk < m.K) ? ldx<DT>(B, addr + r * step) : 0.0f;
    }
  }
}

template <int BK, bool kAK, bool kBN>
__device__ inline void store_tiles(float (*As)[BM + APAD], float (*Bs)[BN], const float (&ra)[BK / 2], const float (&rb)[BK / 2]) {
  const int tid = threadIdx.x;
#pragma unroll
  for (int r = 0; r < BK / 2; ++r) {
    int e = tid + NT * r;
    int kk = kAK ? e % BK : e / BM;
    int mm = kAK ? e / BK : e % BM;
    As[kk][mm] = ra[r];
  }
#pragma unroll
  for (int r = 0; r < BK / 2; ++r) {
    int e = tid + NT * r;
    int kk = kBN ? e / BN : e % BK;
    int nn = kBN ? e % BN : e / BK;
    Bs[kk][nn] = rb[r];
  }
}

__device__ inline void fma_step(const float (*As)[BM + APAD], const float (*Bs)[BN], int kk, int ty, int tx,
                                float (&acc)[8][8]) {
  float4 a0 = *reinterpret_cast<const float4*>(&As[kk][ty * 4]);
  float4 a1 = *reinterpret_cast<const float4*>(&As[kk][64 + ty * 4]);
  float4 b0 = *reinterpret_cast<const float4*>(&Bs[kk][tx * 4]);
  float4 b1 = *reinterpret_cast<const float4*>(&Bs[kk][64 + tx * 4]);
  float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
  float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = __fmaf_rn(a[i], b[j], acc[i][j]);
}

template <int BK, int MINB, int DT, bool kAK, bool kBN>
__global__ void __launch_bounds__(NT, MINB)
    sgemm_exact_k(const void* A, const void* B, void* C, int cdt, MatmulSpec m) {
  static_assert(NT % BK == 0 && BK % 2 == 0, "loader mapping");
  __shared__ __align__(16) float As[2][BK][BM + APAD];
  __shared__ __align__(16) float Bs[2][BK][BN];
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  for (std::uint64_t bz = blockIdx.z; bz < m.batch.numel(); bz += gridDim.z) {
    std::int64_t aoff = offset_of(bz, m.batch, m.a_bs), boff = offset_of(bz, m.batch, m.b_bs);
    std::uint64_t row0 = static_cast<std::uint64_t>(blockIdx.y) * BM, col0 = static_cast<std::uint64_t>(blockIdx.x) * BN;
    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;
    float ra[BK / 2], rb[BK / 2];
    if (m.K > 0) {
      load_tiles<BK, DT, kAK, kBN>(A, B, m, aoff, boff, row0, col0, 0, ra, rb);
      store_tiles<BK, kAK, kBN>(As[0], Bs[0], ra, rb);
    }
    __syncthreads();
    int cur = 0;
    for (std::uint64_t k0 = 0; k0 < m.K; k0 += BK) {
      bool has_next = k0 + BK < m.K;
      if (has_next) load_tiles<BK, DT, kAK, kBN>(A, B, m, aoff, boff, row0, col0, k0 + BK, ra, rb);
      if (k0 + BK <= m.K) {
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) fma_step(As[cur], Bs[cur], kk, ty, tx, acc);
      } else {
        int kvalid = static_cast<int>(m.K - k0);
        for (int kk = 0; kk < kvalid; ++kk) fma_step(As[cur], Bs[cur], kk, ty, tx, acc);
      }
      if (has_next) store_tiles<BK, kAK, kBN>(As[cur ^ 1], Bs[cur ^ 1], ra, rb);
      __syncthreads();
      cur ^= 1;
    }
    std::uint64_t cbase = bz * m.M * m.N;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      std::uint64_t r = row0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + (i - 4));
      if (r >= m.M) continue;
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        std::uint64_t c = col0 + (j < 4 ? tx * 4 + j : 64 + tx * 4 + (j - 4));
        if (c >= m.N) continue;
        float v = acc[i][j];
        if (m.bias) v = v + ld<float>(m.bias, m.bias_dtype, c);
        st(C, cdt, cbase + r * m.N + c, v);
      }
    }
    __syncthreads();
  }
}

__global__ void dgemm_exact_k(const double* A, const double* B, double* C, MatmulSpec m) {
  std::uint64_t per = m.M * m.N, total = per * m.batch.numel();
  RUNG_GRID_LOOP(idx, total) {
    std::uint64_t bz = idx / per, ij = idx % per, i = ij / m.N, j = ij % m.N;
    std::int64_t a0 = offset_of(bz, m.batch, m.a_bs) + static_cast<std::int64_t>(i) * m.a_rs;
    std::int64_t b0 = offset_of(bz, m.batch, m.b_bs) + static_cast<std::int64_t>(j) * m.b_cs;
    double acc = num::dot_chain_f64(
        m.K, [&](std::uint64_t k) { return A[a0 + static_cast<std::int64_t>(k) * m.a_ks]; },
        [&](std::uint64_t k) { return B[b0 + static_cast<std::int64_t>(k) * m.b_ks]; });
    if (m.bias) acc = acc + static_cast<const double*>(m.bias)[j];
    C[idx] = canon(acc);
  }
}

template <int BK, int MINB, int DT>
int launch_typed(const void* a, const void* b, void* c, int cdt, const MatmulSpec& m, cudaStream_t s) {
  dim3 grid(static_cast<unsigned>((m.N + BN - 1) / BN), static_cast<unsigned>((m.M + BM - 1) / BM),
            static_cast<unsigned>(m.batch.numel() < 65535 ? m.batch.numel() : 65535));
  bool ak = m.a_ks == 1, bn = m.b_cs == 1;
  if (ak && bn) sgemm_exact_k<BK, MINB, DT, true, true><<<grid, NT, 0, s>>>(a, b, c, cdt, m);
  else if (ak) sgemm_exact_k<BK, MINB, DT, true, false><<<grid, NT, 0, s>>>(a, b, c, cdt, m);
  else if (bn) sgemm_exact_k<BK, MINB, DT, false, true><<<grid, NT, 0, s>>>(a, b, c, cdt, m);
  else sgemm_exact_k<BK, MINB, DT, false, false><<<grid, NT, 0, s>>>(a, b, c, cdt, m);
  return launch_status();
}

// The tile configuration the exact path uses (picked by cuda_gemm_bench on an H200).
constexpr int kBK = 16, kMinBlocks = 1;

}  // namespace

int launch_matmul_exact_variant(int variant, const void* a, const void* b, void* c, const MatmulSpec& m, Stream stream) {
  auto s = static_cast<cudaStream_t>(stream);
  switch (variant) {
    case 0: return launch_typed<16, 1, F32>(a, b, c, F32, m, s);
    case 1: return launch_typed<8, 2, F32>(a, b, c, F32, m, s);
    case 2: return launch_typed<16, 2, F32>(a, b, c, F32, m, s);
    case 3: return launch_typed<8, 1, F32>(a, b, c, F32, m, s);
    default: return static_cast<int>(cudaErrorInvalidValue);
  }
}

int launch_matmul_exact(const void* a, const void* b, int dtype, void* c, int c_dtype, const MatmulSpec& m, Stream stream) {
  auto s = static_cast<cudaStream_t>(stream);
  if (m.M == 0 || m.N == 0 || m.batch.numel() == 0) return 0;
  if (m.M > (1ull << 31) / 2 || m.N > (1ull << 31) / 2) return static_cast<int>(cudaErrorInvalidValue);
  switch (dtype) {
    case F32:
      if (sgemm_pipe_applies(a, b, m)) return launch_sgemm_pipe(static_cast<const float*>(a), static_cast<const float*>(b), c, c_dtype, m, s);
      return launch_typed<kBK, kMinBlocks, F32>(a, b, c, c_dtype, m, s);
    case F16: return launch_typed<kBK, kMinBlocks, F16>(a, b, c, c_dtype, m, s);
    case BF16: return launch_typed<kBK, kMinBlocks, BF16>(a, b, c, c_dtype, m, s);
    case F64: {
      std::uint64_t total = m.M * m.N * m.batch.numel();
      dgemm_exact_k<<<blocks_for(total, 128), 128, 0, s>>>(static_cast<const double*>(a), static_cast<const double*>(b),
                                                          static_cast<double*>(c), m);
      return launch_status();
    }
    default: return static_cast<int>(cudaErrorInvalidValue);
  }
}

}  // namespace rung::cuda
