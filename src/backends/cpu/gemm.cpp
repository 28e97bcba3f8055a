#include "backends/cpu/gemm.h"

#include <algorithm>

#include <hwy/aligned_allocator.h>

#include "backends/cpu/simd.h"

namespace rung::cpu {

namespace {

void run_one(const GemmArgs<float>& g) {
  simd::gemm_f32(g.M, g.N, g.K, g.a, g.a_rs, g.a_ks, g.b, g.b_ks, g.b_cs, g.c, g.ldc);
}
void run_one(const GemmArgs<double>& g) {
  simd::gemm_f64(g.M, g.N, g.K, g.a, g.a_rs, g.a_ks, g.b, g.b_ks, g.b_cs, g.c, g.ldc);
}

// Cuts a product into `parts` blocks of rows (or of columns when N is the wider side),
// aligned to the register tile so only the last block has edge tiles.
template <typename T> std::vector<GemmArgs<T>> split(const GemmArgs<T>& g, std::uint64_t parts) {
  std::vector<GemmArgs<T>> out;
  const std::uint64_t nr = simd::gemm_nr_f32();
  // Rows first: each block then packs only its own rows of A (B's packing is a memcpy);
  // columns when there are too few rows to go round.
  bool by_cols = g.M < 2 * 12 * parts && g.N >= 2 * nr;
  std::uint64_t extent = by_cols ? g.N : g.M, unit = by_cols ? nr : 12;  // 12: the AVX-512 tile's rows
  std::uint64_t units = (extent + unit - 1) / unit;
  parts = std::max<std::uint64_t>(1, std::min(parts, units));
  for (std::uint64_t p = 0; p < parts; ++p) {
    std::uint64_t u0 = units * p / parts, u1 = units * (p + 1) / parts;
    std::uint64_t b = std::min(extent, u0 * unit), e = std::min(extent, u1 * unit);
    if (b >= e) continue;
    GemmArgs<T> s = g;
    if (by_cols) {
      s.N = e - b;
      s.b = g.b + b * g.b_cs;
      s.c = g.c + b;
    } else {
      s.M = e - b;
      s.a = g.a + b * g.a_rs;
      s.c = g.c + b * g.ldc;
    }
    out.push_back(s);
  }
  return out;
}

template <typename T> std::size_t nr_of() {
  if constexpr (sizeof(T) == 4) return simd::gemm_nr_f32();
  else return simd::gemm_nr_f64();
}

// One large product on every thread, sharing the packed B: per column panel and k-block,
// the threads pack disjoint register-tile panels of B into one buffer, then run disjoint row
// blocks of C (columns when the rows do not go round). The k-blocks run in order, each
// after the previous one has finished, so every chain is the sequential one.
template <typename T> void gemm_shared(ThreadPool& pool, const GemmArgs<T>& g) {
  const std::uint64_t NR = nr_of<T>(), MR = simd::gemm_mr(), KC = simd::kGemmKC, NC = NR * simd::kGemmNCPanels;
  const std::uint64_t threads = pool.threads();
  // The shared buffer lives as long as the calling thread (no page faults per product).
  thread_local hwy::AlignedFreeUniquePtr<T[]> pb;
  thread_local std::uint64_t pb_size = 0;
  std::uint64_t want = KC * std::min(NC, (g.N + NR - 1) / NR * NR);
  if (pb_size < want) pb = hwy::AllocateAligned<T>(pb_size = want);
  T* packed = pb.get();
  const bool by_rows = g.M >= 2 * MR * threads;
  for (std::uint64_t jc = 0; jc < g.N; jc += NC) {
    const std::uint64_t nc = std::min(NC, g.N - jc), panels = (nc + NR - 1) / NR;
    for (std::uint64_t pc = 0; pc < g.K; pc += KC) {
      const std::uint64_t kc = std::min(KC, g.K - pc);
      pool.parallel_for(panels, 1, [&](std::uint64_t p0, std::uint64_t p1) {
        simd::gemm_pack_b(kc, std::min(nc, p1 * NR) - p0 * NR, g.b + pc * g.b_ks + (jc + p0 * NR) * g.b_cs, g.b_ks,
                          g.b_cs, packed + p0 * NR * kc);
      });
      const T* a = g.a + pc * g.a_ks;
      if (by_rows) {
        const std::uint64_t units = (g.M + MR - 1) / MR;
        pool.parallel_for(units, 1, [&](std::uint64_t u0, std::uint64_t u1) {
          std::uint64_t r0 = u0 * MR, r1 = std::min(g.M, u1 * MR);
          simd::gemm_rows(r1 - r0, nc, kc, a + r0 * g.a_rs, g.a_rs, g.a_ks, packed, g.c + r0 * g.ldc + jc, g.ldc, pc == 0);
        });
      } else {
        pool.parallel_for(panels, 1, [&](std::uint64_t p0, std::uint64_t p1) {
          std::uint64_t c0 = p0 * NR, c1 = std::min(nc, p1 * NR);
          simd::gemm_rows(g.M, c1 - c0, kc, a, g.a_rs, g.a_ks, packed + p0 * NR * kc, g.c + jc + c0, g.ldc, pc == 0);
        });
      }
    }
  }
}

// Products at least this large (M * N * K) share their packed B between threads.
constexpr std::uint64_t kSharedPackingFlops = std::uint64_t{1} << 21;

template <typename T> void batch_impl(ThreadPool& pool, const std::vector<GemmArgs<T>>& batch) {
  std::vector<GemmArgs<T>> work;
  std::uint64_t threads = pool.threads();
  std::uint64_t flops = 0;
  for (const auto& g : batch) flops += g.M * g.N * std::max<std::uint64_t>(g.K, 1);
  if (batch.size() >= threads || flops < (1u << 18)) {
    work = batch;
  } else {
    for (const auto& g : batch) {
      if (threads > 1 && g.K > 0 && g.M * g.N * g.K >= kSharedPackingFlops) {
        gemm_shared(pool, g);
        continue;
      }
      for (auto& s : split(g, threads)) work.push_back(s);
    }
  }
  pool.parallel_for(work.size(), 1, [&](std::uint64_t i0, std::uint64_t i1) {
    for (std::uint64_t i = i0; i < i1; ++i) run_one(work[i]);
  });
}

}  // namespace

void gemm_batch(ThreadPool& pool, const std::vector<GemmArgs<float>>& batch) { batch_impl(pool, batch); }
void gemm_batch(ThreadPool& pool, const std::vector<GemmArgs<double>>& batch) { batch_impl(pool, batch); }

}  // namespace rung::cpu
