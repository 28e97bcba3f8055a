// max_pool and avg_pool: the definition's plane routines (ops/pool_plane.h) with the (n, c)
// planes spread over threads; each output's sequence is the reference's, so are the bits.
// Scalar within a plane (not yet vectorised across output positions).
#include "backends/cpu/cpu_kernel.h"
#include "backends/cpu/rows.h"
#include "ops/pool_plane.h"

namespace rung::cpu {

namespace {

using ops::HostTensor;

template <typename T> void pool_typed(CpuContext& c, bool max) {
  const HostTensor& X = c.k.inputs[0];
  HostTensor& Y = c.k.outputs[0];
  const ops::Window2 g = ops::pool_window(X, c.k.attrs);
  const bool include_pad = !max && c.k.attrs.boolean("count_include_pad");
  const std::uint64_t planes = X.shape()[0] * X.shape()[1], pin = g.in_plane(), pout = g.out_plane();
  std::vector<T> bx, by;
  const T* x = load_row<T>(X, 0, X.numel(), bx);
  T* y = out_row<T>(Y, 0, Y.numel(), by);
  std::int64_t* idx = max ? reinterpret_cast<std::int64_t*>(c.k.outputs[1].bytes().data()) : nullptr;
  c.pool.parallel_for(planes, row_grain(pout * g.taps(), kElemGrain), [&](std::uint64_t p0, std::uint64_t p1) {
    for (std::uint64_t p = p0; p < p1; ++p) {
      if (max) ops::max_pool_plane(x + p * pin, g, p * pin, y + p * pout, idx + p * pout);
      else ops::avg_pool_plane(x + p * pin, g, include_pad, y + p * pout);
    }
  });
  store_row<T>(Y, 0, Y.numel(), y);
}

void max_pool_kernel(CpuContext& c) {
  if (c.k.inputs[0].dtype() == DType::f64) pool_typed<double>(c, true);
  else pool_typed<float>(c, true);
}

void avg_pool_kernel(CpuContext& c) {
  if (c.k.inputs[0].dtype() == DType::f64) pool_typed<double>(c, false);
  else pool_typed<float>(c, false);
}

}  // namespace

void register_pool_kernels(ops::OpRegistry& r) {
  add_kernel(r, "max_pool", max_pool_kernel, Impl::scalar, Outputs::overwritten);
  add_kernel(r, "avg_pool", avg_pool_kernel, Impl::scalar, Outputs::overwritten);
}

}  // namespace rung::cpu
