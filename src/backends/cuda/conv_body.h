// The per-output work of the conv and pool kernels (k_conv.cu) as host-and-device functions
// over element loaders, so the host test tests/cuda/cuda_conv_body_test.cpp runs the very
// index arithmetic and operation order the GPU runs, against the reference, where there is
// no GPU. Each mirrors its reference loop nest (src/ops/kernels_conv.cpp,
// kernels_conv_transpose.cpp, pool_plane.h) step for step.
#pragma once

#include <cstdint>

#include "backends/cuda/device_api_conv.h"
#include "ops/numerics/ieee.h"

namespace rung::cuda {

RUNG_HD float conv_fma(float a, float b, float c) { return num::fma_f32(a, b, c); }
RUNG_HD double conv_fma(double a, double b, double c) { return num::fma_f64(a, b, c); }

// Output i of conv / conv_transpose, i in y's row-major order [N, M, h.out, w.out]: the fma
// chain over (ci, kh, kw) increasing from bias(m) (+0 when there is none); a tap that meets
// no input element is fma(+0, w, acc), a real step of the chain. lx / lw load x / w at a
// flat offset in the compute type T.
template <typename T, typename LoadX, typename LoadW, typename LoadB>
RUNG_HD T conv_output(const ConvSpec& c, std::uint64_t i, const LoadX& lx, const LoadW& lw, const LoadB& bias) {
  const ops::WindowAxis &ah = c.g.h, &aw = c.g.w;
  std::uint64_t ow = i % aw.out, t = i / aw.out;
  std::uint64_t oh = t % ah.out;
  t /= ah.out;
  std::uint64_t m = t % c.M, n = t / c.M;
  std::uint64_t c0 = (m / c.Mg) * c.Cg, ml = m % c.Mg;
  T acc = bias(m);
  for (std::uint64_t ci = 0; ci < c.Cg; ++ci) {
    std::uint64_t xrow0 = (n * c.C + c0 + ci) * ah.in;  // row 0 of x's plane (n, c0 + ci)
    std::uint64_t wrow0 = (c.transposed ? (c0 + ci) * c.Mg + ml : m * c.Cg + ci) * ah.k;
    for (std::uint64_t kh = 0; kh < ah.k; ++kh)
      for (std::uint64_t kw = 0; kw < aw.k; ++kw) {
        std::int64_t ih, iw;
        bool hit;
        if (c.transposed) {
          ih = ah.transposed_source(oh, kh);
          iw = aw.transposed_source(ow, kw);
          hit = ih >= 0 && iw >= 0;
        } else {
          ih = ah.at(oh, kh);
          iw = aw.at(ow, kw);
          hit = ah.inside(oh, kh) && aw.inside(ow, kw);
        }
        T xv = hit ? lx((xrow0 + static_cast<std::uint64_t>(ih)) * aw.in + static_cast<std::uint64_t>(iw)) : T(0);
        acc = conv_fma(xv, lw((wrow0 + kh) * aw.k + kw), acc);
      }
  }
  return acc;
}

// Output i of a pool, i in y's row-major order [planes, h.out, w.out].
struct PoolOutput {
  std::uint64_t plane, oh, ow;
};
RUNG_HD PoolOutput pool_output(const WindowSpec& g, std::uint64_t i) {
  std::uint64_t pout = g.h.out * g.w.out, o = i % pout;
  return {i / pout, o / g.w.out, o % g.w.out};
}

// max_pool output i: the ordered scan of the taps inside the input, (kh, kw) increasing;
// padding never takes part. `best` gets the winner, the result is its flat offset in x.
// lx loads x at a flat offset.
template <typename T, typename LoadX>
RUNG_HD std::int64_t max_pool_output(const WindowSpec& g, std::uint64_t i, const LoadX& lx, T& best) {
  PoolOutput o = pool_output(g, i);
  std::uint64_t base = o.plane * g.h.in * g.w.in;
  bool any = false;
  best = T(0);
  std::int64_t at = 0;
  for (std::uint64_t kh = 0; kh < g.h.k; ++kh) {
    if (!g.h.inside(o.oh, kh)) continue;
    std::int64_t row = g.h.at(o.oh, kh) * static_cast<std::int64_t>(g.w.in);
    for (std::uint64_t kw = 0; kw < g.w.k; ++kw) {
      if (!g.w.inside(o.ow, kw)) continue;
      std::int64_t tap = row + g.w.at(o.ow, kw);
      T v = lx(base + static_cast<std::uint64_t>(tap));
      if (!any || ops::max_pool_replaces(v, best)) best = v, at = tap, any = true;
    }
  }
  return static_cast<std::int64_t>(base) + at;  // the shape rule guarantees every window a tap inside the input
}

// avg_pool: tap j (row-major over (kh, kw)) of output o, its input element or +0 outside
// the input; the canonical sum of taps 0 .. h.k*w.k - 1 is divided once by avg_pool_mean.
template <typename T, typename LoadX>
RUNG_HD T avg_pool_tap(const WindowSpec& g, const PoolOutput& o, std::uint64_t j, const LoadX& lx) {
  std::uint64_t kh = j / g.w.k, kw = j % g.w.k;
  if (!g.h.inside(o.oh, kh) || !g.w.inside(o.ow, kw)) return T(0);
  auto ih = static_cast<std::uint64_t>(g.h.at(o.oh, kh)), iw = static_cast<std::uint64_t>(g.w.at(o.ow, kw));
  return lx(o.plane * g.h.in * g.w.in + ih * g.w.in + iw);
}
template <typename T>
RUNG_HD T avg_pool_mean(T sum, const WindowSpec& g, const PoolOutput& o, bool include_pad) {
  return sum / static_cast<T>(g.h.pool_count(o.oh, include_pad) * g.w.pool_count(o.ow, include_pad));
}

}  // namespace rung::cuda
