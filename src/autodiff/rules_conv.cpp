// Gradients of conv, max_pool and avg_pool, written in registry ops (conv itself included),
// so the backward graph keeps the forward's numeric contract (docs/autodiff.md):
//   conv dx: conv of dy zero-upsampled by the strides with the kernel flipped and its
//            channel roles swapped per group (a padding too large is cropped instead);
//   conv dw: conv of x with dy as the kernel (batch and channels swapped, strides and
//            dilations exchanged), cut to the kernel extent;
//   conv db: the canonical sum of dy over images and positions;
//   max_pool: dy scattered onto the forward's indices (the first maximum of each window);
//   avg_pool: dy / count gathered per (output, tap inside x) and scattered onto the taps.
#include <limits>

#include "autodiff/rules_common.h"
#include "ops/window_geometry.h"

namespace rung::autodiff {
namespace {

using Ints = std::vector<std::int64_t>;

std::int64_t i64(std::uint64_t v) { return static_cast<std::int64_t>(v); }
std::uint64_t ext(Emitter& e, ValueRef v, std::size_t d) { return e.type(v).shape[d].extent(); }

ValueRef transpose(Emitter& e, ValueRef v, Ints perm) { return e.op("transpose", {v}, {{"perm", std::move(perm)}}); }
ValueRef reshape(Emitter& e, ValueRef v, Shape s) { return e.op("reshape", {v}, {{"shape", std::move(s)}}); }
ValueRef slice(Emitter& e, ValueRef v, std::int64_t axis, std::int64_t start, std::int64_t end, std::int64_t step = 1) {
  return e.op("slice", {v}, {{"starts", Ints{start}}, {"ends", Ints{end}}, {"axes", Ints{axis}}, {"steps", Ints{step}}});
}

// [0, 1, ..., rank) with a and b exchanged.
Ints swap_perm(std::size_t rank, std::size_t a, std::size_t b) {
  Ints p;
  for (std::size_t i = 0; i < rank; ++i) p.push_back(i64(i));
  std::swap(p[a], p[b]);
  return p;
}

// v with size-1 padding after each element of axis t (stride s): [.., O, ..] -> [.., O*s, ..],
// element o at o*s and zeros between.
ValueRef upsample(Emitter& e, ValueRef v, std::size_t t, std::uint64_t s) {
  if (s == 1) return v;
  Shape sh = e.type(v).shape, wide = sh;
  sh.insert(sh.begin() + static_cast<std::ptrdiff_t>(t) + 1, Dim::fixed(1));
  Ints pads(2 * sh.size(), 0);
  pads[2 * (t + 1) + 1] = i64(s - 1);
  ValueRef p = e.op("pad", {reshape(e, v, sh)}, {{"pads", pads}});
  wide[t] = Dim::fixed(wide[t].extent() * s);
  return reshape(e, p, wide);
}

Grads conv_rule(Emitter& e, const GradArgs& a) {
  ValueRef x = a.inputs[0], w = a.inputs[1], dy = a.output_grads[0];
  const std::size_t rank = e.type(x).rank(), sp = rank - 2;
  std::string err;
  auto wa = ops::window_attrs(a.attrs, sp, err);
  const auto G = static_cast<std::uint64_t>(a.attrs.integer("groups"));
  const std::uint64_t C = ext(e, x, 1), M = ext(e, w, 0), Cg = C / G, Mg = M / G;
  Grads out(a.inputs.size());
  if (a.wanted[0]) {
    // dx[c, i] = sum over (m, j) of dy_up[m, i + pb - j*d] w[m, c, j]: a stride-1 conv of the
    // upsampled dy with the flipped kernel, padded (k-1)*d - pb before and in + pb - len after.
    ValueRef u = dy;
    for (std::size_t i = 0; i < sp; ++i) u = upsample(e, u, 2 + i, wa->strides[i]);
    Ints pads;
    for (std::size_t i = 0; i < sp; ++i) {
      auto k = i64(ext(e, w, 2 + i)), d = i64(wa->dilations[i]), pb = i64(wa->pads[2 * i]);
      auto in = i64(ext(e, x, 2 + i)), len = i64(ext(e, u, 2 + i));
      std::int64_t before = (k - 1) * d - pb, after = in + pb - len;
      if (before < 0) u = slice(e, u, i64(2 + i), -before, std::numeric_limits<std::int64_t>::max());
      if (after < 0) u = slice(e, u, i64(2 + i), 0, i64(ext(e, u, 2 + i)) + after);
      pads.push_back(std::max<std::int64_t>(before, 0));
      pads.push_back(std::max<std::int64_t>(after, 0));
    }
    ValueRef wf = w;
    for (std::size_t i = 0; i < sp; ++i)
      wf = slice(e, wf, i64(2 + i), std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min(), -1);
    if (G == 1) {
      wf = transpose(e, wf, swap_perm(rank, 0, 1));
    } else {  // [G*Mg, Cg, k] -> [G, Mg, Cg, k] -> [G, Cg, Mg, k] -> [G*Cg, Mg, k]
      Shape s5{Dim::fixed(G), Dim::fixed(Mg), Dim::fixed(Cg)}, s4{Dim::fixed(C), Dim::fixed(Mg)};
      for (std::size_t i = 0; i < sp; ++i) s5.push_back(Dim::fixed(ext(e, w, 2 + i))), s4.push_back(Dim::fixed(ext(e, w, 2 + i)));
      wf = reshape(e, transpose(e, reshape(e, wf, s5), swap_perm(rank + 1, 1, 2)), s4);
    }
    out[0] = e.op("conv", {u, wf}, {{"pads", pads}, {"dilations", a.attrs.integers("dilations")}, {"groups", i64(G)}});
  }
  if (a.wanted[1]) {
    // dw[m, c, j] = sum over (n, o) of dy[n, m, o] xp[n, c, o*s + j*d]: x with channels as the
    // batch and images as channels, convolved with dy as kernel (stride d, dilation s).
    ValueRef xs;
    if (G == 1) {
      xs = transpose(e, x, swap_perm(rank, 0, 1));
    } else {
      const Dim& n = e.type(x).shape[0];
      if (!n.is_static()) {
        e.fail("conv's weight gradient with groups > 1 needs a static batch (it is " + n.to_string() + ")");
        return out;
      }
      Shape s5{n, Dim::fixed(G), Dim::fixed(Cg)}, s4{Dim::fixed(Cg), Dim::fixed(G * n.extent())};
      for (std::size_t i = 0; i < sp; ++i) s5.push_back(Dim::fixed(ext(e, x, 2 + i))), s4.push_back(Dim::fixed(ext(e, x, 2 + i)));
      Ints perm{2, 1, 0};
      for (std::size_t i = 0; i < sp; ++i) perm.push_back(i64(3 + i));
      xs = reshape(e, transpose(e, reshape(e, x, s5), perm), s4);
    }
    Ints strides, dilations;
    for (std::size_t i = 0; i < sp; ++i) strides.push_back(i64(wa->dilations[i])), dilations.push_back(i64(wa->strides[i]));
    ValueRef dw = e.op("conv", {xs, transpose(e, dy, swap_perm(rank, 0, 1))},
                       {{"strides", strides}, {"dilations", dilations}, {"pads", a.attrs.integers("pads")}, {"groups", i64(G)}});
    for (std::size_t i = 0; i < sp; ++i)
      if (ext(e, dw, 2 + i) != ext(e, w, 2 + i)) dw = slice(e, dw, i64(2 + i), 0, i64(ext(e, w, 2 + i)));
    out[1] = transpose(e, dw, swap_perm(rank, 0, 1));
  }
  if (a.inputs.size() > 2 && a.wanted[2]) {
    Ints axes{0};
    for (std::size_t i = 0; i < sp; ++i) axes.push_back(i64(2 + i));
    out[2] = e.op("sum", {dy}, {{"axes", axes}, {"keepdims", false}});
  }
  return out;
}

ValueRef int_constant(Emitter& e, const std::vector<std::int64_t>& v) {
  ops::HostTensor h = ops::HostTensor::from_i64({v.size()}, v);
  return e.builder().constant(h.type(), Bytes(h.bytes().begin(), h.bytes().end()));
}

Grads max_pool_rule(Emitter& e, const GradArgs& a) {
  ValueRef x = a.inputs[0];
  auto n = e.type(x).element_count(), m = e.type(a.outputs[0]).element_count();
  if (!n || !m) {
    e.fail("max_pool's gradient needs a static shape (x is " + e.type(x).to_string() + ")");
    return {std::nullopt};
  }
  ValueRef zeros = reshape(e, e.op("zeros_like", {x}), Shape{Dim::fixed(*n)});
  ValueRef idx = reshape(e, a.outputs[1], Shape{Dim::fixed(*m)});
  ValueRef g = reshape(e, a.output_grads[0], Shape{Dim::fixed(*m)});
  return {reshape(e, e.op("scatter_add", {zeros, idx, g}, {{"axis", std::int64_t{0}}}), e.type(x).shape)};
}

Grads avg_pool_rule(Emitter& e, const GradArgs& a) {
  ValueRef x = a.inputs[0], dy = a.output_grads[0];
  const Shape& xs = e.type(x).shape;
  std::vector<std::uint64_t> in, k;
  for (std::size_t i = 2; i < xs.size(); ++i) in.push_back(xs[i].extent());
  for (auto v : a.attrs.integers("kernel_shape")) k.push_back(static_cast<std::uint64_t>(v));
  const ops::Window2 g = ops::window2(in, k, a.attrs, a.attrs.boolean("ceil_mode"));
  const bool include_pad = a.attrs.boolean("count_include_pad");
  std::vector<double> count;
  std::vector<std::int64_t> from, to;  // per tap inside x: output position, input position (in the plane)
  for (std::uint64_t oh = 0; oh < g.ax[0].out; ++oh)
    for (std::uint64_t ow = 0; ow < g.ax[1].out; ++ow) {
      count.push_back(static_cast<double>(ops::avg_pool_count(g, oh, ow, include_pad)));
      for (std::uint64_t kh = 0; kh < g.ax[0].k; ++kh)
        for (std::uint64_t kw = 0; kw < g.ax[1].k; ++kw) {
          std::int64_t ih = g.ax[0].at(oh, kh), iw = g.ax[1].at(ow, kw);
          if (ih < 0 || iw < 0 || ih >= i64(g.ax[0].in) || iw >= i64(g.ax[1].in)) continue;
          from.push_back(i64(oh * g.ax[1].out + ow));
          to.push_back(ih * i64(g.ax[1].in) + iw);
        }
    }
  Shape os(e.type(dy).shape.begin() + 2, e.type(dy).shape.end());
  ValueRef q = e.op("div", {dy, e.constant(TensorType{e.type(dy).dtype, os, e.type(dy).space}, count)});
  Shape plane_out{xs[0], xs[1], Dim::fixed(g.out_plane())}, plane_in{xs[0], xs[1], Dim::fixed(g.in_plane())};
  ValueRef taps = e.op("gather", {reshape(e, q, plane_out), int_constant(e, from)}, {{"axis", std::int64_t{2}}});
  ValueRef zeros = reshape(e, e.op("zeros_like", {x}), plane_in);
  return {reshape(e, e.op("scatter_add", {zeros, int_constant(e, to), taps}, {{"axis", std::int64_t{2}}}), xs)};
}

}  // namespace

void register_conv_rules() {
  define_rule("conv", conv_rule);
  define_rule("max_pool", max_pool_rule);
  define_rule("avg_pool", avg_pool_rule);
}

}  // namespace rung::autodiff
