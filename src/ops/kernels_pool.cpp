// max_pool and avg_pool (docs/semantics.md, "Convolution and pooling"), per (n, c) plane:
//   max_pool: scan the window's taps inside the input in (kh, kw) order; the running best is
//             replaced by a NaN (once), by a greater value, or by +0 over -0. y is the best
//             element's bits and `indices` its flat position in x (n, c, h, w row-major).
//             Padding never takes part, so it never wins.
//   avg_pool: the canonical sum (§5) of the window's taps in (kh, kw) order, a tap outside
//             the input contributing +0, divided once by the tap count (count_include_pad:
//             the taps inside the padded input; otherwise those inside the input).
#include "ops/compute_type.h"
#include "ops/kernels_conv.h"
#include "ops/pool_plane.h"
#include "ops/shape_rules.h"

namespace rung::ops {

namespace {

std::optional<Shape> pool_shape(const ShapeArgs& a, std::string& err) {
  const Shape& x = a.inputs[0].shape;
  if (x.size() != 3 && x.size() != 4) {
    err = "x must be [N, C, L] (1-D) or [N, C, H, W] (2-D), got " + shape_to_string(x);
    return std::nullopt;
  }
  std::size_t rank = x.size() - 2;
  const auto& ks = a.attrs.integers("kernel_shape");
  if (ks.size() != rank) {
    err = "`kernel_shape` needs " + std::to_string(rank) + " values (one per spatial axis), got " +
          std::to_string(ks.size());
    return std::nullopt;
  }
  auto wa = window_attrs(a.attrs, rank, err);
  if (!wa) return std::nullopt;
  bool ceil_mode = a.attrs.boolean("ceil_mode");
  // A pool's kernel is an attribute, not a tensor: each output visits all its taps, so a
  // window of more than 2^32 taps is refused here rather than left to run for days.
  std::uint64_t taps = 1;
  for (std::int64_t k : ks)
    if (k >= 1) taps = static_cast<std::uint64_t>(k) > (std::uint64_t{1} << 32) / taps ? (std::uint64_t{1} << 33) : taps * static_cast<std::uint64_t>(k);
  if (taps > (std::uint64_t{1} << 32)) {
    err = "the window has over 2^32 taps (`kernel_shape` " + a.attrs.value("kernel_shape").to_string() + ")";
    return std::nullopt;
  }
  Shape y{x[0], x[1]};
  for (std::size_t i = 0; i < rank; ++i) {
    if (ks[i] < 1) {
      err = "`kernel_shape`[" + std::to_string(i) + "] is " + std::to_string(ks[i]) + "; it must be >= 1";
      return std::nullopt;
    }
    if (!x[2 + i].is_static()) {
      err = "x's spatial dims must be static, got " + shape_to_string(x);
      return std::nullopt;
    }
    WindowAxis ax{x[2 + i].extent(),
                  static_cast<std::uint64_t>(ks[i]),
                  wa->strides[i],
                  wa->dilations[i],
                  wa->pads[2 * i],
                  wa->pads[2 * i + 1],
                  0};
    auto out = window_out_extent(ax, ceil_mode, err);
    if (!out) return err = "spatial axis " + std::to_string(i) + ": " + err, std::nullopt;
    ax.out = *out;
    if (!every_window_touches_input(ax, err))
      return err = "spatial axis " + std::to_string(i) + ": " + err, std::nullopt;
    y.push_back(Dim::fixed(*out));
  }
  return y;
}

}  // namespace

ShapeResult rule_max_pool(const ShapeArgs& a) {
  std::string err;
  auto y = pool_shape(a, err);
  if (!y) return ShapeResult::fail(err);
  return ShapeResult::ok({*y, *y});
}

ShapeResult rule_avg_pool(const ShapeArgs& a) {
  std::string err;
  auto y = pool_shape(a, err);
  if (!y) return ShapeResult::fail(err);
  return ShapeResult::ok({*y});
}

Window2 pool_window(const HostTensor& x, const Attrs& a) { return pool_window(x.shape(), a); }
Window2 pool_window(const Extents& x, const Attrs& a) {
  std::vector<std::uint64_t> in(x.begin() + 2, x.end()), k;
  for (auto v : a.integers("kernel_shape")) k.push_back(static_cast<std::uint64_t>(v));
  return window2(in, k, a, a.boolean("ceil_mode"));
}

std::uint64_t avg_pool_count(const Window2& g, std::uint64_t oh, std::uint64_t ow, bool include_pad) {
  return g.ax[0].pool_count(oh, include_pad) * g.ax[1].pool_count(ow, include_pad);
}

namespace {

using compute::load;
using compute::store;

// Plane by plane in the compute type T (f16/bf16 widened exactly, rounded once at the output).
template <typename T>
void pool_typed(KernelContext& c, bool max) {
  const HostTensor& X = c.inputs[0];
  Window2 g = pool_window(X, c.attrs);
  bool include_pad = !max && c.attrs.boolean("count_include_pad");
  std::uint64_t planes = X.shape()[0] * X.shape()[1], pin = g.in_plane(), pout = g.out_plane();
  std::vector<T> x(pin), y(pout);
  std::vector<std::int64_t> idx(pout);
  for (std::uint64_t p = 0; p < planes; ++p) {
    for (std::uint64_t i = 0; i < pin; ++i) x[i] = load<T>(X, p * pin + i);
    if (max)
      max_pool_plane(x.data(), g, p * pin, y.data(), idx.data());
    else
      avg_pool_plane(x.data(), g, include_pad, y.data());
    for (std::uint64_t o = 0; o < pout; ++o) {
      store<T>(c.outputs[0], p * pout + o, y[o]);
      if (max) c.outputs[1].set_raw<std::int64_t>(p * pout + o, idx[o]);
    }
  }
}

}  // namespace

void max_pool_kernel(KernelContext& c) {
  if (c.inputs[0].dtype() == DType::f64)
    pool_typed<double>(c, true);
  else
    pool_typed<float>(c, true);
}

void avg_pool_kernel(KernelContext& c) {
  if (c.inputs[0].dtype() == DType::f64)
    pool_typed<double>(c, false);
  else
    pool_typed<float>(c, false);
}

}  // namespace rung::ops
