// resize: shape rule and reference kernel. The tables come from resize_plan (binary64); the
// passes run axis by axis, highest axis first, in the compute type (f32 for f32/f16/bf16, f64
// for f64) with one rounding to the dtype at the end; nearest is a bit copy in the dtype.
#include <algorithm>

#include "ops/kernels_shape.h"
#include "ops/resize_plan.h"
#include "ops/tensor_walk.h"

namespace rung::ops {

ShapeResult rule_resize(const ShapeArgs& a) {
  const TensorType& x = a.inputs[0];
  std::string err = resize_attrs_error(x.shape, x.dtype, a.attrs);
  if (!err.empty()) return ShapeResult::fail(err);
  Shape out = resize_out_shape(x.shape, a.attrs);
  std::uint64_t n = 1;
  for (const auto& d : out) {
    if (!d.is_static()) continue;
    if (d.extent() != 0 && n > (std::uint64_t{1} << 48) / d.extent()) return ShapeResult::fail("the result has more than 2^48 elements");
    n *= d.extent() == 0 ? 1 : d.extent();
  }
  return ShapeResult::ok({out});
}

namespace {

// Axis d of `shape` seen as (pre, n, post).
std::uint64_t pre_of(const Extents& s, std::size_t d) { return extent_product(s, 0, d); }
std::uint64_t post_of(const Extents& s, std::size_t d) { return extent_product(s, d + 1, s.size()); }
std::uint64_t grain_for(std::uint64_t row_elems) { return std::max<std::uint64_t>(1, (1 << 14) / std::max<std::uint64_t>(1, row_elems)); }

void nearest_passes(const HostTensor& x, HostTensor& y, const std::vector<ResizeAxis>& axes, const std::vector<std::size_t>& order,
                    double ext, const RowRunner& run) {
  HostTensor cur = x.share();
  Extents shape = x.shape();
  for (std::size_t d : order) {
    const ResizeAxis& ax = axes[d];
    Extents next = shape;
    next[d] = ax.out;
    HostTensor dst(x.dtype(), next);
    std::uint64_t post = post_of(shape, d);
    run(pre_of(shape, d) * ax.out, grain_for(post), [&](std::uint64_t b, std::uint64_t e) {
      for (std::uint64_t r = b; r < e; ++r) {
        std::uint64_t p = r / ax.out, o = r % ax.out;
        if (ax.outside[o]) {
          for (std::uint64_t q = 0; q < post; ++q) dst.store_f64(r * post + q, ext);  // float dtypes only (the rule's check)
          continue;
        }
        copy_elems(cur, (p * ax.in + static_cast<std::uint64_t>(ax.index[o])) * post, dst, r * post, post);
      }
    });
    cur = std::move(dst);
    shape = std::move(next);
  }
  copy_elems(cur, 0, y, 0, y.numel());
}

template <typename C>
void interpolating_passes(const HostTensor& x, HostTensor& y, const std::vector<ResizeAxis>& axes,
                          const std::vector<std::size_t>& order, double ext, const RowRunner& run) {
  std::vector<C> cur(x.numel());
  run(cur.size(), 1 << 16, [&](std::uint64_t b, std::uint64_t e) {
    for (std::uint64_t i = b; i < e; ++i) cur[i] = static_cast<C>(x.load_f64(i));  // exact widening
  });
  Extents shape = x.shape();
  const C extc = static_cast<C>(ext);
  for (std::size_t d : order) {
    const ResizeAxis& ax = axes[d];
    std::uint64_t pre = pre_of(shape, d), post = post_of(shape, d);
    std::vector<C> next(pre * ax.out * post);
    run(pre * ax.out, grain_for(post), [&](std::uint64_t b, std::uint64_t e) {
      for (std::uint64_t r = b; r < e; ++r) {
        std::uint64_t p = r / ax.out, o = r % ax.out;
        for (std::uint64_t q = 0; q < post; ++q) {
          if (ax.outside[o]) { next[r * post + q] = extc; continue; }
          C acc = C(-0.0);  // -0 + v = v for every v: the first tap's product is kept exactly
          for (std::size_t t = 0; t < ax.taps; ++t) {
            C w = static_cast<C>(ax.weight[o * ax.taps + t]);
            if (w == C(0)) continue;
            C prod = w * cur[(p * ax.in + static_cast<std::uint64_t>(ax.index[o * ax.taps + t])) * post + q];
            acc = acc + prod;
          }
          next[r * post + q] = acc;
        }
      }
    });
    cur = std::move(next);
    shape[d] = ax.out;
  }
  run(cur.size(), 1 << 16, [&](std::uint64_t b, std::uint64_t e) {
    for (std::uint64_t i = b; i < e; ++i) y.store_f64(i, static_cast<double>(cur[i]));  // one RNE rounding
  });
}

}  // namespace

void resize_host(const HostTensor& x, HostTensor& y, const Attrs& a, const RowRunner& run) {
  if (y.numel() == 0) return;
  auto axes = resize_axes(x.shape(), y.shape(), a);
  auto order = resize_pass_order(axes);
  double ext = a.real("extrapolation_value");
  if (a.string("mode") == "nearest" || order.empty()) nearest_passes(x, y, axes, order, ext, run);
  else if (x.dtype() == DType::f64) interpolating_passes<double>(x, y, axes, order, ext, run);
  else interpolating_passes<float>(x, y, axes, order, ext, run);
  y.canonicalize_nans();
}

void resize_kernel(KernelContext& c) {
  resize_host(c.inputs[0], c.outputs[0], c.attrs,
              [](std::uint64_t n, std::uint64_t, const std::function<void(std::uint64_t, std::uint64_t)>& fn) { fn(0, n); });
}

}  // namespace rung::ops
