// conv (docs/semantics.md, "Convolution and pooling"): with groups G, x [N, C, (H,) W],
// w [M, C/G, (KH,) KW], output channel m of group g = m / (M/G) reads input channels
// g*(C/G) ... (g+1)*(C/G)-1, and each output element is ONE fma chain from b[m] (or +0):
//   for c, kh, kw increasing: acc = fma(xp[n, c, oh*sh + kh*dh, ow*sw + kw*dw], w[m, c, kh, kw], acc)
// over the zero-padded input xp (a padding tap is fma(+0, w, acc): a real step of the chain).
#include "ops/compute_type.h"
#include "ops/kernels_conv.h"

#include "ops/numerics/ieee.h"
#include "ops/shape_rules.h"

namespace rung::ops {

namespace {

std::string dims(const Shape& s) { return shape_to_string(s); }
std::string num(std::uint64_t v) { return std::to_string(v); }

}  // namespace

std::optional<ConvOperands> conv_operands(const ShapeArgs& a, bool transposed, std::string& err) {
  const Shape& x = a.inputs[0].shape;
  const Shape& w = a.inputs[1].shape;
  const char* w_form = transposed ? "[C, M/groups, kernel...]" : "[M, C/groups, kernel...]";
  if (x.size() != 3 && x.size() != 4) return err = "x must be [N, C, L] (1-D) or [N, C, H, W] (2-D), got " + dims(x), std::nullopt;
  if (w.size() != x.size())
    return err = "w must have x's rank " + num(x.size()) + " (" + w_form + "), got " + dims(w), std::nullopt;
  for (std::size_t i = 1; i < x.size(); ++i)
    if (!x[i].is_static()) return err = "x's channel and spatial dims must be static, got " + dims(x), std::nullopt;
  for (const auto& d : w)
    if (!d.is_static()) return err = "w's dims must be static, got " + dims(w), std::nullopt;
  std::int64_t groups = a.attrs.integer("groups");
  if (groups < 1) return err = "`groups` is " + std::to_string(groups) + "; it must be >= 1", std::nullopt;
  ConvOperands o;
  o.groups = static_cast<std::uint64_t>(groups);
  o.in_channels = x[1].extent();
  o.out_channels = transposed ? w[1].extent() * o.groups : w[0].extent();
  // The dim of w that counts input channels: all of them (transposed) or one group's.
  std::uint64_t w_in = transposed ? w[0].extent() : w[1].extent() * o.groups;
  if (o.in_channels % o.groups != 0 || o.out_channels % o.groups != 0)
    return err = "`groups` = " + num(o.groups) + " must divide x's channels (" + num(o.in_channels) +
                 ") and w's output channels (" + num(o.out_channels) + ")",
           std::nullopt;
  if (w_in != o.in_channels)
    return err = transposed ? "w's dim 0 is " + num(w[0].extent()) + ", but x has " + num(o.in_channels) + " channels"
                            : "w's dim 1 is " + num(w[1].extent()) + ", but x has " + num(o.in_channels) + " channels in " +
                                  num(o.groups) + " groups (" + num(o.in_channels / o.groups) + " per group)",
           std::nullopt;
  if (a.inputs.size() > 2) {
    const Shape& b = a.inputs[2].shape;
    if (b.size() != 1 || !b[0].is_static() || b[0].extent() != o.out_channels)
      return err = "bias must have shape [" + num(o.out_channels) + "] (the output channels), got " + dims(b), std::nullopt;
  }
  std::string werr;
  auto wa = window_attrs(a.attrs, x.size() - 2, werr);
  if (!wa) return err = werr, std::nullopt;
  o.window = std::move(*wa);
  return o;
}

ShapeResult rule_conv(const ShapeArgs& a) {
  std::string err;
  auto o = conv_operands(a, false, err);
  if (!o) return ShapeResult::fail(err);
  const Shape &x = a.inputs[0].shape, &w = a.inputs[1].shape;
  Shape y{x[0], Dim::fixed(o->out_channels)};
  for (std::size_t i = 0; i + 2 < x.size(); ++i) {
    const WindowAttrs& wa = o->window;
    WindowAxis ax{x[2 + i].extent(), w[2 + i].extent(), wa.strides[i], wa.dilations[i], wa.pads[2 * i], wa.pads[2 * i + 1], 0};
    auto out = window_out_extent(ax, false, err);
    if (!out) return ShapeResult::fail("spatial axis " + std::to_string(i) + ": " + err);
    y.push_back(Dim::fixed(*out));
  }
  return ShapeResult::ok({y});
}

Window2 conv_window(const Extents& x, const Extents& w, const Attrs& a) {
  std::vector<std::uint64_t> in(x.begin() + 2, x.end()), k(w.begin() + 2, w.end());
  return window2(in, k, a, false);
}
Window2 conv_window(const HostTensor& x, const HostTensor& w, const Attrs& a) { return conv_window(x.shape(), w.shape(), a); }

namespace {

using compute::fma_t;
using compute::load;
using compute::store;

template <typename T>
void conv_typed(KernelContext& c) {
  const HostTensor& X = c.inputs[0];
  const HostTensor& W = c.inputs[1];
  HostTensor& Y = c.outputs[0];
  Window2 g = conv_window(X, W, c.attrs);
  const WindowAxis &ah = g.ax[0], &aw = g.ax[1];
  std::uint64_t N = X.shape()[0], C = X.shape()[1], M = W.shape()[0];
  std::uint64_t G = static_cast<std::uint64_t>(c.attrs.integer("groups")), Cg = C / G, Mg = M / G;
  for (std::uint64_t n = 0; n < N; ++n)
    for (std::uint64_t m = 0; m < M; ++m) {
      std::uint64_t c0 = (m / Mg) * Cg;
      for (std::uint64_t oh = 0; oh < ah.out; ++oh)
        for (std::uint64_t ow = 0; ow < aw.out; ++ow) {
          T acc = c.has_input(2) ? load<T>(c.inputs[2], m) : T(0);
          for (std::uint64_t ci = 0; ci < Cg; ++ci)
            for (std::uint64_t kh = 0; kh < ah.k; ++kh)
              for (std::uint64_t kw = 0; kw < aw.k; ++kw) {
                std::int64_t ih = ah.at(oh, kh), iw = aw.at(ow, kw);
                bool inside = ih >= 0 && iw >= 0 && ih < static_cast<std::int64_t>(ah.in) &&
                              iw < static_cast<std::int64_t>(aw.in);
                T xv = inside ? load<T>(X, ((n * C + c0 + ci) * ah.in + static_cast<std::uint64_t>(ih)) * aw.in +
                                               static_cast<std::uint64_t>(iw))
                              : T(0);
                acc = fma_t(xv, load<T>(W, ((m * Cg + ci) * ah.k + kh) * aw.k + kw), acc);
              }
          store<T>(Y, ((n * M + m) * ah.out + oh) * aw.out + ow, acc);
        }
    }
}

}  // namespace

void conv_kernel(KernelContext& c) {
  if (c.inputs[0].dtype() == DType::f64)
    conv_typed<double>(c);
  else
    conv_typed<float>(c);
}

}  // namespace rung::ops
