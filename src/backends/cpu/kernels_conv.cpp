// conv on the exact GEMM: per image n and group g, the zero-padded input's patches become
// the columns of col [Cg*KH*KW, OH*OW] (row k = (c, kh, kw) in the chain's order; a padding
// tap is a +0 entry, as the definition has it), and y[n, g] = W[g] [Mg, K] x col with every
// chain started from the bias (GemmArgs::accumulate over y preset to b[m] or +0). The GEMM
// vectorises across output positions and keeps each element's fma chain over k increasing,
// so the bits are the reference's. A 1x1 kernel with unit strides and no padding reads x
// itself as the column matrix.
#include <algorithm>

#include "backends/cpu/cpu_kernel.h"
#include "backends/cpu/gemm.h"
#include "backends/cpu/rows.h"
#include "ops/kernels_conv.h"

namespace rung::cpu {

namespace {

using ops::HostTensor;
using ops::WindowAxis;

// Column matrices held at once (bytes): images are processed in batches below this.
constexpr std::uint64_t kColBudget = std::uint64_t{32} << 20;

// col[(ci * KH + kh) * KW + kw][oh * OW + ow] = xp[c0 + ci, oh*sh + kh*dh, ow*sw + kw*dw].
template <typename T>
void im2col(const T* x, std::uint64_t Cg, const ops::Window2& g, T* col) {
  const WindowAxis &ah = g.ax[0], &aw = g.ax[1];
  const std::uint64_t P = g.out_plane();
  for (std::uint64_t ci = 0; ci < Cg; ++ci)
    for (std::uint64_t kh = 0; kh < ah.k; ++kh)
      for (std::uint64_t kw = 0; kw < aw.k; ++kw) {
        T* row = col + ((ci * ah.k + kh) * aw.k + kw) * P;
        for (std::uint64_t oh = 0; oh < ah.out; ++oh) {
          T* dst = row + oh * aw.out;
          std::int64_t ih = ah.at(oh, kh);
          if (ih < 0 || ih >= static_cast<std::int64_t>(ah.in)) {
            std::fill(dst, dst + aw.out, T(0));
            continue;
          }
          const T* src = x + (ci * ah.in + static_cast<std::uint64_t>(ih)) * aw.in;
          for (std::uint64_t ow = 0; ow < aw.out; ++ow) {
            std::int64_t iw = aw.at(ow, kw);
            dst[ow] = iw >= 0 && iw < static_cast<std::int64_t>(aw.in) ? src[iw] : T(0);
          }
        }
      }
}

template <typename T> void conv_typed(CpuContext& c) {
  const HostTensor &X = c.k.inputs[0], &W = c.k.inputs[1];
  HostTensor& Y = c.k.outputs[0];
  const ops::Window2 g = ops::conv_window(X, W, c.k.attrs);
  const std::uint64_t N = X.shape()[0], C = X.shape()[1], M = W.shape()[0];
  const std::uint64_t G = static_cast<std::uint64_t>(c.k.attrs.integer("groups")), Cg = C / G, Mg = M / G;
  const std::uint64_t K = Cg * g.taps(), P = g.out_plane(), Pin = g.in_plane();
  std::vector<T> bx, bw, bb, by;
  const T* x = load_row<T>(X, 0, X.numel(), bx);
  const T* w = load_row<T>(W, 0, W.numel(), bw);
  const T* bias = c.k.has_input(2) ? load_row<T>(c.k.inputs[2], 0, M, bb) : nullptr;
  T* y = out_row<T>(Y, 0, Y.numel(), by);
  // Every chain starts from its bias (or +0).
  c.pool.parallel_for(N * M, row_grain(P, kElemGrain), [&](std::uint64_t r0, std::uint64_t r1) {
    for (std::uint64_t r = r0; r < r1; ++r) std::fill(y + r * P, y + (r + 1) * P, bias ? bias[r % M] : T(0));
  });
  const bool direct = g.taps() == 1 && g.ax[0].stride == 1 && g.ax[1].stride == 1 && g.ax[0].pad_before == 0 &&
                      g.ax[0].pad_after == 0 && g.ax[1].pad_before == 0 && g.ax[1].pad_after == 0;
  const std::uint64_t items = N * G;  // item i: image i / G, group i % G
  const std::uint64_t col_bytes = std::max<std::uint64_t>(1, K * P * sizeof(T));
  const std::uint64_t batch = direct ? std::max<std::uint64_t>(items, 1) : std::max<std::uint64_t>(1, kColBudget / col_bytes);
  std::vector<T> cols(direct ? 0 : std::min(batch, items) * K * P);
  for (std::uint64_t i0 = 0; i0 < items; i0 += batch) {
    const std::uint64_t i1 = std::min(items, i0 + batch);
    if (!direct)
      c.pool.parallel_for(i1 - i0, 1, [&](std::uint64_t a, std::uint64_t b) {
        for (std::uint64_t i = i0 + a; i < i0 + b; ++i)
          im2col(x + ((i / G) * C + (i % G) * Cg) * Pin, Cg, g, cols.data() + (i - i0) * K * P);
      });
    std::vector<GemmArgs<T>> work;
    for (std::uint64_t i = i0; i < i1; ++i) {
      const std::uint64_t n = i / G, gi = i % G;
      GemmArgs<T> a;
      a.M = Mg, a.N = P, a.K = K;
      a.a = w + gi * Mg * K, a.a_rs = K, a.a_ks = 1;
      a.b = direct ? x + (n * C + gi * Cg) * Pin : cols.data() + (i - i0) * K * P;
      a.b_ks = P, a.b_cs = 1;
      a.c = y + (n * M + gi * Mg) * P, a.ldc = P;
      a.accumulate = true;
      work.push_back(a);
    }
    gemm_batch(c.pool, work);
  }
  store_row<T>(Y, 0, Y.numel(), y);
}

void conv_kernel(CpuContext& c) {
  if (c.k.inputs[0].dtype() == DType::f64) conv_typed<double>(c);
  else conv_typed<float>(c);
}

}  // namespace

void register_conv_kernels(ops::OpRegistry& r) {
  add_kernel(r, "conv", conv_kernel, Impl::simd, Outputs::overwritten);
  register_pool_kernels(r);
}

}  // namespace rung::cpu
