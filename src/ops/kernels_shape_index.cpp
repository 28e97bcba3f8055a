// Indexing and generation: gather, gather_elements, scatter_add (deterministic: a canonical sum per target),
// one_hot, iota, arange. Indices are checked against their bound before anything is
// written; an index out of range is a kernel failure (N0012), never a wild access.
#include <cmath>

#include "ops/elementwise_driver.h"
#include "ops/kernels_shape.h"
#include "ops/numerics/reduce_tree.h"
#include "ops/shape_rules.h"
#include "ops/tensor_walk.h"

namespace rung::ops {

namespace {

// x[:axis] + idx + x[axis+1:]
Shape gathered_shape(const Shape& x, const Shape& idx, std::size_t axis) {
  Shape out(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(axis));
  out.insert(out.end(), idx.begin(), idx.end());
  out.insert(out.end(), x.begin() + static_cast<std::ptrdiff_t>(axis) + 1, x.end());
  return out;
}

// All indices checked against the axis extent; false (and c.fail) on the first bad one.
bool check_indices(const HostTensor& idx, std::uint64_t bound, std::size_t axis, KernelContext& c) {
  std::string err;
  for (std::uint64_t j = 0; j < idx.numel(); ++j)
    if (!checked_index(idx, j, bound, "index", err)) {
      c.fail(err + " (axis " + std::to_string(axis) + ")");
      return false;
    }
  return true;
}

}  // namespace

ShapeResult rule_gather(const ShapeArgs& a) {
  const Shape& x = a.inputs[0].shape;
  std::string err;
  if (x.empty()) return ShapeResult::fail("gather needs an operand of rank >= 1, not a scalar");
  auto ax = normalize_axis(a.attrs.integer("axis"), x.size(), err);
  if (!ax) return ShapeResult::fail(err);
  return ShapeResult::ok({gathered_shape(x, a.inputs[1].shape, *ax)});
}

void gather_rows(const HostTensor& x, const HostTensor& idx, std::size_t axis, HostTensor& out, KernelContext& c) {
  std::uint64_t n = x.shape()[axis];
  if (!check_indices(idx, n, axis, c)) return;
  std::uint64_t outer = extent_product(x.shape(), 0, axis), inner = extent_product(x.shape(), axis + 1, x.rank());
  std::uint64_t J = idx.numel(), dst = 0;
  for (std::uint64_t o = 0; o < outer; ++o)
    for (std::uint64_t j = 0; j < J; ++j) {
      copy_elems(x, (o * n + *load_index(idx, j)) * inner, out, dst, inner);
      dst += inner;
    }
}

void gather_kernel(KernelContext& c) {
  std::string err;
  std::size_t ax = *normalize_axis(c.attrs.integer("axis"), c.inputs[0].rank(), err);
  gather_rows(c.inputs[0], c.inputs[1], ax, c.outputs[0], c);
}

// gather_elements: indices of x's rank; along `axis` any extent, elsewhere at most x's.
ShapeResult rule_gather_elements(const ShapeArgs& a) {
  const Shape& x = a.inputs[0].shape;
  const Shape& idx = a.inputs[1].shape;
  std::string err;
  if (x.empty()) return ShapeResult::fail("gather_elements needs an operand of rank >= 1, not a scalar");
  auto ax = normalize_axis(a.attrs.integer("axis"), x.size(), err);
  if (!ax) return ShapeResult::fail(err);
  if (idx.size() != x.size())
    return ShapeResult::fail("gather_elements: indices have rank " + std::to_string(idx.size()) + ", x has rank " +
                             std::to_string(x.size()) + " (they must be equal)");
  for (std::size_t d = 0; d < x.size(); ++d) {
    if (d == *ax) continue;
    bool fits = idx[d] == x[d] || (idx[d].is_static() && x[d].is_static() && idx[d].extent() <= x[d].extent());
    if (!fits)
      return ShapeResult::fail("gather_elements: indices dim " + std::to_string(d) + " is " + idx[d].to_string() +
                               ", more than x's " + x[d].to_string() + " (or not provably at most)");
  }
  return ShapeResult::ok({idx});
}

// y[c] = x[c with c_axis replaced by indices[c]], c over the indices' shape.
void gather_elements_kernel(KernelContext& c) {
  const HostTensor& x = c.inputs[0];
  const HostTensor& idx = c.inputs[1];
  std::string err;
  std::size_t ax = *normalize_axis(c.attrs.integer("axis"), x.rank(), err);
  if (!check_indices(idx, x.shape()[ax], ax, c)) return;
  std::vector<std::uint64_t> xs = row_major_strides(x.shape());
  for_each_index(idx.shape(), [&](std::uint64_t i, const std::vector<std::uint64_t>& at) {
    std::uint64_t off = 0;
    for (std::size_t d = 0; d < at.size(); ++d) off += (d == ax ? *load_index(idx, i) : at[d]) * xs[d];
    copy_elems(x, off, c.outputs[0], i);
  });
}

ShapeResult rule_scatter_add(const ShapeArgs& a) {
  const Shape& x = a.inputs[0].shape;
  std::string err;
  if (x.empty()) return ShapeResult::fail("scatter_add needs an operand of rank >= 1, not a scalar");
  auto ax = normalize_axis(a.attrs.integer("axis"), x.size(), err);
  if (!ax) return ShapeResult::fail(err);
  Shape want = gathered_shape(x, a.inputs[1].shape, *ax);
  const Shape& upd = a.inputs[2].shape;
  bool ok = want.size() == upd.size();
  for (std::size_t d = 0; ok && d < want.size(); ++d) ok = same_dim(want[d], upd[d]);
  if (!ok)
    return ShapeResult::fail("updates " + shape_to_string(upd) + " must have shape " + shape_to_string(want) +
                             " (x[:axis] + indices + x[axis+1:])");
  return ShapeResult::ok({x});
}

// out[p] = x[p] + canonical_sum(updates landing on p, in increasing update position); a
// position no update lands on keeps x's bits. Integers wrap (order-free).
void scatter_add_kernel(KernelContext& c) {
  const HostTensor& x = c.inputs[0];
  const HostTensor& idx = c.inputs[1];
  const HostTensor& upd = c.inputs[2];
  HostTensor& y = c.outputs[0];
  std::string err;
  std::size_t ax = *normalize_axis(c.attrs.integer("axis"), x.rank(), err);
  std::uint64_t n = x.shape()[ax];
  if (!check_indices(idx, n, ax, c)) return;
  std::uint64_t inner = extent_product(x.shape(), ax + 1, x.rank());
  std::uint64_t J = idx.numel(), total = x.numel();
  auto target = [&](std::uint64_t u) {  // update position u = (o*J + j)*inner + k
    std::uint64_t k = u % inner, j = (u / inner) % J, o = u / inner / J;
    return (o * n + *load_index(idx, j)) * inner + k;
  };
  // Counting sort of update positions by target, stable in update order.
  std::vector<std::uint64_t> start(total + 1, 0), order(upd.numel());
  for (std::uint64_t u = 0; u < upd.numel(); ++u) ++start[target(u) + 1];
  for (std::uint64_t p = 0; p < total; ++p) start[p + 1] += start[p];
  std::vector<std::uint64_t> fill(start.begin(), start.end() - 1);
  for (std::uint64_t u = 0; u < upd.numel(); ++u) order[fill[target(u)]++] = u;

  std::copy(x.bytes().begin(), x.bytes().end(), y.bytes().begin());
  visit_compute_type(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      RUNG_UNREACHABLE("scatter_add admits no bool");
    } else {
      for (std::uint64_t p = 0; p < total; ++p) {
        std::uint64_t b = start[p], m = start[p + 1] - b;
        if (m == 0) continue;
        auto load = [&](std::uint64_t i) { return load_as<T>(upd, order[b + i]); };
        T s;
        if constexpr (std::is_floating_point_v<T>) s = num::canonical_sum<T>(m, load);
        else {
          s = 0;
          for (std::uint64_t i = 0; i < m; ++i) s = static_cast<T>(static_cast<std::uint64_t>(s) + static_cast<std::uint64_t>(load(i)));
        }
        T base = load_as<T>(x, p);
        if constexpr (std::is_floating_point_v<T>) store_as<T>(y, p, base + s);
        else store_as<T>(y, p, static_cast<T>(static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(s)));
      }
    }
  });
}

// ---- one_hot, iota, arange

namespace {

bool plain_value_dtype(DType t) { return !dtype_info(t).is_quantized; }

void store_one(HostTensor& y, std::uint64_t i) {
  if (y.dtype() == DType::boolean) y.store_bool(i, true);
  else if (dtype_info(y.dtype()).is_float) y.store_f64(i, 1.0);
  else y.store_int(i, 1);
}

}  // namespace

ShapeResult rule_one_hot(const ShapeArgs& a) {
  std::int64_t depth = a.attrs.integer("depth");
  if (depth < 0) return ShapeResult::fail("depth must be >= 0, got " + std::to_string(depth));
  DType t = a.attrs.dtype("dtype");
  if (!plain_value_dtype(t)) return ShapeResult::fail("one_hot cannot produce the block-quantized dtype " + std::string(dtype_name(t)));
  Shape out = a.inputs[0].shape;
  out.push_back(Dim::fixed(static_cast<std::uint64_t>(depth)));
  return ShapeResult::ok({out});
}

void one_hot_kernel(KernelContext& c) {
  const HostTensor& idx = c.inputs[0];
  HostTensor& y = c.outputs[0];
  auto depth = static_cast<std::uint64_t>(c.attrs.integer("depth"));
  std::string err;
  for (std::uint64_t i = 0; i < idx.numel(); ++i) {
    auto v = checked_index(idx, i, depth, "class index", err);
    if (!v) return c.fail(err + " (depth " + std::to_string(depth) + ")");
    store_one(y, i * depth + *v);
  }
}

ShapeResult rule_iota(const ShapeArgs& a) {
  const Shape& s = a.attrs.value("shape").as<Shape>();
  std::string err;
  if (s.empty()) return ShapeResult::fail("iota needs a shape of rank >= 1");
  if (!normalize_axis(a.attrs.integer("axis"), s.size(), err)) return ShapeResult::fail(err);
  DType t = a.attrs.dtype("dtype");
  if (!plain_value_dtype(t) || t == DType::boolean)
    return ShapeResult::fail("iota produces numbers, not " + std::string(dtype_name(t)));
  return ShapeResult::ok({s});
}

void iota_kernel(KernelContext& c) {
  std::string err;
  auto ext = static_extents(c.attrs.value("shape").as<Shape>(), err);
  if (!ext) return c.fail(err);
  HostTensor& y = c.outputs[0];
  std::size_t ax = *normalize_axis(c.attrs.integer("axis"), ext->size(), err);
  bool is_float = dtype_info(y.dtype()).is_float;
  for_each_index(*ext, [&](std::uint64_t i, const std::vector<std::uint64_t>& idx) {
    if (is_float) y.store_f64(i, static_cast<double>(idx[ax]));  // exact below 2^53, then one RNE
    else y.store_int(i, idx[ax]);                                  // wraps if the dtype is too narrow
  });
}

namespace {

struct Arange {
  std::uint64_t n = 0;
  std::string error;
};

// n = max(0, ceil((stop - start) / step)) in binary64; integer dtypes need integral start
// and step and every value representable.
Arange arange_plan(const Attrs& attrs) {
  double start = attrs.real("start"), stop = attrs.real("stop"), step = attrs.real("step");
  DType t = attrs.dtype("dtype");
  Arange r;
  if (!std::isfinite(start) || !std::isfinite(stop) || !std::isfinite(step)) r.error = "start, stop and step must be finite";
  else if (step == 0.0) r.error = "step must not be 0";
  else if (!plain_value_dtype(t) || t == DType::boolean) r.error = "arange produces numbers, not " + std::string(dtype_name(t));
  if (!r.error.empty()) return r;
  double len = std::ceil((stop - start) / step);
  if (len > 0x1p40) { r.error = "arange would produce more than 2^40 elements"; return r; }
  r.n = len > 0 ? static_cast<std::uint64_t>(len) : 0;
  const DTypeInfo& info = dtype_info(t);
  if (info.is_integer) {
    if (start != std::floor(start) || step != std::floor(step) || std::fabs(start) > 0x1p53 || std::fabs(step) > 0x1p53) {
      r.error = "an integer arange needs integral start and step (|value| <= 2^53)";
      return r;
    }
    int bits = 8 * static_cast<int>(info.block_bytes);
    double lo = info.is_signed ? -std::ldexp(1.0, bits - 1) : 0.0;
    double hi = std::ldexp(1.0, info.is_signed ? bits - 1 : bits);
    double last = start + static_cast<double>(r.n ? r.n - 1 : 0) * step;  // exact whenever |last| <= 2^53
    if (r.n && (start < lo || start >= hi || last < lo || last >= hi || std::fabs(last) > 0x1p53))
      r.error = "arange values from " + std::to_string(start) + " to " + std::to_string(last) + " do not fit " +
                std::string(dtype_name(t));
  }
  return r;
}

}  // namespace

ShapeResult rule_arange(const ShapeArgs& a) {
  Arange r = arange_plan(a.attrs);
  if (!r.error.empty()) return ShapeResult::fail(r.error);
  return ShapeResult::ok({Shape{Dim::fixed(r.n)}});
}

// Float dtypes: v_i = start + i * step in binary64 (two roundings), then one RNE rounding to
// the dtype. Integer dtypes: the exact integer start + i * step.
void arange_kernel(KernelContext& c) {
  HostTensor& y = c.outputs[0];
  double start = c.attrs.real("start"), step = c.attrs.real("step");
  bool is_float = dtype_info(y.dtype()).is_float;
  for (std::uint64_t i = 0; i < y.numel(); ++i) {
    if (is_float) {
      y.store_f64(i, start + static_cast<double>(i) * step);
    } else {
      auto s = static_cast<std::int64_t>(start), d = static_cast<std::int64_t>(step);
      y.store_int(i, static_cast<std::uint64_t>(s) + static_cast<std::uint64_t>(d) * i);
    }
  }
}

}  // namespace rung::ops
