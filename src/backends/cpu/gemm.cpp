#include "backends/cpu/gemm.h"

#include <algorithm>

#include "backends/cpu/simd.h"

namespace rung::cpu {

namespace {

void run_one(const GemmArgs<float>& g) {
  simd::gemm_f32(g.M, g.N, g.K, g.a, g.a_rs, g.a_ks, g.b, g.b_ks, g.b_cs, g.c, g.ldc, g.accumulate);
}
void run_one(const GemmArgs<double>& g) {
  simd::gemm_f64(g.M, g.N, g.K, g.a, g.a_rs, g.a_ks, g.b, g.b_ks, g.b_cs, g.c, g.ldc, g.accumulate);
}

// Cuts a product into `parts` blocks of rows (of columns when the rows do not go round),
// aligned to the register tile so only the last block has edge tiles. Each block is a whole
// product on one thread, packing its own B. On 2 threads this measured faster than sharing
// one packed B at every M from 24 to 2048 (4-7% at 1024^3 and 2048^3, up to 2x at M <= 96;
// bench/RESULTS.md, 2026-11-29 23:30): the threads never wait for each other at a barrier
// nor read panels another core packed, which costs more than packing B twice.
template <typename T> std::vector<GemmArgs<T>> split(const GemmArgs<T>& g, std::uint64_t parts) {
  std::vector<GemmArgs<T>> out;
  const std::uint64_t nr = simd::gemm_nr_f32();
  // Rows first: each block then packs only its own rows of A (and all of B); columns when
  // there are too few rows to go round.
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

template <typename T> void batch_impl(ThreadPool& pool, const std::vector<GemmArgs<T>>& batch) {
  std::vector<GemmArgs<T>> work;
  std::uint64_t threads = pool.threads();
  std::uint64_t flops = 0;
  for (const auto& g : batch) flops += g.M * g.N * std::max<std::uint64_t>(g.K, 1);
  if (batch.size() >= threads || flops < (1u << 18)) {
    work = batch;
  } else {
    for (const auto& g : batch)
      for (auto& s : split(g, threads)) work.push_back(s);
  }
  pool.parallel_for(work.size(), 1, [&](std::uint64_t i0, std::uint64_t i1) {
    for (std::uint64_t i = i0; i < i1; ++i) run_one(work[i]);
  });
}

}  // namespace

void gemm_batch(ThreadPool& pool, const std::vector<GemmArgs<float>>& batch) { batch_impl(pool, batch); }
void gemm_batch(ThreadPool& pool, const std::vector<GemmArgs<double>>& batch) { batch_impl(pool, batch); }

}  // namespace rung::cpu
