// conv and conv_transpose on the exact GEMM. conv: per image n and group g, the zero-padded input's patches become
// the columns of col [Cg*KH*KW, OH*OW] (row k = (c, kh, kw) in the chain's order; a padding
// tap is a +0 entry, as the definition has it), and y[n, g] = W[g] [Mg, K] x col with every
// chain started from the bias (GemmArgs::accumulate over y preset to b[m] or +0). The GEMM
// vectorises across output positions and keeps each element's fma chain over k increasing,
// so the bits are the reference's. A 1x1 kernel with unit strides and no padding reads x
// itself as the column matrix. conv_transpose: the same with col[(c, kh, kw)][(oh, ow)] the
// input element the tap meets (+0 where it meets none, the definition's zero taps) and A
// the group's weights rearranged to [Mg, Cg * taps].
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

// The column matrix of a window op: col[(ci * KH + kh) * KW + kw][oh * OW + ow] = the input
// element tap (kh, kw) of output (oh, ow) reads, or +0 where it reads none. `source(axis, o, k)`
// is that element's index along the axis, -1 for none: conv's window position (im2col), or
// conv_transpose's transposed source.
template <typename T, typename Source>
void window_cols(const T* x, std::uint64_t Cg, const ops::Window2& g, T* col, const Source& source) {
  const WindowAxis &ah = g.ax[0], &aw = g.ax[1];
  const std::uint64_t P = g.out_plane();
  for (std::uint64_t ci = 0; ci < Cg; ++ci)
    for (std::uint64_t kh = 0; kh < ah.k; ++kh)
      for (std::uint64_t kw = 0; kw < aw.k; ++kw) {
        T* row = col + ((ci * ah.k + kh) * aw.k + kw) * P;
        for (std::uint64_t oh = 0; oh < ah.out; ++oh) {
          T* dst = row + oh * aw.out;
          std::int64_t ih = source(ah, oh, kh);
          if (ih < 0) {
            std::fill(dst, dst + aw.out, T(0));
            continue;
          }
          const T* src = x + (ci * ah.in + static_cast<std::uint64_t>(ih)) * aw.in;
          for (std::uint64_t ow = 0; ow < aw.out; ++ow) {
            std::int64_t iw = source(aw, ow, kw);
            dst[ow] = iw >= 0 ? src[iw] : T(0);
          }
        }
      }
}

// conv: xp[c0 + ci, oh*sh + kh*dh, ow*sw + kw*dw], -1 in the padding.
std::int64_t conv_source(const WindowAxis& a, std::uint64_t o, std::uint64_t k) {
  std::int64_t i = a.at(o, k);
  return i >= 0 && i < static_cast<std::int64_t>(a.in) ? i : -1;
}
std::int64_t transposed_source(const WindowAxis& a, std::uint64_t o, std::uint64_t k) { return a.transposed_source(o, k); }

// The GEMMs of both convs: per image n and group g, y[n, g] [Mg, P] continues from its bias
// over K = Cg * taps columns: A (group g's [Mg, K] block at a + g*Mg*K) times the column
// matrix `build(n, g, col)` fills (or, `direct`, x itself). Column matrices are built for a
// batch of (n, g) items at a time, within kColBudget.
struct ConvGemm {
  std::uint64_t N, G, Cg, C, Pin, Mg, M, K, P;
  bool direct;
};

template <typename T, typename Build>
void conv_gemm(CpuContext& c, const ConvGemm& s, const T* x, const T* a, const T* bias, T* y, const Build& build) {
  // Every chain starts from its bias (or +0).
  c.pool.parallel_for(s.N * s.M, row_grain(s.P, kElemGrain), [&](std::uint64_t r0, std::uint64_t r1) {
    for (std::uint64_t r = r0; r < r1; ++r) std::fill(y + r * s.P, y + (r + 1) * s.P, bias ? bias[r % s.M] : T(0));
  });
  const std::uint64_t items = s.N * s.G;  // item i: image i / G, group i % G
  const std::uint64_t col_bytes = std::max<std::uint64_t>(1, s.K * s.P * sizeof(T));
  const std::uint64_t batch = s.direct ? std::max<std::uint64_t>(items, 1) : std::max<std::uint64_t>(1, kColBudget / col_bytes);
  std::vector<T> cols(s.direct ? 0 : std::min(batch, items) * s.K * s.P);
  for (std::uint64_t i0 = 0; i0 < items; i0 += batch) {
    const std::uint64_t i1 = std::min(items, i0 + batch);
    if (!s.direct)
      c.pool.parallel_for(i1 - i0, 1, [&](std::uint64_t b0, std::uint64_t b1) {
        for (std::uint64_t i = i0 + b0; i < i0 + b1; ++i) build(i / s.G, i % s.G, cols.data() + (i - i0) * s.K * s.P);
      });
    std::vector<GemmArgs<T>> work;
    for (std::uint64_t i = i0; i < i1; ++i) {
      const std::uint64_t n = i / s.G, gi = i % s.G;
      GemmArgs<T> g;
      g.M = s.Mg, g.N = s.P, g.K = s.K;
      g.a = a + gi * s.Mg * s.K, g.a_rs = s.K, g.a_ks = 1;
      g.b = s.direct ? x + (n * s.C + gi * s.Cg) * s.Pin : cols.data() + (i - i0) * s.K * s.P;
      g.b_ks = s.P, g.b_cs = 1;
      g.c = y + (n * s.M + gi * s.Mg) * s.P, g.ldc = s.P;
      g.accumulate = true;
      work.push_back(g);
    }
    gemm_batch(c.pool, work);
  }
}

template <typename T>
void conv_typed(CpuContext& c) {
  const HostTensor &X = c.k.inputs[0], &W = c.k.inputs[1];
  HostTensor& Y = c.k.outputs[0];
  const ops::Window2 g = ops::conv_window(X, W, c.k.attrs);
  ConvGemm s;
  s.N = X.shape()[0], s.C = X.shape()[1], s.M = W.shape()[0];
  s.G = static_cast<std::uint64_t>(c.k.attrs.integer("groups")), s.Cg = s.C / s.G, s.Mg = s.M / s.G;
  s.K = s.Cg * g.taps(), s.P = g.out_plane(), s.Pin = g.in_plane();
  s.direct = g.taps() == 1 && g.ax[0].stride == 1 && g.ax[1].stride == 1 && g.ax[0].pad_before == 0 &&
             g.ax[0].pad_after == 0 && g.ax[1].pad_before == 0 && g.ax[1].pad_after == 0;
  std::vector<T> bx, bw, bb, by;
  const T* x = load_row<T>(X, 0, X.numel(), bx);
  const T* w = load_row<T>(W, 0, W.numel(), bw);  // [M, Cg*taps]: A as it is
  const T* bias = c.k.has_input(2) ? load_row<T>(c.k.inputs[2], 0, s.M, bb) : nullptr;
  T* y = out_row<T>(Y, 0, Y.numel(), by);
  conv_gemm(c, s, x, w, bias, y, [&](std::uint64_t n, std::uint64_t gi, T* col) {
    window_cols(x + (n * s.C + gi * s.Cg) * s.Pin, s.Cg, g, col, conv_source);
  });
  store_row<T>(Y, 0, Y.numel(), y);
}

template <typename T>
void conv_transpose_typed(CpuContext& c) {
  const HostTensor &X = c.k.inputs[0], &W = c.k.inputs[1];
  HostTensor& Y = c.k.outputs[0];
  const ops::Window2 g = ops::conv_transpose_window(X, W, c.k.attrs);
  ConvGemm s;
  s.N = X.shape()[0], s.C = X.shape()[1], s.Mg = W.shape()[1];
  s.G = static_cast<std::uint64_t>(c.k.attrs.integer("groups")), s.Cg = s.C / s.G, s.M = s.Mg * s.G;
  s.K = s.Cg * g.taps(), s.P = g.out_plane(), s.Pin = g.in_plane(), s.direct = false;
  std::vector<T> bx, bw, bb, by;
  const T* x = load_row<T>(X, 0, X.numel(), bx);
  const T* w = load_row<T>(W, 0, W.numel(), bw);
  // A per group: [Mg, Cg*taps] with a[m][ci*taps + t] = w[g*Cg + ci][m][t].
  const std::uint64_t taps = g.taps();
  std::vector<T> a(s.G * s.Mg * s.K);
  for (std::uint64_t gi = 0; gi < s.G; ++gi)
    for (std::uint64_t m = 0; m < s.Mg; ++m)
      for (std::uint64_t ci = 0; ci < s.Cg; ++ci)
        std::copy_n(w + ((gi * s.Cg + ci) * s.Mg + m) * taps, taps, a.data() + (gi * s.Mg + m) * s.K + ci * taps);
  const T* bias = c.k.has_input(2) ? load_row<T>(c.k.inputs[2], 0, s.M, bb) : nullptr;
  T* y = out_row<T>(Y, 0, Y.numel(), by);
  conv_gemm(c, s, x, a.data(), bias, y, [&](std::uint64_t n, std::uint64_t gi, T* col) {
    window_cols(x + (n * s.C + gi * s.Cg) * s.Pin, s.Cg, g, col, transposed_source);
  });
  store_row<T>(Y, 0, Y.numel(), y);
}

void conv_kernel(CpuContext& c) {
  if (c.k.inputs[0].dtype() == DType::f64)
    conv_typed<double>(c);
  else
    conv_typed<float>(c);
}

void conv_transpose_kernel(CpuContext& c) {
  if (c.k.inputs[0].dtype() == DType::f64)
    conv_transpose_typed<double>(c);
  else
    conv_transpose_typed<float>(c);
}

}  // namespace

void register_conv_kernels(ops::OpRegistry& r) {
  add_kernel(r, "conv", conv_kernel, Impl::simd, Outputs::overwritten);
  add_kernel(r, "conv_transpose", conv_transpose_kernel, Impl::simd, Outputs::overwritten);
  register_pool_kernels(r);
}

}  // namespace rung::cpu
