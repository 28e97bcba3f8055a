// conv_transpose (docs/semantics.md §17), the adjoint of conv: with groups G, x [N, C, (H,) W],
// w [C, M/G, (KH,) KW], output channel m of group g = m / (M/G) reads input channels
// g*(C/G) ..., and each output element is ONE fma chain from b[m] (or +0):
//   for c, kh, kw increasing: acc = fma(xu[n, g*(C/G) + c, oh + ph - kh*dh, ow + pw - kw*dw], w[.., m % (M/G), kh, kw], acc)
// where xu is x spread out by the strides with zeros between and around: a tap that meets
// no input element is fma(+0, w, acc), a real step of the chain (as conv's padding taps).
#include "ops/compute_type.h"
#include "ops/kernels_conv.h"

#include "ops/numerics/ieee.h"
#include "ops/shape_rules.h"

namespace rung::ops {

namespace {

// The output extent of one axis, or an error.
std::optional<std::uint64_t> transposed_extent(std::uint64_t in, std::uint64_t k, std::uint64_t s, std::uint64_t d,
                                               std::uint64_t pb, std::uint64_t pe, std::uint64_t op, std::string& err) {
  if (op >= std::max(s, d)) {
    err = "`output_padding` " + std::to_string(op) + " must be smaller than the stride or the dilation";
    return std::nullopt;
  }
  std::uint64_t full = (in == 0 ? 0 : s * (in - 1)) + op + d * (k - 1) + 1;
  if (k == 0 || full <= pb + pe) {
    err = "the pads (" + std::to_string(pb) + ", " + std::to_string(pe) + ") leave no output of the " +
          std::to_string(full) + " the window produces";
    return std::nullopt;
  }
  return full - pb - pe;
}

std::optional<std::vector<std::uint64_t>> output_padding(const Attrs& a, std::size_t rank, std::string& err) {
  const auto& v = a.integers("output_padding");
  if (v.empty()) return std::vector<std::uint64_t>(rank, 0);
  if (v.size() != rank) {
    err = "`output_padding` needs " + std::to_string(rank) + " values, got " + std::to_string(v.size());
    return std::nullopt;
  }
  std::vector<std::uint64_t> out;
  for (auto x : v) {
    if (x < 0) return err = "`output_padding` values must be >= 0", std::nullopt;
    out.push_back(static_cast<std::uint64_t>(x));
  }
  return out;
}

}  // namespace

ShapeResult rule_conv_transpose(const ShapeArgs& a) {
  std::string err;
  auto o = conv_operands(a, true, err);
  if (!o) return ShapeResult::fail(err);
  const Shape &x = a.inputs[0].shape, &w = a.inputs[1].shape;
  std::size_t rank = x.size() - 2;
  auto op = output_padding(a.attrs, rank, err);
  if (!op) return ShapeResult::fail(err);
  Shape y{x[0], Dim::fixed(o->out_channels)};
  const WindowAttrs& wa = o->window;
  for (std::size_t i = 0; i < rank; ++i) {
    auto out = transposed_extent(x[2 + i].extent(), w[2 + i].extent(), wa.strides[i], wa.dilations[i], wa.pads[2 * i],
                                 wa.pads[2 * i + 1], (*op)[i], err);
    if (!out) return ShapeResult::fail("spatial axis " + std::to_string(i) + ": " + err);
    y.push_back(Dim::fixed(*out));
  }
  return ShapeResult::ok({y});
}

Window2 conv_transpose_window(const HostTensor& x, const HostTensor& w, const Attrs& a) {
  return conv_transpose_window(x.shape(), w.shape(), a);
}

Window2 conv_transpose_window(const Extents& xs, const Extents& ws, const Attrs& a) {
  std::size_t rank = xs.size() - 2, first = 2 - rank;
  std::string err;
  auto wa = window_attrs(a, rank, err);
  auto op = output_padding(a, rank, err);
  Window2 g;
  g.ax[0] = WindowAxis{1, 1, 1, 1, 0, 0, 1};
  for (std::size_t i = 0; i < rank; ++i) {
    WindowAxis& ax = g.ax[first + i];
    ax = WindowAxis{xs[2 + i], ws[2 + i], wa->strides[i], wa->dilations[i], wa->pads[2 * i],
                    wa->pads[2 * i + 1], 0};
    ax.out = *transposed_extent(ax.in, ax.k, ax.stride, ax.dilation, ax.pad_before, ax.pad_after, (*op)[i], err);
  }
  return g;
}

namespace {

using compute::fma_t;
using compute::load;

template <typename T> void conv_transpose_typed(KernelContext& c) {
  const HostTensor &X = c.inputs[0], &W = c.inputs[1];
  HostTensor& Y = c.outputs[0];
  Window2 g = conv_transpose_window(X, W, c.attrs);
  const WindowAxis &ah = g.ax[0], &aw = g.ax[1];
  std::uint64_t N = X.shape()[0], C = X.shape()[1], Mg = W.shape()[1];
  std::uint64_t G = static_cast<std::uint64_t>(c.attrs.integer("groups")), Cg = C / G, M = Mg * G;
  for (std::uint64_t n = 0; n < N; ++n)
    for (std::uint64_t m = 0; m < M; ++m) {
      std::uint64_t c0 = (m / Mg) * Cg, ml = m % Mg;
      for (std::uint64_t oh = 0; oh < ah.out; ++oh)
        for (std::uint64_t ow = 0; ow < aw.out; ++ow) {
          T acc = c.has_input(2) ? load<T>(c.inputs[2], m) : T(0);
          for (std::uint64_t ci = 0; ci < Cg; ++ci)
            for (std::uint64_t kh = 0; kh < ah.k; ++kh)
              for (std::uint64_t kw = 0; kw < aw.k; ++kw) {
                std::int64_t ih = ah.transposed_source(oh, kh), iw = aw.transposed_source(ow, kw);
                T xv = ih >= 0 && iw >= 0 ? load<T>(X, ((n * C + c0 + ci) * ah.in + static_cast<std::uint64_t>(ih)) * aw.in +
                                                           static_cast<std::uint64_t>(iw))
                                          : T(0);
                acc = fma_t(xv, load<T>(W, (((c0 + ci) * Mg + ml) * ah.k + kh) * aw.k + kw), acc);
              }
          std::uint64_t yi = ((n * M + m) * ah.out + oh) * aw.out + ow;
          if constexpr (std::is_same_v<T, double>) Y.set_raw<double>(yi, acc);
          else Y.store_f32(yi, acc);
        }
    }
}

}  // namespace

void conv_transpose_kernel(KernelContext& c) {
  if (c.inputs[0].dtype() == DType::f64) conv_transpose_typed<double>(c);
  else conv_transpose_typed<float>(c);
}

}  // namespace rung::ops
