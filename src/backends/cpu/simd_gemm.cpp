// The exact-path GEMM (simd.h): BLIS-style blocking (KC x NC panels of B, MC x KC blocks of
// A, both packed) around an MR x NR register tile. Each C element is one fma chain over k in
// increasing order from +0 (or, with `accumulate`, from C's value): the first k-block starts
// the tile at zero, later k-blocks load the tile from C and continue the chain, so blocking
// never reassociates anything.
// Targets without a fused multiply-add (HWY_NATIVE_FMA 0: SSSE3, SSE4, scalar) take the
// fma per lane from num::fma_f32 (correct, slower): a separate multiply and add would round twice.
// WASM's f32 GEMM is its own exact kernel (wasm/exact_gemm.h: f64x2 lanes and a midpoint test).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/simd_gemm.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
#include <hwy/aligned_allocator.h>

#include <algorithm>
#include <cstring>

#include "backends/cpu/simd.h"
#include "ops/numerics/ieee.h"
#if HWY_TARGET == HWY_WASM
#include "backends/cpu/wasm/exact_gemm.h"
#endif

HWY_BEFORE_NAMESPACE();
namespace rung::cpu::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Highway's own word per compiled target: MulAdd is one rounding only where HWY_NATIVE_FMA
// is 1 (not on SSSE3, SSE4, EMU128, scalar, WASM, WASM_EMU256, nor AVX2 built with
// HWY_DISABLE_BMI2_FMA). A list of target names would miss a target it does not name.
constexpr bool kFusedMulAdd = HWY_NATIVE_FMA != 0;

#if HWY_TARGET <= HWY_AVX3 && HWY_ARCH_X86
constexpr size_t kMR = 12;  // 24 accumulators + 2 B vectors + 1 broadcast of 32 registers
#else
constexpr size_t kMR = 6;   // 12 accumulators + 3 of 16 registers
#endif

template <class D, class V> HWY_INLINE V Fma(D d, V a, V b, V c) {
  if constexpr (kFusedMulAdd) {
    (void)d;
    return hn::MulAdd(a, b, c);
  } else {
    using T = hn::TFromD<D>;
    HWY_ALIGN T x[hn::MaxLanes(d)], y[hn::MaxLanes(d)], z[hn::MaxLanes(d)];
    hn::Store(a, d, x);
    hn::Store(b, d, y);
    hn::Store(c, d, z);
    for (size_t i = 0; i < hn::Lanes(d); ++i) {
      if constexpr (sizeof(T) == 4) z[i] = num::fma_f32(x[i], y[i], z[i]);
      else z[i] = num::fma_f64(x[i], y[i], z[i]);
    }
    return hn::Load(d, z);
  }
}

// The register tile: c (row stride ldc) += packed A panel (kc x MR) * packed B panel (kc x NR).
#if HWY_HAVE_SCALABLE
// SVE vectors are sizeless and cannot be array elements: the 2 x MR accumulators are named.
static_assert(kMR == 6, "the SVE tile names six rows");
template <typename T>
HWY_INLINE void Micro(size_t kc, const T* HWY_RESTRICT pa, const T* HWY_RESTRICT pb, T* HWY_RESTRICT c, size_t ldc,
                      bool first) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  using V = hn::Vec<decltype(d)>;
#define RUNG_TILE_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5)
#define RUNG_TILE_INIT(r)                                     \
  V c0_##r = hn::Zero(d), c1_##r = hn::Zero(d);               \
  if (!first) {                                               \
    c0_##r = hn::LoadU(d, c + (r) * ldc);                     \
    c1_##r = hn::LoadU(d, c + (r) * ldc + N);                 \
  }
#define RUNG_TILE_FMA(r)                 \
  {                                      \
    const V a = hn::Set(d, pa[r]);       \
    c0_##r = Fma(d, a, b0, c0_##r);      \
    c1_##r = Fma(d, a, b1, c1_##r);      \
  }
#define RUNG_TILE_STORE(r)                     \
  hn::StoreU(c0_##r, d, c + (r) * ldc);        \
  hn::StoreU(c1_##r, d, c + (r) * ldc + N);
  RUNG_TILE_ROWS(RUNG_TILE_INIT)
#pragma GCC unroll 4
  for (size_t k = 0; k < kc; ++k) {
    const V b0 = hn::Load(d, pb);
    const V b1 = hn::Load(d, pb + N);
    RUNG_TILE_ROWS(RUNG_TILE_FMA)
    pa += kMR;
    pb += 2 * N;
  }
  RUNG_TILE_ROWS(RUNG_TILE_STORE)
#undef RUNG_TILE_STORE
#undef RUNG_TILE_FMA
#undef RUNG_TILE_INIT
#undef RUNG_TILE_ROWS
}
#else
template <typename T>
HWY_INLINE void Micro(size_t kc, const T* HWY_RESTRICT pa, const T* HWY_RESTRICT pb, T* HWY_RESTRICT c, size_t ldc,
                      bool first) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  using V = hn::Vec<decltype(d)>;
  V c0[kMR], c1[kMR];
#pragma GCC unroll 12
  for (size_t r = 0; r < kMR; ++r) {
    if (first) {
      c0[r] = hn::Zero(d);
      c1[r] = hn::Zero(d);
    } else {
      c0[r] = hn::LoadU(d, c + r * ldc);
      c1[r] = hn::LoadU(d, c + r * ldc + N);
    }
  }
  // Four k steps per iteration with constant offsets from one pointer pair: the pointers
  // advance once per four steps, so no integer op competes with the fmas for their ports.
  size_t k = 0;
  for (; k + 4 <= kc; k += 4) {
#pragma GCC unroll 4
    for (size_t u = 0; u < 4; ++u) {
      const V b0 = hn::Load(d, pb + u * 2 * N);
      const V b1 = hn::Load(d, pb + u * 2 * N + N);
#pragma GCC unroll 12
      for (size_t r = 0; r < kMR; ++r) {
        const V a = hn::Set(d, pa[u * kMR + r]);
        c0[r] = Fma(d, a, b0, c0[r]);
        c1[r] = Fma(d, a, b1, c1[r]);
      }
    }
    pa += 4 * kMR;
    pb += 8 * N;
  }
  for (; k < kc; ++k) {
    const V b0 = hn::Load(d, pb);
    const V b1 = hn::Load(d, pb + N);
#pragma GCC unroll 12
    for (size_t r = 0; r < kMR; ++r) {
      const V a = hn::Set(d, pa[r]);
      c0[r] = Fma(d, a, b0, c0[r]);
      c1[r] = Fma(d, a, b1, c1[r]);
    }
    pa += kMR;
    pb += 2 * N;
  }
#pragma GCC unroll 12
  for (size_t r = 0; r < kMR; ++r) {
    hn::StoreU(c0[r], d, c + r * ldc);
    hn::StoreU(c1[r], d, c + r * ldc + N);
  }
}
#endif  // HWY_HAVE_SCALABLE

// Blocking (elements), the BLIS order: the KC x NC packed block of B (1 MiB at AVX-512) stays
// in L2; each KC x MR micro-panel of packed A (12 KiB) stays in L1 while the tiles of one row
// strip of C stream B's micro-panels from L2. MC rows of A (96 KiB packed) per packing.
constexpr size_t kKC = kGemmKC, kMC = 96;  // 96: a multiple of every target's MR (12, 6)

template <typename T> size_t NrOf() { return 2 * hn::Lanes(hn::ScalableTag<T>()); }

// Packs B[0:kc, 0:nc] (element (k, j) at b[k * b_ks + j * b_cs]) into NR-wide panels (panel
// p at dst + p * NR * kc, row k of it at + k * NR), zero-padded at the right edge.
template <typename T> void PackB(size_t kc, size_t nc, const T* b, size_t b_ks, size_t b_cs, T* HWY_RESTRICT pb) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d), NR = NrOf<T>();
  size_t jr = 0;
  if (b_cs == 1) {  // rows of B are contiguous: the full panels, read row by row with vectors
    for (size_t k = 0; k < kc; ++k) {
      const T* src = b + k * b_ks;
      for (size_t j = 0; j + NR <= nc; j += NR) {
        T* dst = pb + j * kc + k * NR;
        hn::StoreU(hn::LoadU(d, src + j), d, dst);
        hn::StoreU(hn::LoadU(d, src + j + N), d, dst + N);
      }
    }
    jr = nc / NR * NR;
  }
  for (; jr < nc; jr += NR) {
    T* dst = pb + jr * kc;
    size_t nr = std::min(NR, nc - jr);
    if (b_cs == 1) {  // the right edge panel
      for (size_t k = 0; k < kc; ++k) {
        std::memcpy(dst + k * NR, b + k * b_ks + jr, nr * sizeof(T));
        std::fill(dst + k * NR + nr, dst + (k + 1) * NR, T(0));
      }
    } else {  // B transposed: read each column contiguously, scatter into the panel
      for (size_t j = 0; j < NR; ++j) {
        if (j >= nr) {
          for (size_t k = 0; k < kc; ++k) dst[k * NR + j] = T(0);
          continue;
        }
        const T* src = b + (jr + j) * b_cs;
        for (size_t k = 0; k < kc; ++k) dst[k * NR + j] = src[k * b_ks];
      }
    }
  }
}

// Packs 4 contiguous rows of A (row stride rs, k contiguous) into columns 0..3 of an MR-wide
// panel (row k of the panel at dst + k * MR): 4 x 4 blocks transposed in registers, so each
// store writes 4 elements where a scalar scatter writes 1 (packing A was ~3% of a 1024^3
// product).
template <typename T> HWY_INLINE void PackRows4(const T* src, size_t rs, size_t kc, T* dst, size_t MR) {
  size_t k = 0;
#if HWY_TARGET != HWY_SCALAR
  if constexpr (sizeof(T) == 4) {
    const hn::Full128<T> d;
    for (; k + 4 <= kc; k += 4) {
      const auto r0 = hn::LoadU(d, src + k), r1 = hn::LoadU(d, src + rs + k);
      const auto r2 = hn::LoadU(d, src + 2 * rs + k), r3 = hn::LoadU(d, src + 3 * rs + k);
      const auto t0 = hn::InterleaveLower(d, r0, r1), t1 = hn::InterleaveLower(d, r2, r3);  // k, k+1
      const auto t2 = hn::InterleaveUpper(d, r0, r1), t3 = hn::InterleaveUpper(d, r2, r3);  // k+2, k+3
      hn::StoreU(hn::ConcatLowerLower(d, t1, t0), d, dst + k * MR);
      hn::StoreU(hn::ConcatUpperUpper(d, t1, t0), d, dst + (k + 1) * MR);
      hn::StoreU(hn::ConcatLowerLower(d, t3, t2), d, dst + (k + 2) * MR);
      hn::StoreU(hn::ConcatUpperUpper(d, t3, t2), d, dst + (k + 3) * MR);
    }
  }
#endif
  for (; k < kc; ++k)
    for (size_t r = 0; r < 4; ++r) dst[k * MR + r] = src[r * rs + k];
}

// C[0:M, 0:nc] (row stride ldc) continued over one k-block of depth kc: A's element (i, k) at
// a[i * a_rs + k * a_ks] (already offset to the k-block), B packed by PackB. `first`: the
// k-block that starts the chains (tiles start at +0 instead of loading C).
template <typename T>
void Rows(size_t M, size_t nc, size_t kc, const T* a, size_t a_rs, size_t a_ks, const T* HWY_RESTRICT pb, T* c,
          size_t ldc, bool first) {
  const hn::ScalableTag<T> d;
  const size_t NR = NrOf<T>();
  constexpr size_t MR = kMR, MC = kMC;
  // The packing buffer lives as long as the thread, so repeated products fault in no pages.
  thread_local hwy::AlignedFreeUniquePtr<T[]> pa;
  thread_local size_t pa_size = 0;
  if (pa_size < MC * kKC) pa = hwy::AllocateAligned<T>(pa_size = MC * kKC);
  HWY_ALIGN T tile[kMR * 2 * hn::MaxLanes(d)];
  // Pack A[ic:ic+mc, 0:kc] into MR-tall panels, zero-padded at the bottom edge.
  auto pack_a = [&](size_t ic, size_t mc) {
    for (size_t ir = 0; ir < mc; ir += MR) {
      T* dst = pa.get() + ir * kc;
      size_t mr = std::min(MR, mc - ir);
      if (a_ks == 1) {  // rows of A are contiguous: groups of 4 rows transposed, then the rest
        size_t r4 = 0;
        for (; r4 + 4 <= mr; r4 += 4) PackRows4(a + (ic + ir + r4) * a_rs, a_rs, kc, dst + r4, MR);
        for (size_t r = r4; r < MR; ++r) {
          if (r >= mr) {
            for (size_t k = 0; k < kc; ++k) dst[k * MR + r] = T(0);
            continue;
          }
          const T* src = a + (ic + ir + r) * a_rs;
          for (size_t k = 0; k < kc; ++k) dst[k * MR + r] = src[k];
        }
      } else {
        for (size_t k = 0; k < kc; ++k) {
          size_t r = 0;
          for (; r < mr; ++r) dst[k * MR + r] = a[(ic + ir + r) * a_rs + k * a_ks];
          for (; r < MR; ++r) dst[k * MR + r] = T(0);
        }
      }
    }
  };
  // The register tiles of C[ic:ic+mc, 0:nc], one row strip at a time, left to right: the A
  // micro-panel stays in L1 and the C rows are read as sequential streams.
  auto tiles = [&](size_t ic, size_t mc) {
    for (size_t ir = 0; ir < mc; ir += MR) {
      const size_t mr = std::min(MR, mc - ir);
      for (size_t jr = 0; jr < nc; jr += NR) {
        const size_t nr = std::min(NR, nc - jr);
        T* cp = c + (ic + ir) * ldc + jr;
        if (!first) {  // the next tile's C rows towards L2 while this tile computes
          const T* next = cp + NR;
          size_t next_rows = mr, next_cols = std::min(NR, nc - std::min(nc, jr + NR));
          if (next_cols == 0) {  // the first tile of the next row strip
            next = c + (ic + ir + MR) * ldc;
            next_rows = std::min(MR, mc - std::min(mc, ir + MR));
            next_cols = std::min(NR, nc);
          }
          for (size_t r = 0; r < next_rows; ++r) {
            __builtin_prefetch(next + r * ldc, 0, 2);
            __builtin_prefetch(next + r * ldc + next_cols - 1, 0, 2);
          }
        }
        if (mr == MR && nr == NR) {
          Micro<T>(kc, pa.get() + ir * kc, pb + jr * kc, cp, ldc, first);
          continue;
        }
        // Edge tile: run the full tile on a copy; padded lanes are discarded.
        for (size_t r = 0; r < MR; ++r)
          for (size_t j = 0; j < NR; ++j) tile[r * NR + j] = (!first && r < mr && j < nr) ? cp[r * ldc + j] : T(0);
        Micro<T>(kc, pa.get() + ir * kc, pb + jr * kc, tile, NR, first);
        for (size_t r = 0; r < mr; ++r) std::memcpy(cp + r * ldc, tile + r * NR, nr * sizeof(T));
      }
    }
  };
  for (size_t ic = 0; ic < M; ic += MC) {
    size_t mc = std::min(MC, M - ic);
    pack_a(ic, mc);
    tiles(ic, mc);
  }
}

// The whole product on the calling thread: for each NC column panel and k-block, pack B and
// run the rows.
template <typename T>
void GemmT(size_t M, size_t N, size_t K, const T* a, size_t a_rs, size_t a_ks, const T* b, size_t b_ks, size_t b_cs,
           T* c, size_t ldc, bool accumulate) {
  const size_t NR = NrOf<T>(), NC = NR * kGemmNCPanels;
  if (M == 0 || N == 0 || (K == 0 && accumulate)) return;
  if (K == 0) {  // empty chains: +0
    for (size_t i = 0; i < M; ++i) std::fill(c + i * ldc, c + i * ldc + N, T(0));
    return;
  }
  thread_local hwy::AlignedFreeUniquePtr<T[]> pb;
  thread_local size_t pb_size = 0;
  size_t want_b = kKC * std::min(NC, (N + NR - 1) / NR * NR);
  if (pb_size < want_b) pb = hwy::AllocateAligned<T>(pb_size = want_b);
  for (size_t jc = 0; jc < N; jc += NC) {
    size_t nc = std::min(NC, N - jc);
    for (size_t pc = 0; pc < K; pc += kKC) {
      size_t kc = std::min(kKC, K - pc);
      PackB<T>(kc, nc, b + pc * b_ks + jc * b_cs, b_ks, b_cs, pb.get());
      Rows<T>(M, nc, kc, a + pc * a_ks, a_rs, a_ks, pb.get(), c + jc, ldc, pc == 0 && !accumulate);
    }
  }
}

void GemmF32(size_t M, size_t N, size_t K, const float* a, size_t a_rs, size_t a_ks, const float* b, size_t b_ks,
             size_t b_cs, float* c, size_t ldc, bool accumulate) {
#if HWY_TARGET == HWY_WASM
  // The packing buffers live as long as the thread, as GemmT's do.
  thread_local hwy::AlignedFreeUniquePtr<double[]> pa = hwy::AllocateAligned<double>(wasm_gemm::kPackedAElems);
  thread_local hwy::AlignedFreeUniquePtr<double[]> pb = hwy::AllocateAligned<double>(wasm_gemm::kPackedBElems);
  wasm_gemm::gemm_f32(M, N, K, a, a_rs, a_ks, b, b_ks, b_cs, c, ldc, accumulate, pa.get(), pb.get());
#else
  GemmT(M, N, K, a, a_rs, a_ks, b, b_ks, b_cs, c, ldc, accumulate);
#endif
}
void GemmF64(size_t M, size_t N, size_t K, const double* a, size_t a_rs, size_t a_ks, const double* b, size_t b_ks,
             size_t b_cs, double* c, size_t ldc, bool accumulate) {
#if HWY_HAVE_FLOAT64
  GemmT(M, N, K, a, a_rs, a_ks, b, b_ks, b_cs, c, ldc, accumulate);
#else
  // No f64 vectors on this target (WASM in Highway 1.0.3): each element is the same chain,
  // k increasing from +0 (or from C with `accumulate`), one num::fma_f64 per step.
  if (M == 0 || N == 0 || (K == 0 && accumulate)) return;
  for (size_t i = 0; i < M; ++i)
    for (size_t j = 0; j < N; ++j) {
      double acc = accumulate ? c[i * ldc + j] : 0.0;
      for (size_t k = 0; k < K; ++k) acc = num::fma_f64(a[i * a_rs + k * a_ks], b[k * b_ks + j * b_cs], acc);
      c[i * ldc + j] = acc;
    }
#endif
}
#if HWY_TARGET == HWY_WASM
size_t NrF32() { return wasm_gemm::kNR; }
#else
size_t NrF32() { return NrOf<float>(); }
#endif
#if HWY_HAVE_FLOAT64
size_t NrF64() { return NrOf<double>(); }
#else
size_t NrF64() { return 1; }  // no packed f64 panels on this target (GemmF64 above)
#endif
size_t MrAll() { return kMR; }

}  // namespace HWY_NAMESPACE
}  // namespace rung::cpu::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace rung::cpu::simd {

HWY_EXPORT(GemmF32);
HWY_EXPORT(GemmF64);
HWY_EXPORT(NrF32);
HWY_EXPORT(NrF64);
HWY_EXPORT(MrAll);

void gemm_f32(std::size_t M, std::size_t N, std::size_t K, const float* a, std::size_t a_rs, std::size_t a_ks,
              const float* b, std::size_t b_ks, std::size_t b_cs, float* c, std::size_t ldc, bool accumulate) {
  HWY_DYNAMIC_DISPATCH(GemmF32)(M, N, K, a, a_rs, a_ks, b, b_ks, b_cs, c, ldc, accumulate);
}
void gemm_f64(std::size_t M, std::size_t N, std::size_t K, const double* a, std::size_t a_rs, std::size_t a_ks,
              const double* b, std::size_t b_ks, std::size_t b_cs, double* c, std::size_t ldc, bool accumulate) {
  HWY_DYNAMIC_DISPATCH(GemmF64)(M, N, K, a, a_rs, a_ks, b, b_ks, b_cs, c, ldc, accumulate);
}
std::size_t gemm_nr_f32() { return HWY_DYNAMIC_DISPATCH(NrF32)(); }
std::size_t gemm_nr_f64() { return HWY_DYNAMIC_DISPATCH(NrF64)(); }
std::size_t gemm_mr() { return HWY_DYNAMIC_DISPATCH(MrAll)(); }

}  // namespace rung::cpu::simd

namespace rung::cpu {
std::string highway_version() { return std::to_string(HWY_MAJOR) + "." + std::to_string(HWY_MINOR) + "." + std::to_string(HWY_PATCH); }
}  // namespace rung::cpu
#endif
