// max_pool and avg_pool, (n, c) planes spread over threads. f32/f16/bf16 planes run the
// SIMD routines of simd_pool.cpp (lanes = output positions of a row, each running its own
// sequence of the definition); f64, planes past int32 offsets and avg windows past one
// canonical chunk (4096 taps) run the reference's plane routines (ops/pool_plane.h). Either
// way each output's sequence is the definition's, so the bits are the reference's.
#include "backends/cpu/cpu_kernel.h"
#include "backends/cpu/rows.h"
#include "backends/cpu/simd.h"
#include "ops/pool_plane.h"

namespace rung::cpu {

namespace {

using ops::HostTensor;

simd::PoolWindow pool_window_of(const ops::Window2& g) {
  const ops::WindowAxis &h = g.ax[0], &w = g.ax[1];
  auto z = [](std::uint64_t v) { return static_cast<std::size_t>(v); };  // size_t is 32 bits on wasm32
  return {z(h.in), z(w.in), z(h.k), z(w.k), z(h.stride), z(w.stride), z(h.dilation), z(w.dilation), z(h.pad_before), z(w.pad_before), z(h.out), z(w.out)};
}

template <typename T>
void pool_typed(CpuContext& c, bool max) {
  const HostTensor& X = c.k.inputs[0];
  HostTensor& Y = c.k.outputs[0];
  const ops::Window2 g = ops::pool_window(X, c.k.attrs);
  const bool include_pad = !max && c.k.attrs.boolean("count_include_pad");
  const std::uint64_t planes = X.shape()[0] * X.shape()[1], pin = g.in_plane(), pout = g.out_plane();
  std::vector<T> bx, by;
  const T* x = load_row<T>(X, 0, X.numel(), bx);
  T* y = out_row<T>(Y, 0, Y.numel(), by);
  std::int64_t* idx = max ? reinterpret_cast<std::int64_t*>(c.k.outputs[1].bytes().data()) : nullptr;
  constexpr bool kF32 = std::is_same_v<T, float>;
  const bool vector = kF32 && pin < (std::uint64_t{1} << 31) && (max || g.taps() <= 4096);
  const simd::PoolWindow pw = pool_window_of(g);
  std::vector<float> count;
  if (!max && vector)
    for (std::uint64_t oh = 0; oh < g.ax[0].out; ++oh)
      for (std::uint64_t ow = 0; ow < g.ax[1].out; ++ow)
        count.push_back(static_cast<float>(ops::avg_pool_count(g, oh, ow, include_pad)));
  c.pool.parallel_for(planes, row_grain(pout * g.taps(), kElemGrain), [&](std::uint64_t p0, std::uint64_t p1) {
    for (std::uint64_t p = p0; p < p1; ++p) {
      const T* xp = x + p * pin;
      T* yp = y + p * pout;
      if constexpr (kF32) {
        if (vector) {
          if (max)
            simd::max_pool_plane_f32(xp, pw, static_cast<std::int64_t>(p * pin), yp, idx + p * pout);
          else
            simd::avg_pool_plane_f32(xp, pw, count.data(), yp);
          continue;
        }
      }
      if (max)
        ops::max_pool_plane(xp, g, p * pin, yp, idx + p * pout);
      else
        ops::avg_pool_plane(xp, g, include_pad, yp);
    }
  });
  store_row<T>(Y, 0, Y.numel(), y);
}

void max_pool_kernel(CpuContext& c) {
  if (c.k.inputs[0].dtype() == DType::f64)
    pool_typed<double>(c, true);
  else
    pool_typed<float>(c, true);
}

void avg_pool_kernel(CpuContext& c) {
  if (c.k.inputs[0].dtype() == DType::f64)
    pool_typed<double>(c, false);
  else
    pool_typed<float>(c, false);
}

}  // namespace

void register_pool_kernels(ops::OpRegistry& r) {
  add_kernel(r, "max_pool", max_pool_kernel, Impl::simd, Outputs::overwritten);
  add_kernel(r, "avg_pool", avg_pool_kernel, Impl::simd, Outputs::overwritten);
}

}  // namespace rung::cpu
