// Shape ops: every result element is a bit copy (scatter_add: a canonical sum per target).
// Scalar by nature (no arithmetic to vectorise): strided copies over threads with memcpy
// for contiguous runs (strided_copy.h), indices checked before anything is written.
#include <algorithm>

#include "backends/cpu/cpu_kernel.h"
#include "backends/cpu/rows.h"
#include "backends/cpu/strided_copy.h"
#include "backends/cpu/tree.h"
#include "ops/elementwise_driver.h"
#include "ops/resize_plan.h"
#include "ops/shape_rules.h"
#include "ops/slice_bounds.h"
#include "ops/tensor_walk.h"

namespace rung::cpu {

namespace {

using ops::Extents;
using ops::HostTensor;

std::vector<std::int64_t> strides_of(const Extents& e) {
  auto s = ops::row_major_strides(e);
  return std::vector<std::int64_t>(s.begin(), s.end());
}

void reshape_kernel(CpuContext& c) {
  const auto& src = c.k.inputs[0].bytes();
  auto dst = c.k.outputs[0].bytes();
  c.pool.parallel_for(src.size(), 1 << 18, [&](std::uint64_t b, std::uint64_t e) {
    std::memcpy(dst.data() + b, src.data() + b, e - b);
  });
}

// y = x broadcast to y's shape (also expand_like's core): stride 0 on broadcast dims.
void broadcast_copy(CpuContext& c, const HostTensor& x, const Extents& x_aligned, HostTensor& y) {
  const Extents& out = y.shape();
  auto xs = ops::broadcast_strides(x_aligned, out);
  strided_copy(c.pool, x, y, 0, std::vector<std::int64_t>(xs.begin(), xs.end()));
}

void broadcast_to_kernel(CpuContext& c) { broadcast_copy(c, c.k.inputs[0], c.k.inputs[0].shape(), c.k.outputs[0]); }

void transpose_kernel(CpuContext& c) {
  const HostTensor& x = c.k.inputs[0];
  std::string err;
  const auto& perm = c.k.attrs.integers("perm");
  std::vector<std::size_t> p;
  if (perm.empty())
    for (std::size_t i = x.rank(); i-- > 0;) p.push_back(i);
  else
    for (auto v : perm) p.push_back(*ops::normalize_axis(v, x.rank(), err));
  auto xs = strides_of(x.shape());
  std::vector<std::int64_t> st;
  for (auto ax : p) st.push_back(xs[ax]);
  strided_copy(c.pool, x, c.k.outputs[0], 0, st);
}

void slice_kernel(CpuContext& c) {
  const HostTensor& x = c.k.inputs[0];
  auto plan = ops::slice_axes(x.shape(), c.k.attrs);
  auto xs = strides_of(x.shape());
  std::vector<std::int64_t> st = xs;
  std::int64_t base = 0;
  for (std::size_t d = 0; d < plan.size(); ++d) {
    if (plan[d].count == 0) return;  // nothing to copy (y is empty)
    base += plan[d].start * xs[d];
    st[d] = plan[d].count > 1 ? xs[d] * plan[d].step : 0;  // a lone element: a huge step never multiplies
  }
  strided_copy(c.pool, x, c.k.outputs[0], base, st);
}

void concat_kernel(CpuContext& c) {
  HostTensor& y = c.k.outputs[0];
  std::string err;
  std::size_t ax = *ops::normalize_axis(c.k.attrs.integer("axis"), y.rank(), err);
  std::uint64_t outer = ops::extent_product(y.shape(), 0, ax), inner = ops::extent_product(y.shape(), ax + 1, y.rank());
  std::size_t w = ops::elem_size(y.dtype());
  std::uint64_t row = y.shape()[ax] * inner;  // elements of y per outer index
  c.pool.parallel_for(outer, row_grain(row, kElemGrain), [&](std::uint64_t o0, std::uint64_t o1) {
    for (std::uint64_t o = o0; o < o1; ++o) {
      std::uint64_t dst = o * row;
      for (const HostTensor& x : c.k.inputs) {
        std::uint64_t run = x.shape()[ax] * inner;
        if (run) std::memcpy(y.bytes().data() + dst * w, x.bytes().data() + o * run * w, run * w);
        dst += run;
      }
    }
  });
}

std::uint64_t integral_bits(double v) {
  if (v < 0) return static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
  return static_cast<std::uint64_t>(v);
}

void pad_kernel(CpuContext& c) {
  const HostTensor& x = c.k.inputs[0];
  HostTensor& y = c.k.outputs[0];
  const auto& pads = c.k.attrs.integers("pads");
  int mode = c.k.attrs.string("mode") == "constant" ? 0 : c.k.attrs.string("mode") == "edge" ? 1 : 2;
  HostTensor fill(x.dtype(), {});
  double v = c.k.attrs.real("value");
  if (dtype_info(x.dtype()).is_float) fill.store_f64(0, v);
  else if (x.dtype() == DType::boolean) fill.store_bool(0, v != 0.0);
  else fill.store_int(0, integral_bits(v));
  auto xs = ops::row_major_strides(x.shape());
  std::size_t w = ops::elem_size(x.dtype());
  const Extents& out = y.shape();
  std::size_t rank = out.size();
  c.pool.parallel_for(y.numel(), kElemGrain, [&](std::uint64_t i0, std::uint64_t i1) {
    std::vector<std::uint64_t> idx(rank);
    std::uint64_t q = i0;
    for (std::size_t d = rank; d-- > 0;) {
      idx[d] = q % out[d];
      q /= out[d];
    }
    for (std::uint64_t i = i0; i < i1; ++i) {
      std::uint64_t src = 0;
      bool constant = false;
      for (std::size_t d = 0; d < rank && !constant; ++d) {
        auto n = static_cast<std::int64_t>(x.shape()[d]);
        std::int64_t p = static_cast<std::int64_t>(idx[d]) - pads[2 * d];
        if (p < 0 || p >= n) {
          if (mode == 0) constant = true;
          else if (mode == 1) p = p < 0 ? 0 : n - 1;
          else p = p < 0 ? -p : 2 * (n - 1) - p;
        }
        src += static_cast<std::uint64_t>(p) * xs[d];
      }
      std::memcpy(y.bytes().data() + i * w, constant ? fill.bytes().data() : x.bytes().data() + src * w, w);
      for (std::size_t d = rank; d-- > 0;) {
        if (++idx[d] < out[d]) break;
        idx[d] = 0;
      }
    }
  });
}

// All indices in [0, bound); else fails with the reference's message.
bool check_indices(const HostTensor& idx, std::uint64_t bound, std::size_t axis, ops::KernelContext& c) {
  std::string err;
  for (std::uint64_t j = 0; j < idx.numel(); ++j)
    if (!ops::checked_index(idx, j, bound, "index", err)) {
      c.fail(err + " (axis " + std::to_string(axis) + ")");
      return false;
    }
  return true;
}

}  // namespace

// Shared with embedding (kernels_nn.cpp).
void gather_rows_cpu(CpuContext& c, const HostTensor& x, const HostTensor& idx, std::size_t axis, HostTensor& out) {
  std::uint64_t n = x.shape()[axis];
  if (!check_indices(idx, n, axis, c.k)) return;
  std::uint64_t outer = ops::extent_product(x.shape(), 0, axis), inner = ops::extent_product(x.shape(), axis + 1, x.rank());
  std::uint64_t J = idx.numel();
  std::size_t w = ops::elem_size(x.dtype());
  std::vector<std::uint64_t> at(J);
  for (std::uint64_t j = 0; j < J; ++j) at[j] = *ops::load_index(idx, j);
  c.pool.parallel_for(outer * J, row_grain(inner, kElemGrain), [&](std::uint64_t t0, std::uint64_t t1) {
    for (std::uint64_t t = t0; t < t1; ++t) {
      std::uint64_t o = t / J, j = t % J;
      if (inner) std::memcpy(out.bytes().data() + t * inner * w, x.bytes().data() + (o * n + at[j]) * inner * w, inner * w);
    }
  });
}

namespace {

void gather_kernel(CpuContext& c) {
  std::string err;
  std::size_t ax = *ops::normalize_axis(c.k.attrs.integer("axis"), c.k.inputs[0].rank(), err);
  gather_rows_cpu(c, c.k.inputs[0], c.k.inputs[1], ax, c.k.outputs[0]);
}

// y[c] = x[c with c_axis = indices[c]]: each output element found from its own coordinate,
// over threads.
void gather_elements_kernel(CpuContext& c) {
  const HostTensor &x = c.k.inputs[0], &idx = c.k.inputs[1];
  HostTensor& y = c.k.outputs[0];
  std::string err;
  std::size_t ax = *ops::normalize_axis(c.k.attrs.integer("axis"), x.rank(), err);
  if (!check_indices(idx, x.shape()[ax], ax, c.k)) return;
  const ops::Extents& is = idx.shape();
  std::vector<std::uint64_t> xs = ops::row_major_strides(x.shape());
  std::size_t w = ops::elem_size(x.dtype());
  c.pool.parallel_for(idx.numel(), kElemGrain, [&](std::uint64_t i0, std::uint64_t i1) {
    for (std::uint64_t i = i0; i < i1; ++i) {
      std::uint64_t rest = i, off = 0;
      for (std::size_t d = is.size(); d-- > 0;) {
        std::uint64_t cd = rest % is[d];
        rest /= is[d];
        off += (d == ax ? *ops::load_index(idx, i) : cd) * xs[d];
      }
      std::memcpy(y.bytes().data() + i * w, x.bytes().data() + off * w, w);
    }
  });
}

// out[p] = x[p] + canonical_sum(updates landing on p, in update order); targets are
// independent, so they are spread over threads after a stable counting sort.
void scatter_add_kernel(CpuContext& c) {
  const HostTensor &x = c.k.inputs[0], &idx = c.k.inputs[1], &upd = c.k.inputs[2];
  HostTensor& y = c.k.outputs[0];
  std::string err;
  std::size_t ax = *ops::normalize_axis(c.k.attrs.integer("axis"), x.rank(), err);
  std::uint64_t n = x.shape()[ax];
  if (!check_indices(idx, n, ax, c.k)) return;
  std::uint64_t inner = ops::extent_product(x.shape(), ax + 1, x.rank());
  std::uint64_t J = idx.numel(), total = x.numel();
  std::vector<std::uint64_t> at(J);
  for (std::uint64_t j = 0; j < J; ++j) at[j] = *ops::load_index(idx, j);
  auto target = [&](std::uint64_t u) {
    std::uint64_t k = u % inner, j = (u / inner) % J, o = u / inner / J;
    return (o * n + at[j]) * inner + k;
  };
  std::vector<std::uint64_t> start(total + 1, 0), order(upd.numel());
  for (std::uint64_t u = 0; u < upd.numel(); ++u) ++start[target(u) + 1];
  for (std::uint64_t p = 0; p < total; ++p) start[p + 1] += start[p];
  std::vector<std::uint64_t> fill(start.begin(), start.end() - 1);
  for (std::uint64_t u = 0; u < upd.numel(); ++u) order[fill[target(u)]++] = u;
  std::memcpy(y.bytes().data(), x.bytes().data(), x.bytes().size());
  ops::visit_compute_type(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      RUNG_UNREACHABLE("scatter_add admits no bool");
    } else {
      c.pool.parallel_for(total, kElemGrain, [&](std::uint64_t p0, std::uint64_t p1) {
        std::vector<T> vals;
        for (std::uint64_t p = p0; p < p1; ++p) {
          std::uint64_t b = start[p], m = start[p + 1] - b;
          if (m == 0) continue;
          vals.resize(m);
          for (std::uint64_t i = 0; i < m; ++i) vals[i] = ops::load_as<T>(upd, order[b + i]);
          T base = ops::load_as<T>(x, p);
          if constexpr (std::is_floating_point_v<T>) {
            ops::store_as<T>(y, p, base + tree_sum<T>(vals.data(), m));
          } else {
            std::uint64_t s = 0;
            for (std::uint64_t i = 0; i < m; ++i) s += static_cast<std::uint64_t>(vals[i]);
            ops::store_as<T>(y, p, static_cast<T>(static_cast<std::uint64_t>(base) + s));
          }
        }
      });
    }
  });
}

void store_one(HostTensor& y, std::uint64_t i) {
  if (y.dtype() == DType::boolean) y.store_bool(i, true);
  else if (dtype_info(y.dtype()).is_float) y.store_f64(i, 1.0);
  else y.store_int(i, 1);
}

void one_hot_kernel(CpuContext& c) {
  const HostTensor& idx = c.k.inputs[0];
  HostTensor& y = c.k.outputs[0];
  auto depth = static_cast<std::uint64_t>(c.k.attrs.integer("depth"));
  std::string err;
  for (std::uint64_t i = 0; i < idx.numel(); ++i) {
    auto v = ops::checked_index(idx, i, depth, "class index", err);
    if (!v) return c.k.fail(err + " (depth " + std::to_string(depth) + ")");
  }
  c.pool.parallel_for(idx.numel(), kElemGrain, [&](std::uint64_t i0, std::uint64_t i1) {
    for (std::uint64_t i = i0; i < i1; ++i) store_one(y, i * depth + *ops::load_index(idx, i));
  });
}

void iota_kernel(CpuContext& c) {
  std::string err;
  auto ext = ops::static_extents(c.k.attrs.value("shape").as<Shape>(), err);
  if (!ext) return c.k.fail(err);
  HostTensor& y = c.k.outputs[0];
  std::size_t ax = *ops::normalize_axis(c.k.attrs.integer("axis"), ext->size(), err);
  bool is_float = dtype_info(y.dtype()).is_float;
  std::uint64_t inner = ops::extent_product(*ext, ax + 1, ext->size()), n = (*ext)[ax];
  c.pool.parallel_for(y.numel(), kElemGrain, [&](std::uint64_t i0, std::uint64_t i1) {
    for (std::uint64_t i = i0; i < i1; ++i) {
      std::uint64_t v = i / inner % n;
      if (is_float) y.store_f64(i, static_cast<double>(v));
      else y.store_int(i, v);
    }
  });
}

void arange_kernel(CpuContext& c) {
  HostTensor& y = c.k.outputs[0];
  double start = c.k.attrs.real("start"), step = c.k.attrs.real("step");
  bool is_float = dtype_info(y.dtype()).is_float;
  c.pool.parallel_for(y.numel(), kElemGrain, [&](std::uint64_t i0, std::uint64_t i1) {
    for (std::uint64_t i = i0; i < i1; ++i) {
      if (is_float) {
        y.store_f64(i, start + static_cast<double>(i) * step);
      } else {
        auto s = static_cast<std::int64_t>(start), d = static_cast<std::int64_t>(step);
        y.store_int(i, static_cast<std::uint64_t>(s) + static_cast<std::uint64_t>(d) * i);
      }
    }
  });
}

// resize: the reference's passes (ops::resize_host, one driver for both) with the rows of
// each pass spread over threads.
void resize_kernel(CpuContext& c) {
  ops::resize_host(c.k.inputs[0], c.k.outputs[0], c.k.attrs,
                   [&](std::uint64_t n, std::uint64_t grain, const std::function<void(std::uint64_t, std::uint64_t)>& fn) {
                     c.pool.parallel_for(n, grain, fn);
                   });
}

}  // namespace

void register_shape_kernels(ops::OpRegistry& r) {
  const Impl S = Impl::scalar;
  add_kernel(r, "reshape", reshape_kernel, S);
  add_kernel(r, "broadcast_to", broadcast_to_kernel, S);
  add_kernel(r, "transpose", transpose_kernel, S);
  add_kernel(r, "slice", slice_kernel, S);
  add_kernel(r, "concat", concat_kernel, S);
  add_kernel(r, "gather", gather_kernel, S);
  add_kernel(r, "gather_elements", gather_elements_kernel, S);
  add_kernel(r, "scatter_add", scatter_add_kernel, S);
  add_kernel(r, "pad", pad_kernel, S);
  add_kernel(r, "iota", iota_kernel, S);
  add_kernel(r, "arange", arange_kernel, S);
  add_kernel(r, "one_hot", one_hot_kernel, S);
  add_kernel(r, "resize", resize_kernel, S);
}

}  // namespace rung::cpu
