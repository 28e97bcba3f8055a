// One (n, c) plane of max_pool / avg_pool, the definition's loops over contiguous values of
// the compute type (f32 for f32/f16/bf16, f64). The reference runs them plane after plane,
// the CPU backend spreads planes over threads: the same code, so the same bits.
#pragma once

#include <cstdint>

#include "ops/kernels_conv.h"
#include "ops/numerics/reduce_tree.h"

namespace rung::ops {

// Input offset of tap (kh, kw) of output (oh, ow) within the plane, or -1 outside the input.
inline std::int64_t pool_tap(const Window2& g, std::uint64_t oh, std::uint64_t ow, std::uint64_t kh, std::uint64_t kw) {
  std::int64_t ih = g.ax[0].at(oh, kh), iw = g.ax[1].at(ow, kw);
  if (ih < 0 || iw < 0 || ih >= static_cast<std::int64_t>(g.ax[0].in) || iw >= static_cast<std::int64_t>(g.ax[1].in))
    return -1;
  return ih * static_cast<std::int64_t>(g.ax[1].in) + iw;
}

// y[o] and idx[o] (flat position in x: plane_base + offset) for every output of the plane.
template <typename T>
void max_pool_plane(const T* x, const Window2& g, std::uint64_t plane_base, T* y, std::int64_t* idx) {
  for (std::uint64_t oh = 0; oh < g.ax[0].out; ++oh)
    for (std::uint64_t ow = 0; ow < g.ax[1].out; ++ow) {
      bool any = false;
      T best = T(0);
      std::int64_t at = 0;
      for (std::uint64_t kh = 0; kh < g.ax[0].k; ++kh)
        for (std::uint64_t kw = 0; kw < g.ax[1].k; ++kw) {
          std::int64_t t = pool_tap(g, oh, ow, kh, kw);
          if (t < 0) continue;
          if (!any || max_pool_replaces(x[t], best)) best = x[t], at = t, any = true;
        }
      std::uint64_t o = oh * g.ax[1].out + ow;
      y[o] = best;  // the shape rule guarantees every window a tap inside the input
      idx[o] = static_cast<std::int64_t>(plane_base) + at;
    }
}

template <typename T>
void avg_pool_plane(const T* x, const Window2& g, bool include_pad, T* y) {
  const std::uint64_t KW = g.ax[1].k;
  for (std::uint64_t oh = 0; oh < g.ax[0].out; ++oh)
    for (std::uint64_t ow = 0; ow < g.ax[1].out; ++ow) {
      auto tap = [&](std::uint64_t j) {
        std::int64_t t = pool_tap(g, oh, ow, j / KW, j % KW);
        return t < 0 ? T(0) : x[t];
      };
      T s = num::canonical_sum<T>(g.taps(), tap);
      y[oh * g.ax[1].out + ow] = s / static_cast<T>(avg_pool_count(g, oh, ow, include_pad));
    }
}

}  // namespace rung::ops
