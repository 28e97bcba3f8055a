// Exact-tier f32 matmul, pipelined: the same chain as k_matmul.cu (one accumulator per output,
// from +0.0, one __fmaf_rn per k in increasing k, no split-K); the next k tiles load into a
// multi-stage shared-memory ring while the current one is multiplied. Every operand is held
// [k][row] in shared memory and read as float4 over 4 rows per k step, whatever its global
// layout: an m- (n-) contiguous operand arrives by 16-byte cp.async copies; a k-contiguous
// one by 16-byte register loads that are stored transposed after the current tile's
// arithmetic (Mode KT4). Threads are warp-tiled; tiles run in groups of 8 tile rows so
// neighbouring blocks share operand panels in L2.
// Applies when every 16-byte chunk is whole and aligned (checked on the host); otherwise the
// register-staged kernel runs. Requirements per layout: the contiguous extent and every
// other stride divisible by 4, pointers 16-byte aligned.
#include <algorithm>

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

// How an operand reaches shared memory.
//  RowCp: m- (n-) contiguous in global; 16-byte cp.async chunks into [k][row].
//  KCp:   k-contiguous; 16-byte cp.async chunks into [row][k] (read as float4 over 4 k; the
//         previous kernel's way, kept for the benchmark: 211-254 registers, slower).
//  KT4:   k-contiguous; 16-byte loads into registers issued before the current tile's
//         arithmetic and stored to their stage after it. A thread loads the same 16-byte k chunk of 4 consecutive rows (a warp: whole
//         128-byte lines), a 4 x 4 block it writes transposed as 4 float4 stores (4 rows of
//         one k each) into [k][row], so the inner loop reads it like RowCp. The 4-row groups
//         of shared line k are XOR-swizzled by k / 4, which keeps those stores free of bank
//         conflicts without padding.
enum Mode { RowCp, KCp, KT4 };

// One operand's side of the pipeline for the two cp.async modes. ROWS = BM (A) or BN (B).
template <int ROWS, int BK, int NT, Mode MODE>
struct Operand {
  static constexpr bool KC = MODE == KCp;
  static constexpr bool SMEM_KROW = KC;                           // shared layout [row][k]
  __device__ static int swz(int) { return 0; }                    // row swizzle of k group g
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
  // begin: the copies of tile kt into `stage` are issued; end: nothing left to do.
  __device__ void begin(float* stage, int kt, std::uint64_t K) {
    const float* p = src + kt * k_step;
    std::uint64_t k0 = static_cast<std::uint64_t>(kt) * BK;
#pragma unroll
    for (int r = 0; r < CHUNKS; ++r) {
      bool ok = KC ? ((row_ok >> r) & 1u) && k0 + kfix < K : row_ok && k0 + kfix + r * LINE_STEP < K;
      cp_async16(stage + (line + r * LINE_STEP) * LD + sub * 4, ok ? p + r * line_step : src, ok);
    }
  }
  __device__ void end(float*) const {}
};

template <int ROWS, int BK, int NT>
struct Operand<ROWS, BK, NT, KT4> {
  static constexpr bool SMEM_KROW = false;
  static constexpr int LD = ROWS, ELEMS = BK * LD;
  static constexpr int CPL = BK / 4, QPW = 32 / CPL, W = NT / 32;  // chunks per line, row quads per warp
  static constexpr int GSTEP = W * QPW, GROUPS = ROWS / 4 / GSTEP;  // row quads between a thread's quads, quads per thread
  static_assert(CPL >= 8 && 32 % CPL == 0 && (ROWS / 4) % GSTEP == 0 && GROUPS >= 1 && ROWS >= 32, "KT4 loader mapping");
  // Element (k, r) at k * LD + (r ^ swz(k / 4)): the 8 lanes of one 16-byte store phase hold
  // 8 different k groups, so their 4-row groups land in 8 different 16-byte bank groups.
  __device__ static int swz(int g) { return (g % 8) << 2; }

  const float* src;        // row 4 q0, k 4 c at k tile 0
  std::int64_t rs;         // global row stride
  int quad, c;             // the thread's first row quad and its k chunk inside the tile
  unsigned row_ok;         // bit 4 g + t: row t of quad group g is inside
  float4 v[GROUPS][4];

  __device__ void init(const float* base, std::int64_t rs_, std::int64_t, std::uint64_t row0, std::uint64_t rows) {
    int lane = threadIdx.x % 32, w = threadIdx.x / 32;
    c = lane % CPL;
    quad = w * QPW + lane / CPL;
    rs = rs_;
    src = base + static_cast<std::int64_t>(row0 + 4 * quad) * rs + 4 * c;
    row_ok = 0;
#pragma unroll
    for (int g = 0; g < GROUPS; ++g)
#pragma unroll
      for (int t = 0; t < 4; ++t) row_ok |= (row0 + 4 * (quad + g * GSTEP) + t < rows ? 1u : 0u) << (4 * g + t);
  }
  __device__ void begin(float*, int kt, std::uint64_t K) {
    const float* p = src + static_cast<std::int64_t>(kt) * BK;
    bool kin = static_cast<std::uint64_t>(kt) * BK + 4 * c < K;
#pragma unroll
    for (int g = 0; g < GROUPS; ++g)
#pragma unroll
      for (int t = 0; t < 4; ++t) {
        bool ok = ((row_ok >> (4 * g + t)) & 1u) && kin;
        v[g][t] = ok ? __ldcg(reinterpret_cast<const float4*>(p + (4 * g * GSTEP + t) * rs)) : make_float4(0.f, 0.f, 0.f, 0.f);
      }
  }
  __device__ void end(float* stage) const {
    float* d = stage + 4 * c * LD;
#pragma unroll
    for (int h = 0; h < GROUPS; ++h) {
      int r = (4 * (quad + h * GSTEP)) ^ swz(c);
      *reinterpret_cast<float4*>(d + r) = make_float4(v[h][0].x, v[h][1].x, v[h][2].x, v[h][3].x);
      *reinterpret_cast<float4*>(d + LD + r) = make_float4(v[h][0].y, v[h][1].y, v[h][2].y, v[h][3].y);
      *reinterpret_cast<float4*>(d + 2 * LD + r) = make_float4(v[h][0].z, v[h][1].z, v[h][2].z, v[h][3].z);
      *reinterpret_cast<float4*>(d + 3 * LD + r) = make_float4(v[h][0].w, v[h][1].w, v[h][2].w, v[h][3].w);
    }
  }
};

template <class C, Mode AM, Mode BMODE>
__global__ void __launch_bounds__(C::NT, C::MINB)
    sgemm_pipe_k(const float* __restrict__ A, const float* __restrict__ B, void* Cout, int cdt, MatmulSpec m) {
  constexpr int BM = C::BM, BN = C::BN, BK = C::BK, TM = C::TM, TN = C::TN, TX = C::TX, TY = C::TY, ST = C::STAGES;
  using OpA = Operand<BM, BK, C::NT, AM>;
  using OpB = Operand<BN, BK, C::NT, BMODE>;
  constexpr bool AK = OpA::SMEM_KROW, BK1 = OpB::SMEM_KROW;  // shared layout [row][k]
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
        a.begin(As + s * OpA::ELEMS, s, m.K);
        b.begin(Bs + s * OpB::ELEMS, s, m.K);
        a.end(As + s * OpA::ELEMS);
        b.end(Bs + s * OpB::ELEMS);
      }
      cp_commit();
    }
    // 4 k steps from the stage's shared tiles, in k order. A k-contiguous operand is read as
    // float4 over the 4 steps up front; a row-contiguous one as float4 over 4 rows per step.
    // `steps` < 4 only in a last k group of K % 4 != 0 (m- and n-contiguous operands only:
    // a k-contiguous one needs K % 4 == 0 to apply).
    auto group4 = [&](const float* as, const float* bs, int g, int steps) {
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
        if (kk >= steps) break;
        float fa[TM], fb[TN];
#pragma unroll
        for (int i = 0; i < TM; i += (AK ? 1 : 4)) {
          if constexpr (AK) {
            fa[i] = fa4[i][kk];
          } else {
            float4 v = *reinterpret_cast<const float4*>(as + (4 * g + kk) * OpA::LD + (arow[i] ^ OpA::swz(g)));
            fa[i] = v.x, fa[i + 1] = v.y, fa[i + 2] = v.z, fa[i + 3] = v.w;
          }
        }
#pragma unroll
        for (int j = 0; j < TN; j += (BK1 ? 1 : 4)) {
          if constexpr (BK1) {
            fb[j] = fb4[j][kk];
          } else {
            float4 v = *reinterpret_cast<const float4*>(bs + (4 * g + kk) * OpB::LD + (bcol[j] ^ OpB::swz(g)));
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
      const float* as = As + (kt % ST) * OpA::ELEMS;
      const float* bs = Bs + (kt % ST) * OpB::ELEMS;
      float* an = As + (nt % ST) * OpA::ELEMS;
      float* bn = Bs + (nt % ST) * OpB::ELEMS;
      std::uint64_t k0 = static_cast<std::uint64_t>(kt) * BK;
      // The last tile runs only its valid steps, a partial last group included: a padded
      // step fma(0, b, acc) would turn an accumulator of -0 into +0, and a dropped one loses
      // a term (K = 1497 lost k = 1496 before this was handled).
      if (nt < ktiles) {
        a.begin(an, nt, m.K);
        b.begin(bn, nt, m.K);
      }
      cp_commit();
      if (k0 + BK <= m.K) {
#pragma unroll
        for (int g = 0; g < BK / 4; ++g) group4(as, bs, g, 4);
      } else {
        int groups = static_cast<int>((m.K - k0) / 4), rest = static_cast<int>((m.K - k0) % 4);
        for (int g = 0; g < groups; ++g) group4(as, bs, g, 4);
        if (rest) group4(as, bs, groups, rest);
      }
      // Register-staged operands of tile nt go to their stage (free since this iteration's
      // barrier; read after a later one).
      if (nt < ktiles) {
        a.end(an);
        b.end(bn);
      }
    }
    cp_wait<0>();
    __syncthreads();  // every stage is free before the next batch item refills it

    std::uint64_t cbase = bz * m.M * m.N;
    // f32 without bias: 4 consecutive columns per 16-byte store where B's shared layout gives
    // this thread 4 consecutive columns (N % 4 == 0 keeps a group inside or outside whole).
    const bool vec = !BK1 && cdt == F32 && !m.bias && m.N % 4 == 0 && (reinterpret_cast<std::uintptr_t>(Cout) & 15u) == 0;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      std::uint64_t r = row0 + arow[i];
      if (r >= m.M) continue;
      if (vec) {
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
          std::uint64_t c = col0 + bcol[j];
          if (c >= m.N) continue;
          *reinterpret_cast<float4*>(static_cast<float*>(Cout) + cbase + r * m.N + c) =
              make_float4(canon(acc[i][j]), canon(acc[i][j + 1]), canon(acc[i][j + 2]), canon(acc[i][j + 3]));
        }
        continue;
      }
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

template <class C, Mode AM, Mode BMODE>
constexpr std::size_t smem_bytes() {
  return sizeof(float) * C::STAGES * (Operand<C::BM, C::BK, C::NT, AM>::ELEMS + Operand<C::BN, C::BK, C::NT, BMODE>::ELEMS);
}

// The kernel with its shared-memory size allowed (once per instantiation; an error sticks).
template <class C, Mode AM, Mode BMODE>
cudaError_t prepared() {
  static const cudaError_t attr = cudaFuncSetAttribute(sgemm_pipe_k<C, AM, BMODE>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                       static_cast<int>(smem_bytes<C, AM, BMODE>()));
  return attr;
}

template <class C, Mode AM, Mode BMODE>
int launch_layout(const float* a, const float* b, void* c, int cdt, const MatmulSpec& m, cudaStream_t s) {
  constexpr std::size_t smem = smem_bytes<C, AM, BMODE>();
  if (cudaError_t e = prepared<C, AM, BMODE>(); e != cudaSuccess) return static_cast<int>(e);
  std::uint64_t tiles = ((m.M + C::BM - 1) / C::BM) * ((m.N + C::BN - 1) / C::BN);
  if (tiles > 0x7fffffffull) return static_cast<int>(cudaErrorInvalidValue);
  dim3 grid(static_cast<unsigned>(tiles), 1, static_cast<unsigned>(m.batch.numel() < 65535 ? m.batch.numel() : 65535));
  sgemm_pipe_k<C, AM, BMODE><<<grid, C::NT, smem, s>>>(a, b, c, cdt, m);
  return launch_status();
}

// Blocks of this instantiation resident on one SM (registers and shared memory decide).
template <class C, Mode AM, Mode BMODE>
int blocks_per_sm() {
  static const int n = [] {
    int blocks = 0;
    if (prepared<C, AM, BMODE>() != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, sgemm_pipe_k<C, AM, BMODE>, C::NT, smem_bytes<C, AM, BMODE>()) != cudaSuccess)
      return 1;
    return blocks > 0 ? blocks : 1;
  }();
  return n;
}

template <class C, Mode KMODE>
int blocks_per_sm_for(const MatmulSpec& m) {
  bool ak = m.a_ks == 1, bk = m.b_ks == 1;
  if (ak && bk) return blocks_per_sm<C, KMODE, KMODE>();
  if (ak) return blocks_per_sm<C, KMODE, RowCp>();
  if (bk) return blocks_per_sm<C, RowCp, KMODE>();
  return blocks_per_sm<C, RowCp, RowCp>();
}

// KMODE: how a k-contiguous operand is brought in; the others use RowCp.
template <class C, Mode KMODE>
int launch_cfg(const float* a, const float* b, void* c, int cdt, const MatmulSpec& m, cudaStream_t s) {
  bool ak = m.a_ks == 1, bk = m.b_ks == 1;
  if (ak && bk) return launch_layout<C, KMODE, KMODE>(a, b, c, cdt, m, s);
  if (ak) return launch_layout<C, KMODE, RowCp>(a, b, c, cdt, m, s);
  if (bk) return launch_layout<C, RowCp, KMODE>(a, b, c, cdt, m, s);
  return launch_layout<C, RowCp, RowCp>(a, b, c, cdt, m, s);
}

// The configurations. Shipped: Main (128 x 128 x 64 tiles, two stages: half the barriers and
// loop overhead per flop of k tiles of 32); Narrow (128 x 64 x 32, several blocks per SM)
// where N <= 64 or Main's last wave would leave many SMs idle. The others are for the
// benchmark only (Main3: three stages; Big: k tiles of 32, three stages).
using Main = Cfg<128, 128, 64, 32, 64, 8, 8, 2, 1>;
using Narrow = Cfg<128, 64, 32, 64, 32, 8, 8, 3, 1>;
using Main3 = Cfg<128, 128, 64, 32, 64, 8, 8, 3, 1>;
using Big = Cfg<128, 128, 32, 32, 64, 8, 8, 3, 1>;
// Smaller tiles for products with few outputs and a long k (the block's weight gradients,
// [768 x 8192] . [8192 x 768]): more tiles keep more SMs busy where the chain forbids split-K.
using Mid = Cfg<64, 128, 32, 32, 64, 8, 8, 3, 2>;
using Small = Cfg<64, 64, 32, 32, 32, 4, 8, 3, 4>;
using Tiny = Cfg<32, 64, 32, 32, 32, 4, 8, 3, 6>;

bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

// A cost model for choosing the tile configuration, in units of output elements (tile area)
// an SM works through, divided by the configuration's measured efficiency. Blocks spread
// evenly over the SMs; an SM runs them in rounds of at most `per_sm` resident blocks, and a
// round with fewer than 8 resident warps runs proportionally slower (latency no longer
// hidden: a lone 4-warp block reaches half the rate). Efficiencies: TFLOP/s at 4096^3 on the
// H200 relative to Main (bench/RESULTS.md, 2026-11-30). Fitted on the transformer block's
// shapes: [768 x 8192] . [8192 x 768] takes Main 0.748 ms, Small 0.458, Tiny 0.441 (the model:
// 1 : 0.60 : 0.61); [768 x 8192] . [8192 x 3072] Main 1.398, Small 1.048 (model 0.75).
template <class C>
double cost(const MatmulSpec& m, int sms, int per_sm, double efficiency) {
  std::uint64_t tiles = ((m.M + C::BM - 1) / C::BM) * ((m.N + C::BN - 1) / C::BN) * m.batch.numel();
  std::uint64_t blocks = (tiles + sms - 1) / static_cast<std::uint64_t>(sms);  // on the busiest SM
  auto round = [&](std::uint64_t r) {
    double warps = static_cast<double>(r) * C::NT / 32.0;
    return static_cast<double>(r) * C::BM * C::BN / (efficiency * std::min(1.0, warps / 8.0));
  };
  std::uint64_t p = static_cast<std::uint64_t>(per_sm);
  return static_cast<double>(blocks / p) * round(p) + (blocks % p ? round(blocks % p) : 0.0);
}}  // namespace

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
  if (m.N <= 64) return launch_cfg<Narrow, KT4>(a, b, c, c_dtype, m, s);
  // Main unless the cost model says smaller tiles (more of them, several blocks per SM)
  // finish sooner: grids that leave SMs idle or end in a thin last wave.
  int device = 0, sms = 0;
  if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess || sms <= 0)
    return launch_cfg<Main, KT4>(a, b, c, c_dtype, m, s);
  double main = cost<Main>(m, sms, blocks_per_sm_for<Main, KT4>(m), 1.0);
  double narrow = cost<Narrow>(m, sms, blocks_per_sm_for<Narrow, KT4>(m), 0.887);
  double small = cost<Small>(m, sms, blocks_per_sm_for<Small, KT4>(m), 0.834);
  double tiny = cost<Tiny>(m, sms, blocks_per_sm_for<Tiny, KT4>(m), 0.824);
  double best = std::min({main, narrow, small, tiny});
  if (best == main) return launch_cfg<Main, KT4>(a, b, c, c_dtype, m, s);
  if (best == small) return launch_cfg<Small, KT4>(a, b, c, c_dtype, m, s);
  if (best == tiny) return launch_cfg<Tiny, KT4>(a, b, c, c_dtype, m, s);
  return launch_cfg<Narrow, KT4>(a, b, c, c_dtype, m, s);
}

int launch_sgemm_pipe_variant(int variant, const float* a, const float* b, void* c, const MatmulSpec& m, Stream stream) {
  auto s = static_cast<cudaStream_t>(stream);
  if (!sgemm_pipe_applies(a, b, m)) return static_cast<int>(cudaErrorInvalidValue);
  switch (variant) {
    case 0: return launch_sgemm_pipe(a, b, c, F32, m, s);
    case 1: return launch_cfg<Main, KT4>(a, b, c, F32, m, s);
    case 2: return launch_cfg<Narrow, KT4>(a, b, c, F32, m, s);
    case 3: return launch_cfg<Main3, KT4>(a, b, c, F32, m, s);
    case 4: return launch_cfg<Big, KT4>(a, b, c, F32, m, s);
    case 5: return launch_cfg<Big, KCp>(a, b, c, F32, m, s);
    case 6: return launch_cfg<Mid, KT4>(a, b, c, F32, m, s);
    case 7: return launch_cfg<Small, KT4>(a, b, c, F32, m, s);
    case 8: return launch_cfg<Tiny, KT4>(a, b, c, F32, m, s);
    default: return static_cast<int>(cudaErrorInvalidValue);
  }
}

}  // namespace rung::cuda
