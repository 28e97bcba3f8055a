// conv (docs/semantics.md, "Convolution and pooling"): with groups G, x [N, C, (H,) W],
// w [M, C/G, (KH,) KW], output channel m of group g = m / (M/G) reads input channels
// g*(C/G) ... (g+1)*(C/G)-1, and each output element is ONE fma chain
//   acc = b[m] (or +0);  for c, kh, kw increasing: acc = fma(xp[n, c, oh*sh + kh*dh, ow*sw + kw*dw], w[m, c, kh, kw], acc)
// over the zero-padded input xp (a padding tap is fma(+0, w, acc): a real step of the chain).
#include "ops/kernels_conv.h"

#include "ops/numerics/ieee.h"
#include "ops/shape_rules.h"

namespace rung::ops {

namespace {

std::string dims(const Shape& s) { return shape_to_string(s); }

}  // namespace

ShapeResult rule_conv(const ShapeArgs& a) {
  const Shape& x = a.inputs[0].shape;
  const Shape& w = a.inputs[1].shape;
  if (x.size() != 3 && x.size() != 4)
    return ShapeResult::fail("x must be [N, C, L] (1-D) or [N, C, H, W] (2-D), got " + dims(x));
  if (w.size() != x.size())
    return ShapeResult::fail("w must have x's rank " + std::to_string(x.size()) + " ([M, C/groups, kernel...]), got " +
                             dims(w));
  for (std::size_t i = 1; i < x.size(); ++i)
    if (!x[i].is_static()) return ShapeResult::fail("x's channel and spatial dims must be static, got " + dims(x));
  for (const auto& d : w)
    if (!d.is_static()) return ShapeResult::fail("w's dims must be static, got " + dims(w));
  std::int64_t groups = a.attrs.integer("groups");
  std::uint64_t C = x[1].extent(), M = w[0].extent(), Cg = w[1].extent();
  if (groups < 1) return ShapeResult::fail("`groups` is " + std::to_string(groups) + "; it must be >= 1");
  auto G = static_cast<std::uint64_t>(groups);
  if (C % G != 0 || M % G != 0)
    return ShapeResult::fail("`groups` = " + std::to_string(G) + " must divide x's channels (" + std::to_string(C) +
                             ") and w's output channels (" + std::to_string(M) + ")");
  if (Cg * G != C)
    return ShapeResult::fail("w's dim 1 is " + std::to_string(Cg) + ", but x has " + std::to_string(C) +
                             " channels in " + std::to_string(G) + " groups (" + std::to_string(C / G) + " per group)");
  if (a.inputs.size() > 2) {
    const Shape& b = a.inputs[2].shape;
    if (b.size() != 1 || !same_dim(b[0], w[0]))
      return ShapeResult::fail("bias must have shape [" + std::to_string(M) + "] (w's output channels), got " + dims(b));
  }
  std::size_t rank = x.size() - 2;
  std::string err;
  auto wa = window_attrs(a.attrs, rank, err);
  if (!wa) return ShapeResult::fail(err);
  Shape y{x[0], Dim::fixed(M)};
  for (std::size_t i = 0; i < rank; ++i) {
    WindowAxis ax{x[2 + i].extent(), w[2 + i].extent(), wa->strides[i], wa->dilations[i], wa->pads[2 * i],
                  wa->pads[2 * i + 1], 0};
    auto out = window_out_extent(ax, false, err);
    if (!out) return ShapeResult::fail("spatial axis " + std::to_string(i) + ": " + err);
    y.push_back(Dim::fixed(*out));
  }
  return ShapeResult::ok({y});
}

Window2 conv_window(const HostTensor& x, const HostTensor& w, const Attrs& a) {
  std::vector<std::uint64_t> in(x.shape().begin() + 2, x.shape().end()), k(w.shape().begin() + 2, w.shape().end());
  return window2(in, k, a, false);
}

namespace {

template <typename T> T load(const HostTensor& t, std::uint64_t i) {
  if constexpr (std::is_same_v<T, double>) return t.raw<double>(i);
  else return t.load_f32(i);
}
template <typename T> void store(HostTensor& t, std::uint64_t i, T v) {
  if constexpr (std::is_same_v<T, double>) t.set_raw<double>(i, v);
  else t.store_f32(i, v);
}
template <typename T> T fma_t(T a, T b, T c) {
  if constexpr (std::is_same_v<T, double>) return num::fma_f64(a, b, c);
  else return num::fma_f32(a, b, c);
}

template <typename T> void conv_typed(KernelContext& c) {
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
  if (c.inputs[0].dtype() == DType::f64) conv_typed<double>(c);
  else conv_typed<float>(c);
}

}  // namespace rung::ops
