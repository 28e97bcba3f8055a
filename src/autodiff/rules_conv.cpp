// Gradients of conv, conv_transpose, max_pool and avg_pool, written in registry ops (the
// convs themselves included), so the backward graph keeps the forward's numeric contract
// (docs/autodiff.md):
//   conv dx: conv_transpose of dy with the same window (its adjoint); conv_transpose dx: conv;
//   dw (both): one conv of the data with the other operand as its kernel (images and
//            channels swapped, strides and dilations exchanged), cut to the kernel extent;
//   db: the canonical sum of dy over images and positions;
//   max_pool: dy scattered onto the forward's indices (the first maximum of each window);
//   avg_pool: dy / count gathered per (output, tap inside x) and scattered onto the taps.

#include "autodiff/rules_common.h"
#include "ops/kernels_conv.h"

namespace rung::autodiff {
namespace {

using Ints = std::vector<std::int64_t>;

std::int64_t i64(std::uint64_t v) { return static_cast<std::int64_t>(v); }
std::uint64_t ext(Emitter& e, ValueRef v, std::size_t d) { return e.type(v).shape[d].extent(); }

ValueRef transpose(Emitter& e, ValueRef v, Ints perm) { return e.op("transpose", {v}, {{"perm", std::move(perm)}}); }
ValueRef reshape(Emitter& e, ValueRef v, Shape s) { return e.op("reshape", {v}, {{"shape", std::move(s)}}); }
ValueRef slice(Emitter& e, ValueRef v, std::int64_t axis, std::int64_t start, std::int64_t end, std::int64_t step = 1) {
  return e.op("slice", {v},
              {{"starts", Ints{start}}, {"ends", Ints{end}}, {"axes", Ints{axis}}, {"steps", Ints{step}}});
}

// [0, 1, ..., rank) with a and b exchanged.
Ints swap_perm(std::size_t rank, std::size_t a, std::size_t b) {
  Ints p;
  for (std::size_t i = 0; i < rank; ++i) p.push_back(i64(i));
  std::swap(p[a], p[b]);
  return p;
}

// The window attributes of `a`'s node, with `output_padding` for conv_transpose.
AttrMap window_of(const GradArgs& a, std::optional<Ints> output_padding = std::nullopt) {
  AttrMap m{{"strides", a.attrs.integers("strides")}, {"pads", a.attrs.integers("pads")},
            {"dilations", a.attrs.integers("dilations")}, {"groups", a.attrs.integer("groups")}};
  if (output_padding) m.emplace("output_padding", *output_padding);
  return m;
}

// The weight gradient of a conv-like op as one conv: dw[(g, b), a, j] = sum over (n, o) of
// kernel[n, (g, b), o] * data_padded[n, (g, a), o*s + j*d], i.e. a conv of `data` with its
// images as channels (per group) by `kernel` with its images as input channels, stride d
// and dilation s exchanged, cut to the kernel extent `k`. The chain runs over (n, o).
std::optional<ValueRef> weight_grad(Emitter& e, ValueRef data, ValueRef kernel, const GradArgs& a,
                                    const std::vector<std::uint64_t>& k) {
  const std::size_t rank = e.type(data).rank(), sp = rank - 2;
  const auto G = static_cast<std::uint64_t>(a.attrs.integer("groups"));
  ValueRef ds;
  if (G == 1) {
    ds = transpose(e, data, swap_perm(rank, 0, 1));
  } else {  // [N, G*A, S] -> [N, G, A, S] -> [A, G, N, S] -> [A, G*N, S]
    const Dim& n = e.type(data).shape[0];
    if (!n.is_static()) {
      e.fail("the weight gradient with groups > 1 needs a static batch (it is " + n.to_string() + ")");
      return std::nullopt;
    }
    const std::uint64_t A = ext(e, data, 1) / G;
    Shape s5{n, Dim::fixed(G), Dim::fixed(A)}, s4{Dim::fixed(A), Dim::fixed(G * n.extent())};
    Ints perm{2, 1, 0};
    for (std::size_t i = 0; i < sp; ++i) {
      s5.push_back(Dim::fixed(ext(e, data, 2 + i)));
      s4.push_back(Dim::fixed(ext(e, data, 2 + i)));
      perm.push_back(i64(3 + i));
    }
    ds = reshape(e, transpose(e, reshape(e, data, s5), perm), s4);
  }
  AttrMap attrs = window_of(a);
  attrs.insert_or_assign("strides", a.attrs.integers("dilations"));
  attrs.insert_or_assign("dilations", a.attrs.integers("strides"));
  ValueRef dw = e.op("conv", {ds, transpose(e, kernel, swap_perm(rank, 0, 1))}, attrs);
  for (std::size_t i = 0; i < sp; ++i)
    if (ext(e, dw, 2 + i) != k[i]) dw = slice(e, dw, i64(2 + i), 0, i64(k[i]));
  return transpose(e, dw, swap_perm(rank, 0, 1));
}

ValueRef bias_grad(Emitter& e, ValueRef dy) {
  Ints axes{0};
  for (std::size_t i = 2; i < e.type(dy).rank(); ++i) axes.push_back(i64(i));
  return e.op("sum", {dy}, {{"axes", axes}, {"keepdims", false}});
}

std::vector<std::uint64_t> kernel_extents(Emitter& e, ValueRef w) {
  std::vector<std::uint64_t> k;
  for (std::size_t i = 2; i < e.type(w).rank(); ++i) k.push_back(ext(e, w, i));
  return k;
}

Grads conv_rule(Emitter& e, const GradArgs& a) {
  ValueRef x = a.inputs[0], w = a.inputs[1], dy = a.output_grads[0];
  const std::size_t sp = e.type(x).rank() - 2;
  std::string err;
  auto wa = ops::window_attrs(a.attrs, sp, err);
  Grads out(a.inputs.size());
  if (a.wanted[0]) {
    // dx is conv's adjoint: conv_transpose with the same window; output_padding restores
    // the input extents the forward's floor dropped.
    Ints op;
    for (std::size_t i = 0; i < sp; ++i) {
      std::uint64_t in = ext(e, x, 2 + i), o = ext(e, dy, 2 + i), k = ext(e, w, 2 + i);
      std::uint64_t covered = (o - 1) * wa->strides[i] + wa->dilations[i] * (k - 1) + 1;
      op.push_back(i64(in + wa->pads[2 * i] + wa->pads[2 * i + 1] - covered));
    }
    out[0] = e.op("conv_transpose", {dy, w}, window_of(a, op));
  }
  if (a.wanted[1]) {
    auto dw = weight_grad(e, x, dy, a, kernel_extents(e, w));
    if (!dw) return out;
    out[1] = *dw;
  }
  if (a.inputs.size() > 2 && a.wanted[2]) out[2] = bias_grad(e, dy);
  return out;
}

Grads conv_transpose_rule(Emitter& e, const GradArgs& a) {
  ValueRef x = a.inputs[0], w = a.inputs[1], dy = a.output_grads[0];
  Grads out(a.inputs.size());
  if (a.wanted[0]) {
    // dx is the adjoint: conv of dy with the same window (cut to x's extents when an
    // output_padding >= the stride added outputs no input reaches).
    ValueRef dx = e.op("conv", {dy, w}, window_of(a));
    for (std::size_t i = 2; i < e.type(x).rank(); ++i)
      if (ext(e, dx, i) != ext(e, x, i)) dx = slice(e, dx, i64(i), 0, i64(ext(e, x, i)));
    out[0] = dx;
  }
  if (a.wanted[1]) {
    auto dw = weight_grad(e, dy, x, a, kernel_extents(e, w));
    if (!dw) return out;
    out[1] = *dw;
  }
  if (a.inputs.size() > 2 && a.wanted[2]) out[2] = bias_grad(e, dy);
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
  define_rule("conv_transpose", conv_transpose_rule);
  define_rule("max_pool", max_pool_rule);
  define_rule("avg_pool", avg_pool_rule);
}

}  // namespace rung::autodiff
