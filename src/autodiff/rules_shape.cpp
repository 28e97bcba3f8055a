// Gradients of the shape and indexing ops: each moves or copies elements, so its gradient
// moves the cotangent back (reshape back, slice -> scatter into zeros, concat -> slices,
// gather <-> scatter_add). scatter_add's per-target canonical sum makes repeated indices
// accumulate deterministically.
#include <limits>

#include "autodiff/rules_common.h"
#include "ops/host_tensor.h"
#include "ops/resize_plan.h"
#include "ops/slice_bounds.h"

namespace rung::autodiff {
namespace {

std::int64_t norm_axis(std::int64_t axis, std::size_t rank) { return axis < 0 ? axis + static_cast<std::int64_t>(rank) : axis; }

ValueRef index_constant(Emitter& e, const std::vector<std::int64_t>& idx) {
  ops::HostTensor t(DType::i64, {idx.size()});
  for (std::size_t i = 0; i < idx.size(); ++i) t.store_int(i, static_cast<std::uint64_t>(idx[i]));
  return e.builder().constant(t.type(), Bytes(t.bytes().begin(), t.bytes().end()));
}

// The source indices one axis of a slice reads (ops/slice_bounds.h, as every kernel).
std::vector<std::int64_t> slice_indices(std::int64_t start, std::int64_t end, std::int64_t step, std::uint64_t n) {
  ops::SliceAxis s = ops::resolve_slice(start, end, step, n);
  std::vector<std::int64_t> out;
  for (std::uint64_t i = 0; i < s.count; ++i) out.push_back(s.start + static_cast<std::int64_t>(i) * s.step);
  return out;
}

}  // namespace

void register_shape_rules() {
  define_rule("reshape", [](Emitter& e, const GradArgs& a) -> Grads {
    return {e.op("reshape", {a.output_grads[0]}, {{"shape", e.type(a.inputs[0]).shape}})};
  });

  define_rule("slice", [](Emitter& e, const GradArgs& a) -> Grads {
    // Scatter the cotangent back axis by axis; before axis k is restored the target has
    // the shape of x sliced on the axes not restored yet (zeros_like of that slice).
    ValueRef x = a.inputs[0];
    std::size_t rank = e.type(x).rank();
    std::vector<std::int64_t> starts = a.attrs.integers("starts"), ends = a.attrs.integers("ends"),
                              axes = a.attrs.integers("axes"), steps = a.attrs.integers("steps");
    if (axes.empty())
      for (std::size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
    if (steps.empty()) steps.assign(starts.size(), 1);
    ValueRef g = a.output_grads[0];
    for (std::size_t k = starts.size(); k-- > 0;) {
      std::int64_t ax = norm_axis(axes[k], rank);
      const Dim& dim = e.type(x).shape[static_cast<std::size_t>(ax)];
      if (!dim.is_static()) {  // the rule allows only whole-axis slices of a symbolic dim: the cotangent as is or reversed
        if (steps[k] < 0)
          g = e.op("slice", {g}, {{"starts", std::vector<std::int64_t>{ops::omitted_start(-1)}},
                                  {"ends", std::vector<std::int64_t>{ops::omitted_end(-1)}},
                                  {"axes", std::vector<std::int64_t>{ax}}, {"steps", std::vector<std::int64_t>{-1}}});
        continue;
      }
      std::uint64_t n = dim.extent();
      AttrMap rest{{"starts", std::vector<std::int64_t>(starts.begin(), starts.begin() + static_cast<long>(k))},
                   {"ends", std::vector<std::int64_t>(ends.begin(), ends.begin() + static_cast<long>(k))},
                   {"axes", std::vector<std::int64_t>(axes.begin(), axes.begin() + static_cast<long>(k))},
                   {"steps", std::vector<std::int64_t>(steps.begin(), steps.begin() + static_cast<long>(k))}};
      ValueRef like = k == 0 ? x : e.op("slice", {x}, rest);
      ValueRef idx = index_constant(e, slice_indices(starts[k], ends[k], steps[k], n));
      g = e.op("scatter_add", {e.op("zeros_like", {like}), idx, g}, {{"axis", ax}});
    }
    return {g};
  });

  define_rule("concat", [](Emitter& e, const GradArgs& a) -> Grads {
    std::size_t rank = e.type(a.inputs[0]).rank();
    std::int64_t ax = norm_axis(a.attrs.integer("axis"), rank);
    Grads out;
    std::int64_t at = 0;
    for (std::size_t i = 0; i < a.inputs.size(); ++i) {
      const Dim& d = e.type(a.inputs[i]).shape[static_cast<std::size_t>(ax)];
      if (!d.is_static()) {
        e.fail("needs static extents along the joined axis (operand " + std::to_string(i) + " has " + d.to_string() + ")");
        return Grads(a.inputs.size());
      }
      auto n = static_cast<std::int64_t>(d.extent());
      if (a.wanted[i])
        out.push_back(e.op("slice", {a.output_grads[0]}, {{"starts", std::vector<std::int64_t>{at}},
                                                          {"ends", std::vector<std::int64_t>{at + n}},
                                                          {"axes", std::vector<std::int64_t>{ax}}}));
      else
        out.push_back(std::nullopt);
      at += n;
    }
    return out;
  });

  define_rule("gather", [](Emitter& e, const GradArgs& a) -> Grads {
    ValueRef x = a.inputs[0];
    std::int64_t ax = norm_axis(a.attrs.integer("axis"), e.type(x).rank());
    return {e.op("scatter_add", {e.op("zeros_like", {x}), a.inputs[1], a.output_grads[0]}, {{"axis", ax}}), std::nullopt};
  });

  define_rule("gather_elements", [](Emitter& e, const GradArgs& a) -> Grads {
    // A scatter-add of the cotangent into zeros: through x flattened, with each element's
    // flat target indices * stride_axis + (its own offset along the other axes), so
    // scatter_add's per-target canonical sum in element order accumulates repeats.
    ValueRef x = a.inputs[0], idx = a.inputs[1];
    const TensorType &xt = e.type(x), &it = e.type(idx);
    std::size_t ax = static_cast<std::size_t>(norm_axis(a.attrs.integer("axis"), xt.rank()));
    ops::Extents xe, ie;
    for (const auto& d : xt.shape) xe.push_back(d.is_static() ? d.extent() : 0);
    for (const auto& d : it.shape) ie.push_back(d.is_static() ? d.extent() : 0);
    if (!xt.is_static() || !it.is_static()) {
      e.fail("needs static shapes (x is " + xt.to_string() + ", indices " + it.to_string() + ")");
      return Grads(2);
    }
    std::vector<std::uint64_t> xs(xe.size(), 1);
    for (std::size_t d = xe.size(); d-- > 1;) xs[d - 1] = xs[d] * xe[d];
    ops::HostTensor base(DType::i64, ie);
    std::uint64_t n = base.numel();
    for (std::uint64_t i = 0; i < n; ++i) {
      std::uint64_t rest = i, off = 0;
      for (std::size_t d = ie.size(); d-- > 0;) {
        if (d != ax) off += (rest % ie[d]) * xs[d];
        rest /= ie[d];
      }
      base.store_int(i, off);
    }
    ValueRef base_v = e.builder().constant(base.type(), Bytes(base.bytes().begin(), base.bytes().end()));
    ValueRef along = e.op("mul", {e.op("cast", {idx}, {{"to", DType::i64}}), e.scalar(DType::i64, static_cast<double>(xs[ax]))});
    Shape flat_n{Dim::fixed(n)}, flat_x{Dim::fixed(ops::element_count(xe))};
    ValueRef target = e.op("reshape", {e.op("add", {along, base_v})}, {{"shape", flat_n}});
    ValueRef g = e.op("reshape", {a.output_grads[0]}, {{"shape", flat_n}});
    ValueRef z = e.op("reshape", {e.op("zeros_like", {x})}, {{"shape", flat_x}});
    ValueRef gx = e.op("scatter_add", {z, target, g}, {{"axis", std::int64_t{0}}});
    return {e.op("reshape", {gx}, {{"shape", xt.shape}}), std::nullopt};
  });

  define_rule("scatter_add", [](Emitter& e, const GradArgs& a) -> Grads {
    std::int64_t ax = norm_axis(a.attrs.integer("axis"), e.type(a.inputs[0]).rank());
    return {a.output_grads[0], std::nullopt, e.op("gather", {a.output_grads[0], a.inputs[1]}, {{"axis", ax}})};
  });

  define_rule("pad", [](Emitter& e, const GradArgs& a) -> Grads {
    const auto& pads = a.attrs.integers("pads");
    const std::string& mode = a.attrs.string("mode");
    ValueRef x = a.inputs[0], g = a.output_grads[0];
    if (mode == "constant") {  // the cotangent of the copied block
      std::vector<std::int64_t> starts, ends, axes;
      for (std::size_t i = 0; 2 * i + 1 < pads.size(); ++i) {
        if (pads[2 * i] == 0 && pads[2 * i + 1] == 0) continue;
        axes.push_back(static_cast<std::int64_t>(i));
        starts.push_back(pads[2 * i]);
        ends.push_back(pads[2 * i + 1] == 0 ? std::numeric_limits<std::int64_t>::max() : -pads[2 * i + 1]);
      }
      if (axes.empty()) return {g};
      return {e.op("slice", {g}, {{"starts", starts}, {"ends", ends}, {"axes", axes}})};
    }
    // edge / reflect: each padded axis is a gather with the kernel's source indices, so the
    // gradient scatters back axis by axis (last first); the border elements accumulate.
    for (std::size_t d = pads.size() / 2; d-- > 0;) {
      std::int64_t before = pads[2 * d], after = pads[2 * d + 1];
      if (before == 0 && after == 0) continue;
      auto n = static_cast<std::int64_t>(e.type(x).shape[d].extent());  // static: the shape rule requires it
      std::vector<std::int64_t> idx;
      for (std::int64_t j = 0; j < before + n + after; ++j) {
        std::int64_t p = j - before;
        if (p < 0 || p >= n) p = mode == "edge" ? (p < 0 ? 0 : n - 1) : (p < 0 ? -p : 2 * (n - 1) - p);
        idx.push_back(p);
      }
      std::vector<std::int64_t> partial(pads.begin(), pads.end());  // x padded on the axes before d only
      for (std::size_t k = d; k < pads.size() / 2; ++k) partial[2 * k] = partial[2 * k + 1] = 0;
      ValueRef like = e.op("pad", {x}, {{"pads", partial}, {"mode", mode}});
      g = e.op("scatter_add", {e.op("zeros_like", {like}), index_constant(e, idx), g}, {{"axis", static_cast<std::int64_t>(d)}});
    }
    return {g};
  });

  // resize is linear in x: each forward pass y[.., o, ..] = sum_t w[o, t] x[.., index[o, t], ..]
  // (ops/resize_plan.h, the kernels' tables) scatters back tap by tap, passes in reverse order
  // (the lowest axis first). Outside coordinates (tf_crop_and_resize) carry weight 0.
  define_rule("resize", [](Emitter& e, const GradArgs& a) -> Grads {
    ValueRef x = a.inputs[0], g = a.output_grads[0];
    const Shape& xs = e.type(x).shape;
    const Shape ys = e.type(g).shape;
    ops::Extents in, out;  // a kept axis may be symbolic: its table is never read
    for (std::size_t d = 0; d < xs.size(); ++d) {
      in.push_back(xs[d].is_static() ? xs[d].extent() : 1);
      out.push_back(ys[d].is_static() ? ys[d].extent() : 1);
    }
    auto axes = ops::resize_axes(in, out, a.attrs);
    auto order = ops::resize_pass_order(axes);
    const bool nearest = a.attrs.string("mode") == "nearest";
    const DType dt = e.type(g).dtype;
    for (std::size_t k = order.size(); k-- > 0;) {
      std::size_t d = order[k];
      const ops::ResizeAxis& ax = axes[d];
      Shape target = ys;  // axes <= d as in x, the later ones already resized
      for (std::size_t j = 0; j <= d; ++j) target[j] = xs[j];
      Shape wshape(xs.size(), Dim::fixed(1));
      wshape[d] = Dim::fixed(ax.out);
      ValueRef acc = e.op("broadcast_to", {e.scalar(dt, 0.0)}, {{"shape", target}});
      for (std::size_t t = 0; t < ax.taps; ++t) {
        std::vector<std::int64_t> idx(ax.out);
        std::vector<double> w(ax.out);
        bool ones = true;
        for (std::uint64_t o = 0; o < ax.out; ++o) {
          idx[o] = ax.index[o * ax.taps + t];
          w[o] = ax.outside[o] ? 0.0 : (nearest ? 1.0 : ax.weight[o * ax.taps + t]);
          ones = ones && w[o] == 1.0;
        }
        ValueRef upd = ones ? g : e.op("mul", {g, e.constant(TensorType{dt, wshape}, w)});
        acc = e.op("scatter_add", {acc, index_constant(e, idx), upd}, {{"axis", static_cast<std::int64_t>(d)}});
      }
      g = acc;
    }
    return {g};
  });

  // Their values do not depend on the operand's values: no cotangent flows back.
  define_rule("zeros_like", [](Emitter&, const GradArgs&) -> Grads { return {std::nullopt}; });
  define_rule("ones_like", [](Emitter&, const GradArgs&) -> Grads { return {std::nullopt}; });
}

}  // namespace rung::autodiff
