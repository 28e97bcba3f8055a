// The host side of conv, conv_transpose, max_pool and avg_pool on the device: the window
// from the reference's own geometry functions (ops/kernels_conv.h, the shape rule having
// checked the attributes), then the launchers of device_api_conv.h.
#include "backends/cuda/cuda_ops_nn.h"
#include "backends/cuda/device_api_conv.h"
#include "ops/kernels_conv.h"

namespace rung::cuda {

namespace {

using In = std::span<const DevTensor>;
using Out = std::vector<DevTensor>;

int dt(DType d) { return static_cast<int>(d); }

WindowSpec spec_of(const ops::Window2& g) { return WindowSpec{g.ax[0], g.ax[1]}; }

// x [N, C, ...], w [M, C/G, ...] (conv) or [C, M/G, ...] (transposed), optional b [M].
DevKernel conv(bool transposed) {
  return [transposed](Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
    const DevTensor &x = in[0], &w = in[1];
    const DevTensor* b = in.size() > 2 ? &in[2] : nullptr;
    ConvSpec s;
    s.g = spec_of(transposed ? ops::conv_transpose_window(x.shape, w.shape, a) : ops::conv_window(x.shape, w.shape, a));
    auto G = static_cast<std::uint64_t>(a.integer("groups"));
    s.N = x.shape[0];
    s.C = x.shape[1];
    s.M = out[0].shape[1];
    s.Cg = s.C / G;
    s.Mg = s.M / G;
    s.transposed = transposed;
    return c.check(launch_conv(x.data(), w.data(), b ? b->data() : nullptr, dt(x.dtype), out[0].data(), s, c.stream()),
                   transposed ? "conv_transpose kernel" : "conv kernel", d);
  };
}

bool max_pool(Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
  const DevTensor& x = in[0];
  WindowSpec g = spec_of(ops::pool_window(x.shape, a));
  return c.check(launch_max_pool(x.data(), dt(x.dtype), out[0].data(), static_cast<std::int64_t*>(out[1].data()),
                                 x.shape[0] * x.shape[1], g, c.stream()),
                 "max_pool kernel", d);
}

bool avg_pool(Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
  const DevTensor& x = in[0];
  WindowSpec g = spec_of(ops::pool_window(x.shape, a));
  std::uint64_t taps = g.h.k * g.w.k;
  if (taps > 4096ull * 4096ull) {  // one block's canonical tree reaches 4096^2 values
    d.error("U0003", "an avg_pool window of " + std::to_string(taps) +
                         " taps: the cuda backend handles windows of up to 4096^2 taps");
    return false;
  }
  return c.check(launch_avg_pool(x.data(), dt(x.dtype), out[0].data(), x.shape[0] * x.shape[1], g,
                                 a.boolean("count_include_pad"), c.stream()),
                 "avg_pool kernel", d);
}

}  // namespace

void add_conv_dev_kernels(std::map<std::string, DevKernel, std::less<>>& t) {
  t.emplace("conv", conv(false));
  t.emplace("conv_transpose", conv(true));
  t.emplace("max_pool", max_pool);
  t.emplace("avg_pool", avg_pool);
}

}  // namespace rung::cuda
