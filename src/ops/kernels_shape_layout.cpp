// Pure data movement: every output element is a bit copy of one input element (or pad's
// constant), so these ops are exact on every backend and in every tier.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/elementwise_driver.h"
#include "ops/kernels_shape.h"
#include "ops/shape_rules.h"
#include "ops/slice_bounds.h"
#include "ops/tensor_walk.h"

namespace rung::ops {

namespace {

const Shape& shape_attr(const Attrs& a) { return a.value("shape").as<Shape>(); }

// Element count of a shape as (static product, sorted symbols); zero when any static dim is 0.
struct Count {
  std::uint64_t product = 1;
  bool zero = false;
  bool overflow = false;
  std::vector<std::string> symbols;
};

Count count_of(const Shape& s) {
  Count c;
  for (const auto& d : s) {
    if (!d.is_static()) { c.symbols.push_back(d.name()); continue; }
    if (d.extent() == 0) c.zero = true;
    else if (c.product > UINT64_MAX / d.extent()) c.overflow = true;
    else c.product *= d.extent();
  }
  std::sort(c.symbols.begin(), c.symbols.end());
  return c;
}

}  // namespace

ShapeResult rule_reshape(const ShapeArgs& a) {
  const Shape& in = a.inputs[0].shape;
  const Shape& to = shape_attr(a.attrs);
  Count ci = count_of(in), co = count_of(to);
  if (ci.overflow || co.overflow) return ShapeResult::fail("element count overflows 64 bits");
  bool same = (ci.zero && co.zero) ||
              (!ci.zero && !co.zero && ci.product == co.product && ci.symbols == co.symbols);
  if (!same)
    return ShapeResult::fail("cannot reshape " + shape_to_string(in) + " to " + shape_to_string(to) +
                             ": element counts differ (symbolic dims must appear on both sides)");
  return ShapeResult::ok({to});
}

void reshape_kernel(KernelContext& c) {
  const auto& src = c.inputs[0].bytes();
  std::copy(src.begin(), src.end(), c.outputs[0].bytes().begin());
}

ShapeResult rule_broadcast_to(const ShapeArgs& a) {
  const Shape& in = a.inputs[0].shape;
  const Shape& to = shape_attr(a.attrs);
  if (in.size() > to.size())
    return ShapeResult::fail("cannot broadcast " + shape_to_string(in) + " to the lower rank " + shape_to_string(to));
  for (std::size_t k = 0; k < in.size(); ++k) {
    const Dim& d = in[in.size() - 1 - k];
    const Dim& t = to[to.size() - 1 - k];
    bool one = d.is_static() && d.extent() == 1;
    if (!one && !same_dim(d, t))
      return ShapeResult::fail("dim " + d.to_string() + " (axis " + std::to_string(in.size() - 1 - k) + " of " +
                               shape_to_string(in) + ") cannot broadcast to " + t.to_string() +
                               "; only dims of extent 1 broadcast");
  }
  return ShapeResult::ok({to});
}

void broadcast_to_kernel(KernelContext& c) {
  const HostTensor& x = c.inputs[0];
  HostTensor& y = c.outputs[0];
  for_each_broadcast<1>(y.shape(), {&x.shape()},
                        [&](std::uint64_t i, const std::array<std::uint64_t, 1>& o) { copy_elems(x, o[0], y, i); });
}

namespace {

std::optional<std::vector<std::size_t>> permutation(const Attrs& attrs, std::size_t rank, std::string& err) {
  const auto& perm = attrs.integers("perm");
  std::vector<std::size_t> p;
  if (perm.empty()) {
    for (std::size_t i = rank; i-- > 0;) p.push_back(i);
    return p;
  }
  if (perm.size() != rank) {
    err = "perm has " + std::to_string(perm.size()) + " entries for an operand of rank " + std::to_string(rank);
    return std::nullopt;
  }
  std::vector<bool> seen(rank, false);
  for (auto v : perm) {
    auto ax = normalize_axis(v, rank, err);
    if (!ax) return std::nullopt;
    if (seen[*ax]) {
      err = "perm lists axis " + std::to_string(*ax) + " twice";
      return std::nullopt;
    }
    seen[*ax] = true;
    p.push_back(*ax);
  }
  return p;
}

}  // namespace

ShapeResult rule_transpose(const ShapeArgs& a) {
  const Shape& in = a.inputs[0].shape;
  std::string err;
  auto p = permutation(a.attrs, in.size(), err);
  if (!p) return ShapeResult::fail(err);
  Shape out;
  for (auto ax : *p) out.push_back(in[ax]);
  return ShapeResult::ok({out});
}

void transpose_kernel(KernelContext& c) {
  const HostTensor& x = c.inputs[0];
  HostTensor& y = c.outputs[0];
  std::string err;
  auto p = *permutation(c.attrs, x.rank(), err);
  auto xs = row_major_strides(x.shape());
  for_each_index(y.shape(), [&](std::uint64_t i, const std::vector<std::uint64_t>& idx) {
    std::uint64_t src = 0;
    for (std::size_t d = 0; d < idx.size(); ++d) src += idx[d] * xs[p[d]];
    copy_elems(x, src, y, i);
  });
}

// ---- slice: Python/numpy slice semantics per listed axis (ops/slice_bounds.h).

ShapeResult rule_slice(const ShapeArgs& a) {
  const Shape& in = a.inputs[0].shape;
  std::string err;
  auto bounds = slice_bounds(in.size(), a.attrs, err);
  if (!bounds) return ShapeResult::fail(err);
  Shape out = in;
  for (std::size_t d = 0; d < in.size(); ++d) {
    const auto& b = (*bounds)[d];
    if (!b) continue;
    if (!in[d].is_static()) {
      if (slice_keeps_extent(b->start, b->end, b->step)) continue;  // `::-1` of N is N
      return ShapeResult::fail("cannot slice the symbolic dim " + in[d].to_string() + " (axis " + std::to_string(d) +
                               ") statically: its result extent depends on the dim; only a whole-axis slice (`::1`, `::-1`) "
                               "keeps a symbolic dim");
    }
    if (in[d].extent() > static_cast<std::uint64_t>(kSliceMax)) return ShapeResult::fail("extent too large to slice");
    out[d] = Dim::fixed(resolve_slice(b->start, b->end, b->step, in[d].extent()).count);
  }
  return ShapeResult::ok({out});
}

void slice_kernel(KernelContext& c) {
  const HostTensor& x = c.inputs[0];
  HostTensor& y = c.outputs[0];
  auto plan = slice_axes(x.shape(), c.attrs);
  auto xs = row_major_strides(x.shape());
  for_each_index(y.shape(), [&](std::uint64_t i, const std::vector<std::uint64_t>& idx) {
    std::uint64_t src = 0;
    for (std::size_t d = 0; d < idx.size(); ++d)
      src += static_cast<std::uint64_t>(plan[d].start + static_cast<std::int64_t>(idx[d]) * plan[d].step) * xs[d];
    copy_elems(x, src, y, i);
  });
}

// ---- concat

ShapeResult rule_concat(const ShapeArgs& a) {
  const Shape& first = a.inputs[0].shape;
  std::string err;
  auto ax = normalize_axis(a.attrs.integer("axis"), first.size(), err);
  if (!ax) return ShapeResult::fail(err);
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < a.inputs.size(); ++i) {
    const Shape& s = a.inputs[i].shape;
    if (s.size() != first.size())
      return ShapeResult::fail("operand " + std::to_string(i) + " has rank " + std::to_string(s.size()) +
                               ", operand 0 has rank " + std::to_string(first.size()));
    for (std::size_t d = 0; d < s.size(); ++d)
      if (d != *ax && !same_dim(s[d], first[d]))
        return ShapeResult::fail("operand " + std::to_string(i) + " " + shape_to_string(s) + " differs from operand 0 " +
                                 shape_to_string(first) + " in axis " + std::to_string(d) + " (only the concat axis may differ)");
    if (!s[*ax].is_static())
      return ShapeResult::fail("operand " + std::to_string(i) + " has the symbolic dim " + s[*ax].to_string() +
                               " on the concat axis; its extent cannot be summed statically");
    total += s[*ax].extent();
  }
  Shape out = first;
  out[*ax] = Dim::fixed(total);
  return ShapeResult::ok({out});
}

void concat_kernel(KernelContext& c) {
  HostTensor& y = c.outputs[0];
  std::string err;
  std::size_t ax = *normalize_axis(c.attrs.integer("axis"), y.rank(), err);
  std::uint64_t outer = extent_product(y.shape(), 0, ax), inner = extent_product(y.shape(), ax + 1, y.rank());
  std::uint64_t dst = 0;
  for (std::uint64_t o = 0; o < outer; ++o)
    for (const HostTensor& x : c.inputs) {
      std::uint64_t run = x.shape()[ax] * inner;  // one contiguous run per operand and outer index
      copy_elems(x, o * run, y, dst, run);
      dst += run;
    }
}

// ---- pad

namespace {

// Whether pad's `value` is representable in `t` (floats: any value, rounded RNE once).
bool pad_value_fits(DType t, double v) {
  const DTypeInfo& info = dtype_info(t);
  if (info.is_float) return true;
  if (t == DType::boolean) return v == 0.0 || v == 1.0;
  if (v != std::floor(v)) return false;  // fractions and NaN
  int bits = 8 * static_cast<int>(info.block_bytes);
  double lo = info.is_signed ? -std::ldexp(1.0, bits - 1) : 0.0;
  double hi = std::ldexp(1.0, info.is_signed ? bits - 1 : bits);
  return v >= lo && v < hi;  // also rejects infinities
}

// Two's complement bits of an integral value checked by pad_value_fits.
std::uint64_t integral_bits(double v) {
  if (v < 0) return static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
  return static_cast<std::uint64_t>(v);
}

}  // namespace

ShapeResult rule_pad(const ShapeArgs& a) {
  const Shape& in = a.inputs[0].shape;
  const auto& pads = a.attrs.integers("pads");
  const std::string& mode = a.attrs.string("mode");
  if (pads.size() != 2 * in.size())
    return ShapeResult::fail("pads needs 2 entries per axis (before, after) = " + std::to_string(2 * in.size()) +
                             " for " + shape_to_string(in) + ", got " + std::to_string(pads.size()));
  if (!pad_value_fits(a.inputs[0].dtype, a.attrs.real("value")))
    return ShapeResult::fail("pad value " + std::to_string(a.attrs.real("value")) + " is not representable in " +
                             std::string(dtype_name(a.inputs[0].dtype)));
  Shape out = in;
  for (std::size_t d = 0; d < in.size(); ++d) {
    std::int64_t b = pads[2 * d], e = pads[2 * d + 1];
    if (b < 0 || e < 0)
      return ShapeResult::fail("pads of axis " + std::to_string(d) + " are negative (use slice to crop)");
    if (b > (std::int64_t{1} << 48) || e > (std::int64_t{1} << 48))
      return ShapeResult::fail("pads of axis " + std::to_string(d) + " exceed 2^48");
    if (b == 0 && e == 0) continue;
    if (!in[d].is_static())
      return ShapeResult::fail("cannot pad the symbolic dim " + in[d].to_string() + " (axis " + std::to_string(d) + ")");
    std::uint64_t n = in[d].extent();
    if (mode == "edge" && n == 0)
      return ShapeResult::fail("edge padding of the empty axis " + std::to_string(d) + " has no edge to repeat");
    if (mode == "reflect" && (static_cast<std::uint64_t>(std::max(b, e)) >= n))
      return ShapeResult::fail("reflect padding of axis " + std::to_string(d) + " needs pads < extent " +
                               std::to_string(n) + ", got " + std::to_string(b) + " and " + std::to_string(e));
    out[d] = Dim::fixed(n + static_cast<std::uint64_t>(b) + static_cast<std::uint64_t>(e));
  }
  return ShapeResult::ok({out});
}

void pad_kernel(KernelContext& c) {
  const HostTensor& x = c.inputs[0];
  HostTensor& y = c.outputs[0];
  const auto& pads = c.attrs.integers("pads");
  const std::string& mode = c.attrs.string("mode");
  // The constant, encoded once in the operand's dtype (floats: one RNE rounding).
  HostTensor fill(x.dtype(), {});
  double v = c.attrs.real("value");
  if (dtype_info(x.dtype()).is_float) fill.store_f64(0, v);
  else if (x.dtype() == DType::boolean) fill.store_bool(0, v != 0.0);
  else fill.store_int(0, integral_bits(v));
  auto xs = row_major_strides(x.shape());
  for_each_index(y.shape(), [&](std::uint64_t i, const std::vector<std::uint64_t>& idx) {
    std::uint64_t src = 0;
    for (std::size_t d = 0; d < idx.size(); ++d) {
      auto n = static_cast<std::int64_t>(x.shape()[d]);
      std::int64_t p = static_cast<std::int64_t>(idx[d]) - pads[2 * d];
      if (p < 0 || p >= n) {
        if (mode == "constant") { copy_elems(fill, 0, y, i); return; }
        if (mode == "edge") p = p < 0 ? 0 : n - 1;
        else p = p < 0 ? -p : 2 * (n - 1) - p;  // reflect about the edge element (pads < n)
      }
      src += static_cast<std::uint64_t>(p) * xs[d];
    }
    copy_elems(x, src, y, i);
  });
}

}  // namespace rung::ops
