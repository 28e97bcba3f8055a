// Exact-tier f32 matmul, pipelined: the same chain as k_matmul.cu (one accumulator per output,
// from +0.0, one __fmaf_rn per k in increasing k, no split-K), fed by 16-byte cp.async copies
// into a multi-stage shared-memory ring, so no register staging and no transposing stores.
// Each operand keeps its global layout in shared memory: a k-contiguous operand is stored
// [row][k] (padded by 4 floats, which makes the 8 rows a warp reads land in 8 different
// 16-byte bank groups) and read as float4 over 4 k; an m- (n-) contiguous operand is stored
// [k][row] and read as float4 over 4 rows. Threads are warp-tiled; tiles run in groups of 8
// tile rows so neighbouring blocks share operand panels in L2.
// Applies when every 16-byte chunk is whole and aligned (checked on the host); otherwise the
// register-staged kernel runs. Requirements per layout: the contiguous extent and every
// other stride divisible by 4, pointers 16-byte aligned.
#include "backends/cuda/k_common.cuh"

namespace rung::cuda {
namespace {

// BM x BN outputs per block, k tiles of BK, warps of WM x WN outputs, threads of TM x TN,
// STAGES tiles in flight, MINB blocks per SM for the register budget.
template <int BM_, int BN_, int BK_, int WM_, int WN_, int TM_, int TN_, int STAGES_, int MINB_>
struct Cfg {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, TM = TM_, TN = TN_, STAGES = STAGES_,
                       MINB = MINB_;
  static constexpr int WARPS_N = BN / WN, NT = (BM / WM) * WARPS_N * 32;
  static constexpr int TX = WN / TN, TY = WM / TM;  // threads of a warp along n and m
  static_assert(TX * TY == 32 && TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0, "warp tiling");
};

__device__ inline void cp_async16(float* smem, const float* gmem, bool valid) {
  unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  int n = valid ? 16 : 0;  // 0: the 16 bytes are zero-filled and nothing is read
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(n) : "memory");
}
__device__ inline void cp_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> __device__ inline void cp_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

// One operand's side of the pipeline. ROWS = BM (A) or BN (B); KC = the operand is
// k-contiguous (A not transposed, B transposed).
template <int ROWS, int BK, int NT, bool KC>
struct Operand {
  static constexpr int LD = KC ? BK + 4 : ROWS;                  // shared row length in floats
  static constexpr int ELEMS = KC ? ROWS * LD : BK * LD;          // one stage
  static constexpr int CPL = KC ? BK / 4 : ROWS / 4;              // 16-byte chunks per shared line
  static constexpr int CHUNKS = ROWS * BK / 4 / NT;               // chunks per thread per stage
  static constexpr int LINE_STEP = NT / CPL;                      // lines between a thread's chunks
  static_assert((ROWS * BK / 4) % NT == 0 && NT % CPL == 0, "loader mapping");

  const float* src;       // this thread's first chunk at k tile 0
  std::int64_t line_step;  // global offset between its chunks
  std::int64_t k_step;     // global offset from one k tile to the next
  int line, sub;          // first line and chunk-in-line in shared memory
  unsigned row_ok;        // KC: bit r = chunk r's row is inside; else all rows of the chunk
  std::uint64_t kfix;     // KC: the chunk's first k inside the tile; else its line (= k)

  // rs: stride between rows (m or n), ks: stride between k; row0: the block's first row.
  __device__ void init(const float* base, std::int64_t rs, std::int64_t ks, std::uint64_t row0, std::uint64_t rows) {
    int t = threadIdx.x;
    line = t / CPL;
    sub = t % CPL;
    if constexpr (KC) {
      src = base + static_cast<std::int64_t>(row0 + line) * rs + sub * 4;
      line_step = LINE_STEP * rs;
      kfix = sub * 4;
      row_ok = 0;
#pragma unroll
      for (int r = 0; r < CHUNKS; ++r) row_ok |= (row0 + line + r * LINE_STEP < rows ? 1u : 0u) << r;
    } else {
      src = base + static_cast<std::int64_t>(line) * ks + static_cast<std::int64_t>(row0 + sub * 4) * rs;
      line_step = LINE_STEP * ks;
      kfix = line;
      row_ok = row0 + sub * 4 < rows ? ~0u : 0u;
    }
    k_step = BK * ks;
  }
  __device__ void load(float* stage, int kt, std::uint64_t K) const {
    const float* p = src + kt * k_step;
    std::uint64_t k0 = static_cast<std::uint64_t>(kt) * BK;
#pragma unroll
    for (int r = 0; r < CHUNKS; ++r) {
      bool ok = KC ? ((row_ok >> r) & 1u) && k0 + kfix < K : row_ok && k0 + kfix + r * LINE_STEP < K;
      cp_async16(stage + (line + r * LINE_STEP) * LD + sub * 4, ok ? p + r * line_step : src, ok);
    }
  }
};

template <class C, bool AK, bool BK1>  // AK: A is k-contiguous; BK1: B is k-contiguous
__global__ void __launch_bounds__(C::NT, C::MINB)
    sgemm_pipe_k(const float* __restrict__ A, const float* __restrict__ B, void* Cout, int cdt, MatmulSpec m) {
  constexpr int BM = C::BM, BN = C::BN, BK = C::BK, TM = C::TM, TN = C::TN, TX = C::TX, TY = C::TY, ST = C::STAGES;
  using OpA = Operand<BM, BK, C::NT, AK>;
  using OpB = Operand<BN, BK, C::NT, BK1>;
  extern __shared__ __align__(16) float smem[];
  float* As = smem;
  float* Bs = smem + ST * OpA::ELEMS;

  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int wm = warp / C::WARPS_N, wn = warp % C::WARPS_N, ty = lane / TX, tx = lane % TX;
  // Block -> tile, in groups of 8 tile rows (L2 reuse of the B panels).
  const unsigned tiles_n = static_cast<unsigned>((m.N + BN - 1) / BN), tiles_m = static_cast<unsigned>((m.M + BM - 1) / BM);
  const unsigned per_group = 8 * tiles_n, group = blockIdx.x / per_group, first = group * 8;
  const unsigned gsize = tiles_m - first < 8 ? tiles_m - first : 8, in_group = blockIdx.x % per_group;
  const std::uint64_t row0 = static_cast<std::uint64_t>(first + in_group % gsize) * BM;
  const std::uint64_t col0 = static_cast<std::uint64_t>(in_group / gsize) * BN;

  // The shared-memory offsets of this thread's rows (A) and columns (B): k-contiguous
  // operands interleave (row = base + t + T i: 8 different rows per read), the others take
  // 4 consecutive rows per float4.
  int arow[TM], bcol[TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
    arow[i] = wm * C::WM + (AK ? ty + TY * i : (i / 4) * 4 * TY + ty * 4 + i % 4);
#pragma unroll
  for (int j = 0; j < TN; ++j)
    bcol[j] = wn * C::WN + (BK1 ? tx + TX * j : (j / 4) * 4 * TX + tx * 4 + j % 4);

  const int ktiles = static_cast<int>((m.K + BK - 1) / BK);
  for (std::uint64_t bz = blockIdx.z; bz < m.batch.numel(); bz += gridDim.z) {
    OpA a;
    OpB b;
    a.init(A + offset_of(bz, m.batch, m.a_bs), m.a_rs, m.a_ks, row0, m.M);
    b.init(B + offset_of(bz, m.batch, m.b_bs), m.b_cs, m.b_ks, col0, m.N);
    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

#pragma unroll
    for (int s = 0; s < ST - 1; ++s) {
      if (s < ktiles) {
        a.load(As + s * OpA::ELEMS, s, m.K);
        b.load(Bs + s * OpB::ELEMS, s, m.K);
      }
      cp_commit();
    }
    // 4 k steps from the stage's shared tiles, in k order. A k-contiguous operand is read as
    // float4 over the 4 steps up front; a row-contiguous one as float4 over 4 rows per step.
    auto group4 = [&](const float* as, const float* bs, int g) {
      float fa4[AK ? TM : 1][4], fb4[BK1 ? TN : 1][4];
      if constexpr (AK) {
#pragma unroll
        for (int i = 0; i < TM; ++i) {
          float4 v = *reinterpret_cast<const float4*>(as + arow[i] * OpA::LD + 4 * g);
          fa4[i][0] = v.x, fa4[i][1] = v.y, fa4[i][2] = v.z, fa4[i][3] = v.w;
        }
      }
      if constexpr (BK1) {
#pragma unroll
        for (int j = 0; j < TN; ++j) {
          float4 v = *reinterpret_cast<const float4*>(bs + bcol[j] * OpB::LD + 4 * g);
          fb4[j][0] = v.x, fb4[j][1] = v.y, fb4[j][2] = v.z, fb4[j][3] = v.w;
        }
      }
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        float fa[TM], fb[TN];
#pragma unroll
        for (int i = 0; i < TM; i += (AK ? 1 : 4)) {
          if constexpr (AK) {
            fa[i] = fa4[i][kk];
          } else {
            float4 v = *reinterpret_cast<const float4*>(as + (4 * g + kk) * OpA::LD + arow[i]);
            fa[i] = v.x, fa[i + 1] = v.y, fa[i + 2] = v.z, fa[i + 3] = v.w;
          }
        }
#pragma unroll
        for (int j = 0; j < TN; j += (BK1 ? 1 : 4)) {
          if constexpr (BK1) {
            fb[j] = fb4[j][kk];
          } else {
            float4 v = *reinterpret_cast<const float4*>(bs + (4 * g + kk) * OpB::LD + bcol[j]);
            fb[j] = v.x, fb[j + 1] = v.y, fb[j + 2] = v.z, fb[j + 3] = v.w;
          }
        }
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int j = 0; j < TN; ++j) acc[i][j] = __fmaf_rn(fa[i], fb[j], acc[i][j]);
      }
    };

    for (int kt = 0; kt < ktiles; ++kt) {
      cp_wait<ST - 2>();  // tile kt has landed (this thread's copies) ...
      __syncthreads();    // ... and everyone's; the stage read at kt - 1 is free again
      int nt = kt + ST - 1;
      if (nt < ktiles) {
        a.load(As + (nt % ST) * OpA::ELEMS, nt, m.K);
        b.load(Bs + (nt % ST) * OpB::ELEMS, nt, m.K);
      }
      cp_commit();
      const float* as = As + (kt % ST) * OpA::ELEMS;
      const float* bs = Bs + (kt % ST) * OpB::ELEMS;
      std::uint64_t k0 = static_cast<std::uint64_t>(kt) * BK;
      if (k0 + BK <= m.K) {
#pragma unroll
        for (int g = 0; g < BK / 4; ++g) group4(as, bs, g);
      } else {
        // The last tile runs only its valid steps (K % 4 == 0 here, so whole groups): a
        // padded step fma(0, b, acc) would turn an accumulator of -0 into +0.
        int groups = static_cast<int>((m.K - k0) / 4);
        for (int g = 0; g < groups; ++g) group4(as, bs, g);
      }
    }
    cp_wait<0>();
    __syncthreads();  // every stage is free before the next batch item refills it

    std::uint64_t cbase = bz * m.M * m.N;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      std::uint64_t r = row0 + arow[i];
      if (r >= m.M) continue;
#pragma unroll
      for (int j = 0; j < TN; ++j) {
        std::uint64_t c = col0 + bcol[j];
        if (c >= m.N) continue;
        float v = acc[i][j];
        if (m.bias) v = v + ld<float>(m.bias, m.bias_dtype, c);
        st(Cout, cdt, cbase + r * m.N + c, v);
      }
    }
  }
}

template <class C, bool AK, bool BK1>
int launch_layout(const float* a, const float* b, void* c, int cdt, const MatmulSpec& m, cudaStream_t s) {
  constexpr std::size_t smem = sizeof(float) * C::STAGES *
                               (Operand<C::BM, C::BK, C::NT, AK>::ELEMS + Operand<C::BN, C::BK, C::NT, BK1>::ELEMS);
  auto kernel = sgemm_pipe_k<C, AK, BK1>;
  static const cudaError_t attr = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  if (attr != cudaSuccess) return static_cast<int>(attr);
  std::uint64_t tiles = ((m.M + C::BM - 1) / C::BM) * ((m.N + C::BN - 1) / C::BN);
  if (tiles > 0x7fffffffull) return static_cast<int>(cudaErrorInvalidValue);
  dim3 grid(static_cast<unsigned>(tiles), 1, static_cast<unsigned>(m.batch.numel() < 65535 ? m.batch.numel() : 65535));
  kernel<<<grid, C::NT, smem, s>>>(a, b, c, cdt, m);
  return launch_status();
}

template <class C>
int launch_cfg(const float* a, const float* b, void* c, int cdt, const MatmulSpec& m, cudaStream_t s) {
  bool ak = m.a_ks == 1, bk = m.b_ks == 1;
  if (ak && bk) return launch_layout<C, true, true>(a, b, c, cdt, m, s);
  if (ak) return launch_layout<C, true, false>(a, b, c, cdt, m, s);
  if (bk) return launch_layout<C, false, true>(a, b, c, cdt, m, s);
  return launch_layout<C, false, false>(a, b, c, cdt, m, s);
}

// The shipped configurations: Big; Narrow (128 x 64 tiles, two blocks per SM by registers)
// where a 128-wide tile would be half empty (N <= 64: the attention products at head width
// 64). The others are for the benchmark only.
using Big = Cfg<128, 128, 32, 32, 64, 8, 8, 3, 1>;
using Narrow = Cfg<128, 64, 32, 64, 32, 8, 8, 3, 1>;
using V2 = Cfg<128, 128, 16, 32, 64, 8, 8, 3, 1>;
using V3 = Cfg<128, 128, 32, 64, 32, 8, 8, 3, 1>;
using V4 = Cfg<128, 128, 32, 32, 64, 8, 8, 4, 1>;
using V5 = Cfg<64, 128, 16, 32, 32, 4, 8, 4, 2>;

bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

}  // namespace

bool sgemm_pipe_applies(const void* a, const void* b, const MatmulSpec& m) {
  auto div4 = [](std::int64_t v) { return v % 4 == 0; };
  if (!aligned16(a) || !aligned16(b) || m.M == 0 || m.N == 0 || m.K == 0) return false;
  bool ak = m.a_ks == 1, am = m.a_rs == 1, bk = m.b_ks == 1, bn = m.b_cs == 1;
  // A: [row][k] chunks need K % 4 and the row stride % 4; [k][row] chunks need M % 4 and the k stride % 4.
  if (ak ? !(m.K % 4 == 0 && div4(m.a_rs)) : !(am && m.M % 4 == 0 && div4(m.a_ks))) return false;
  if (bk ? !(m.K % 4 == 0 && div4(m.b_cs)) : !(bn && m.N % 4 == 0 && div4(m.b_ks))) return false;
  for (int i = 0; i < m.batch.rank; ++i)
    if (!div4(m.a_bs[i]) || !div4(m.b_bs[i])) return false;
  return true;
}

int launch_sgemm_pipe(const float* a, const float* b, void* c, int c_dtype, const MatmulSpec& m, Stream stream) {
  auto s = static_cast<cudaStream_t>(stream);
  if (m.N <= 64) return launch_cfg<Narrow>(a, b, c, c_dtype, m, s);
  return launch_cfg<Big>(a, b, c, c_dtype, m, s);
}

int launch_sgemm_pipe_variant(int variant, const float* a, const float* b, void* c, const MatmulSpec& m, Stream stream) {
  auto s = static_cast<cudaStream_t>(stream);
  // Only the plain layout for the others (A k-contiguous, B n-contiguous): compile time.
  const bool nn = m.a_ks == 1 && m.b_cs == 1 && sgemm_pipe_applies(a, b, m);
  const int bad = static_cast<int>(cudaErrorInvalidValue);
  if (!sgemm_pipe_applies(a, b, m)) return bad;
  switch (variant) {
    case 0: return launch_cfg<Big>(a, b, c, F32, m, s);
    case 1: return launch_cfg<Narrow>(a, b, c, F32, m, s);
    case 2: return nn ? launch_layout<V2, true, false>(a, b, c, F32, m, s) : bad;
    case 3: return nn ? launch_layout<V3, true, false>(a, b, c, F32, m, s) : bad;
    case 4: return nn ? launch_layout<V4, true, false>(a, b, c, F32, m, s) : bad;
    case 5: return nn ? launch_layout<V5, true, false>(a, b, c, F32, m, s) : bad;
    default: return bad;
  }
}

}  // namespace rung::cuda
