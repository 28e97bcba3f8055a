// The device kernel of every op the CUDA backend implements: attribute handling and index
// bookkeeping on the host, the arithmetic in the launchers of device_api.h. The registry's
// shape rule has already produced the output types (run_dev).
#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>

#include "backends/cuda/cuda_context.h"
#include "backends/cuda/cuda_ops_nn.h"
#include "backends/cuda/device_api.h"
#include "backends/cuda/device_api_resize.h"
#include "ops/csr.h"
#include "ops/resize_plan.h"
#include "ops/shape_rules.h"
#include "ops/slice_bounds.h"
#include "ops/tensor_walk.h"
#include "ops/typing.h"

namespace rung::cuda {

namespace {

using In = std::span<const DevTensor>;
using Out = std::vector<DevTensor>;

int dt(DType d) { return static_cast<int>(d); }

Dims dims_of(const ops::Extents& e) {
  Dims d;
  d.rank = static_cast<int>(e.size());
  for (std::size_t i = 0; i < e.size(); ++i) d.ext[i] = e[i];
  return d;
}

std::vector<std::int64_t> row_major_strides(const ops::Extents& e) {
  std::vector<std::int64_t> s(e.size(), 1);
  for (std::size_t d = e.size(); d-- > 1;) s[d - 1] = s[d] * static_cast<std::int64_t>(e[d]);
  return s;
}

// Strides of `t` seen through broadcasting to `out` (0 where it stretches).
Strided bcast(const DevTensor& t, const ops::Extents& out) {
  Strided s;
  s.data = t.data();
  s.dtype = dt(t.dtype);
  s.dense = t.shape == out;
  auto own = row_major_strides(t.shape);
  std::size_t off = out.size() - t.shape.size();
  for (std::size_t k = 0; k < t.shape.size(); ++k) s.stride[off + k] = t.shape[k] == 1 ? 0 : own[k];
  return s;
}

bool rank_ok(Context&, const ops::Extents& e, DiagnosticSink& diags) {
  if (e.size() <= static_cast<std::size_t>(kMaxRank)) return true;
  diags.error("U0003", "the cuda backend handles tensors of rank <= " + std::to_string(kMaxRank) + ", got rank " +
                           std::to_string(e.size()));
  return false;
}

// Copying ops move bits, but every output NaN must be the canonical one (docs/semantics.md
// §2; the reference canonicalises every output). clamp(-inf, +inf) is the identity on every
// non-NaN value (±0, infinities and subnormals included) and stores NaNs canonically.
bool canonicalize(Context& c, const DevTensor& src, DevTensor& y, DiagnosticSink& d) {
  if (!dtype_info(y.dtype).is_float) return true;
  double inf = std::numeric_limits<double>::infinity();
  return c.check(launch_clamp(src.data(), dt(y.dtype), y.data(), y.numel(), -inf, inf, c.stream()), "NaN canonicalisation", d);
}

DevKernel binary(Ew op) {
  return [op](Context& c, In in, const ops::Attrs&, Out& out, DiagnosticSink& d) {
    if (!rank_ok(c, out[0].shape, d)) return false;
    return c.check(launch_binary(op, bcast(in[0], out[0].shape), bcast(in[1], out[0].shape), out[0].data(), dt(out[0].dtype),
                                 dims_of(out[0].shape), c.stream()),
                   "binary kernel", d);
  };
}

DevKernel unary(Ew op) {
  return [op](Context& c, In in, const ops::Attrs&, Out& out, DiagnosticSink& d) {
    return c.check(launch_unary(op, in[0].data(), dt(in[0].dtype), out[0].data(), dt(out[0].dtype), in[0].numel(), c.stream()),
                   "unary kernel", d);
  };
}

bool gelu(Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
  Ew op = a.string("approximate") == "tanh" ? Ew::gelu_tanh : Ew::gelu;
  return unary(op)(c, in, a, out, d);
}

bool bit_shift(Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
  return binary(a.string("direction") == "right" ? Ew::shift_right : Ew::shift_left)(c, in, a, out, d);
}

bool clamp(Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
  return c.check(launch_clamp(in[0].data(), dt(in[0].dtype), out[0].data(), in[0].numel(), a.real("min"), a.real("max"), c.stream()),
                 "clamp kernel", d);
}

bool where(Context& c, In in, const ops::Attrs&, Out& out, DiagnosticSink& d) {
  if (!rank_ok(c, out[0].shape, d)) return false;
  int bytes = static_cast<int>(dtype_info(out[0].dtype).block_bytes);
  return c.check(launch_where(bcast(in[0], out[0].shape), bcast(in[1], out[0].shape), bcast(in[2], out[0].shape), out[0].data(),
                              bytes, dims_of(out[0].shape), c.stream()),
                 "where kernel", d) &&
         ((in[1].canonical_nans && in[2].canonical_nans) || canonicalize(c, out[0], out[0], d));
}

bool cast(Context& c, In in, const ops::Attrs&, Out& out, DiagnosticSink& d) {
  return c.check(launch_cast(in[0].data(), dt(in[0].dtype), out[0].data(), dt(out[0].dtype), in[0].numel(), c.stream()),
                 "cast kernel", d);
}

// The reduction's kept/reduced split of x's axes (reduced ones in increasing order).
ReduceSpec reduce_spec(const DevTensor& x, const std::vector<std::size_t>& axes) {
  ReduceSpec s;
  auto st = row_major_strides(x.shape);
  for (std::size_t d = 0; d < x.shape.size(); ++d) {
    bool r = std::find(axes.begin(), axes.end(), d) != axes.end();
    Dims& D = r ? s.red : s.kept;
    std::int64_t* S = r ? s.red_stride : s.kept_stride;
    S[D.rank] = st[d];
    D.ext[D.rank++] = x.shape[d];
  }
  // Merge the reduced axes into one when they are the contiguous tail (the common case).
  bool tail = !axes.empty();
  std::vector<std::size_t> sorted = axes;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != x.shape.size() - sorted.size() + i) tail = false;
  if (tail) {
    std::uint64_t n = 1;
    for (int i = 0; i < s.red.rank; ++i) n *= s.red.ext[i];
    s.red.rank = 1;
    s.red.ext[0] = n;
    s.red_stride[0] = 1;
  }
  return s;
}

DevKernel reduce(Red op) {
  return [op](Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
    if (!rank_ok(c, in[0].shape, d)) return false;
    std::string err;
    std::vector<std::size_t> axes;
    if (a.has("axis")) axes = {*ops::normalize_axis(a.integer("axis"), in[0].shape.size(), err)};
    else axes = *ops::normalize_axes(a.integers("axes"), in[0].shape.size(), true, err);
    ReduceSpec spec = reduce_spec(in[0], axes);
    if (a.has("correction")) spec.correction = a.integer("correction");
    return c.check(launch_reduce(op, in[0].data(), dt(in[0].dtype), out[0].data(), dt(out[0].dtype), spec, c.stream()),
                   "reduction kernel", d);
  };
}

DevKernel softmax(bool log) {
  return [log](Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
    std::string err;
    std::size_t axis = *ops::normalize_axis(a.integer("axis"), in[0].shape.size(), err);
    std::uint64_t outer = 1, inner = 1, n = in[0].shape[axis];
    for (std::size_t i = 0; i < axis; ++i) outer *= in[0].shape[i];
    for (std::size_t i = axis + 1; i < in[0].shape.size(); ++i) inner *= in[0].shape[i];
    if (n > 4096ull * 4096ull) {
      d.error("U0003", "softmax over " + std::to_string(n) + " elements: the cuda backend handles rows of up to 4096^2");
      return false;
    }
    return c.check(launch_softmax(log, in[0].data(), dt(in[0].dtype), out[0].data(), outer, n, inner, c.stream()),
                   "softmax kernel", d);
  };
}

// matmul/linear: one launch over the broadcast batch.
bool run_matmul(Context& c, const DevTensor& A, const DevTensor& B, bool ta, bool tb, const DevTensor* bias, DevTensor& Y,
                DiagnosticSink& d) {
  const auto& ea = A.shape;
  const auto& eb = B.shape;
  std::uint64_t ra = ea[ea.size() - 2], ca = ea[ea.size() - 1], rb = eb[eb.size() - 2], cb = eb[eb.size() - 1];
  MatmulSpec m;
  m.M = ta ? ca : ra;
  m.K = ta ? ra : ca;
  m.N = tb ? rb : cb;
  m.a_rs = ta ? 1 : static_cast<std::int64_t>(ca);
  m.a_ks = ta ? static_cast<std::int64_t>(ca) : 1;
  m.b_ks = tb ? 1 : static_cast<std::int64_t>(cb);
  m.b_cs = tb ? static_cast<std::int64_t>(cb) : 1;
  ops::Extents by(Y.shape.begin(), Y.shape.end() - 2), ba(ea.begin(), ea.end() - 2), bb(eb.begin(), eb.end() - 2);
  if (!rank_ok(c, by, d)) return false;
  m.batch = dims_of(by);
  {
    auto sa = row_major_strides(ba), sb = row_major_strides(bb);
    std::size_t oa = by.size() - ba.size(), ob = by.size() - bb.size();
    for (std::size_t k = 0; k < ba.size(); ++k) m.a_bs[oa + k] = ba[k] == 1 ? 0 : sa[k] * static_cast<std::int64_t>(ra * ca);
    for (std::size_t k = 0; k < bb.size(); ++k) m.b_bs[ob + k] = bb[k] == 1 ? 0 : sb[k] * static_cast<std::int64_t>(rb * cb);
  }
  if (bias) {
    m.bias = bias->data();
    m.bias_dtype = dt(bias->dtype);
  }
  if (c.tier() == ops::Tier::fast && (A.dtype == DType::f32 || A.dtype == DType::bf16) && !bias) {
    bool admit = false;
    if (!fast_matmul_admits(c, A, B, Y, m, admit, d)) return false;
    if (admit) {
      ++c.fast_matmul_cublas;
      return fast_matmul(c, A, B, Y, m, d);
    }
    ++c.fast_matmul_exact;  // the exact result is always inside the fast class
  }
  return c.check(launch_matmul_exact(A.data(), B.data(), dt(A.dtype), Y.data(), dt(Y.dtype), m, c.stream()), "matmul kernel", d);
}

bool matmul(Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
  return run_matmul(c, in[0], in[1], a.boolean("transpose_a"), a.boolean("transpose_b"), nullptr, out[0], d);
}

// linear(x, W, b) = x as [rows, K] times W^T, then + b as a separate rounding.
bool linear(Context& c, In in, const ops::Attrs&, Out& out, DiagnosticSink& d) {
  std::uint64_t K = in[1].shape[1];
  std::uint64_t rows = ops::element_count(ops::Extents(in[0].shape.begin(), in[0].shape.end() - 1));
  DevTensor x2{in[0].dtype, {rows, K}, in[0].buf};
  DevTensor y2{out[0].dtype, {rows, in[1].shape[0]}, out[0].buf};
  return run_matmul(c, x2, in[1], false, true, in.size() > 2 ? &in[2] : nullptr, y2, d);
}

bool reshape(Context& c, In in, const ops::Attrs&, Out& out, DiagnosticSink& d) {
  if (!dtype_info(in[0].dtype).is_float || in[0].canonical_nans) {
    out[0].buf = in[0].buf;  // values are immutable: the same bytes under a new shape
    return true;
  }
  auto t = c.alloc(out[0].dtype, out[0].shape, d);  // floats: a NaN payload must become canonical
  if (!t) return false;
  out[0].buf = t->buf;
  return canonicalize(c, in[0], out[0], d);
}

// y[c] = x[base + sum c_d * stride_d] for every index c of y.
bool gather_view(Context& c, const DevTensor& x, std::int64_t base, const std::vector<std::int64_t>& stride, DevTensor& y,
                 DiagnosticSink& d) {
  if (!rank_ok(c, y.shape, d)) return false;
  auto ys = row_major_strides(y.shape);
  int bytes = static_cast<int>(dtype_info(x.dtype).block_bytes);
  return c.check(launch_copy_strided(x.data(), base, stride.data(), y.data(), 0, ys.data(), dims_of(y.shape), bytes, c.stream()),
                 "copy kernel", d) &&
         (x.canonical_nans || canonicalize(c, y, y, d));
}

bool broadcast_like(Context& c, const DevTensor& x, const ops::Extents& xs, DevTensor& y, DiagnosticSink& d) {
  auto own = row_major_strides(xs);
  std::vector<std::int64_t> st(y.shape.size(), 0);
  std::size_t off = y.shape.size() - xs.size();
  for (std::size_t k = 0; k < xs.size(); ++k) st[off + k] = xs[k] == 1 ? 0 : own[k];
  return gather_view(c, x, 0, st, y, d);
}

bool broadcast_to(Context& c, In in, const ops::Attrs&, Out& out, DiagnosticSink& d) {
  return broadcast_like(c, in[0], in[0].shape, out[0], d);
}

bool expand_like(Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
  const auto& axes = a.integers("axes");
  ops::Extents xs = in[0].shape;
  if (!axes.empty()) {
    std::size_t rank = out[0].shape.size();
    std::vector<bool> inserted(rank, false);
    for (auto ax : axes) inserted[static_cast<std::size_t>(ax < 0 ? ax + static_cast<std::int64_t>(rank) : ax)] = true;
    xs.clear();
    std::size_t k = 0;
    for (std::size_t i = 0; i < rank; ++i) xs.push_back(inserted[i] ? 1 : in[0].shape[k++]);
  }
  return broadcast_like(c, in[0], xs, out[0], d);
}

bool transpose(Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
  std::size_t r = in[0].shape.size();
  std::vector<std::size_t> perm;
  std::string err;
  if (a.integers("perm").empty()) {
    for (std::size_t i = 0; i < r; ++i) perm.push_back(r - 1 - i);
  } else {  // in the given order (normalize_axes would sort them)
    for (std::int64_t ax : a.integers("perm")) perm.push_back(static_cast<std::size_t>(ax < 0 ? ax + static_cast<std::int64_t>(r) : ax));
  }
  auto xs = row_major_strides(in[0].shape);
  std::vector<std::int64_t> st(r);
  for (std::size_t i = 0; i < r; ++i) st[i] = xs[perm[i]];
  return gather_view(c, in[0], 0, st, out[0], d);
}

bool slice(Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
  const auto& x = in[0];
  auto plan = ops::slice_axes(x.shape, a);  // Python's slice.indices, as the reference resolves it
  auto xs = row_major_strides(x.shape);
  std::vector<std::int64_t> st = xs;
  std::int64_t base = 0;
  for (std::size_t ax = 0; ax < plan.size(); ++ax) {
    if (plan[ax].count == 0) return true;  // y is empty
    base += plan[ax].start * xs[ax];
    st[ax] = plan[ax].count > 1 ? xs[ax] * plan[ax].step : 0;  // a lone element: a huge step never multiplies
  }
  return gather_view(c, x, base, st, out[0], d);
}

bool concat(Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
  std::string err;
  std::size_t axis = *ops::normalize_axis(a.integer("axis"), out[0].shape.size(), err);
  auto ys = row_major_strides(out[0].shape);
  std::int64_t offset = 0;
  int bytes = static_cast<int>(dtype_info(out[0].dtype).block_bytes);
  if (!rank_ok(c, out[0].shape, d)) return false;
  for (const auto& x : in) {
    auto xs = row_major_strides(x.shape);
    if (!c.check(launch_copy_strided(x.data(), 0, xs.data(), out[0].data(), offset * ys[axis], ys.data(), dims_of(x.shape),
                                     bytes, c.stream()),
                 "concat kernel", d))
      return false;
    offset += static_cast<std::int64_t>(x.shape[axis]);
  }
  bool canonical = std::all_of(in.begin(), in.end(), [](const DevTensor& x) { return x.canonical_nans; });
  return canonical || canonicalize(c, out[0], out[0], d);
}

std::uint64_t one_bits(DType t) {
  switch (t) {
    case DType::f32: return 0x3F800000u;
    case DType::f64: return 0x3FF0000000000000ull;
    case DType::f16: return 0x3C00u;
    case DType::bf16: return 0x3F80u;
    default: return 1;
  }
}

DevKernel fill_with(bool ones) {
  return [ones](Context& c, In, const ops::Attrs&, Out& out, DiagnosticSink& d) {
    int bytes = static_cast<int>(dtype_info(out[0].dtype).block_bytes);
    return c.check(launch_fill(out[0].data(), out[0].numel(), bytes, ones ? one_bits(out[0].dtype) : 0, c.stream()),
                   "fill kernel", d);
  };
}

// Normalisation over the trailing axes from `axis` (groups of n contiguous elements).
DevKernel norm(bool layer) {
  return [layer](Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
    std::string err;
    std::size_t ax = *ops::normalize_axis(a.integer("axis"), in[0].shape.size(), err);
    std::uint64_t groups = 1, n = 1;
    for (std::size_t i = 0; i < in[0].shape.size(); ++i) (i < ax ? groups : n) *= in[0].shape[i];
    if (n > 4096ull * 4096ull) {
      d.error("U0003", "normalising groups of " + std::to_string(n) + " elements: the cuda backend handles up to 4096^2");
      return false;
    }
    const DevTensor* g = in.size() > 1 ? &in[1] : nullptr;
    const DevTensor* b = in.size() > 2 ? &in[2] : nullptr;
    return c.check(launch_norm(layer, in[0].data(), dt(in[0].dtype), g ? g->data() : nullptr, g ? dt(g->dtype) : 0,
                               b ? b->data() : nullptr, b ? dt(b->dtype) : 0, out[0].data(), groups, n,
                               static_cast<float>(a.real("eps")), c.stream()),
                   "norm kernel", d);
  };
}

DevKernel random(int kind) {
  return [kind](Context& c, In, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
    float x = 0, y = 0;
    if (kind == 1) x = static_cast<float>(a.real("low")), y = static_cast<float>(a.real("high"));
    if (kind == 2) x = static_cast<float>(a.real("mean")), y = static_cast<float>(a.real("std"));
    return c.check(launch_random(kind, out[0].data(), dt(out[0].dtype), out[0].numel(), static_cast<std::uint64_t>(a.integer("seed")),
                                 static_cast<std::uint64_t>(a.integer("offset")), static_cast<std::uint64_t>(a.integer("position")),
                                 x, y, c.stream()),
                   "random kernel", d);
  };
}

bool sgd(Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
  return c.check(launch_sgd(static_cast<const float*>(in[0].data()), static_cast<const float*>(in[1].data()),
                            static_cast<const float*>(in[2].data()), static_cast<float*>(out[0].data()),
                            static_cast<float*>(out[1].data()), in[0].numel(), static_cast<float>(a.real("lr")),
                            static_cast<float>(a.real("momentum")), static_cast<float>(a.real("weight_decay")), c.stream()),
                 "sgd kernel", d);
}

bool adam(Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
  float b1 = static_cast<float>(a.real("beta1")), b2 = static_cast<float>(a.real("beta2"));
  float betas[2] = {b1, b2};
  auto bt = c.upload(ops::HostTensor::from_f32({2}, std::span<const float>(betas, 2)), d);
  if (!bt) return false;
  Dims two = dims_of({2});
  // pows' = pows * [beta1, beta2], one f32 multiply each.
  if (!c.check(launch_binary(Ew::mul, bcast(in[4], {2}), bcast(*bt, {2}), out[3].data(), dt(DType::f32), two, c.stream()),
               "adam pows", d))
    return false;
  return c.check(launch_adam(static_cast<const float*>(in[0].data()), static_cast<const float*>(in[1].data()),
                             static_cast<const float*>(in[2].data()), static_cast<const float*>(in[3].data()),
                             static_cast<const float*>(out[3].data()), static_cast<float*>(out[0].data()),
                             static_cast<float*>(out[1].data()), static_cast<float*>(out[2].data()), in[0].numel(),
                             static_cast<float>(a.real("lr")), b1, b2, static_cast<float>(a.real("eps")),
                             static_cast<float>(a.real("weight_decay")), a.boolean("decoupled"), c.stream()),
                 "adam kernel", d);
}

// Every index in [0, bound), else N0012 naming the first bad one (as the reference refuses).
bool check_indices(Context& c, const DevTensor& idx, std::uint64_t bound, const std::string& what, DiagnosticSink& d) {
  auto flag = c.alloc(DType::u64, {1}, d);
  if (!flag) return false;
  if (!c.check(launch_index_check(idx.data(), dt(idx.dtype), idx.numel(), bound, static_cast<unsigned long long*>(flag->data()),
                                  c.stream()),
               "index check", d))
    return false;
  auto h = c.download(*flag, d);
  if (!h) return false;
  std::uint64_t pos = h->raw<std::uint64_t>(0);
  if (pos == ~std::uint64_t{0}) return true;
  auto cell = c.alloc(idx.dtype, {1}, d);
  if (!cell) return false;
  std::size_t w = dtype_info(idx.dtype).block_bytes;
  std::int64_t zero = 0;
  if (!c.check(launch_copy_strided(idx.data(), static_cast<std::int64_t>(pos), &zero, cell->data(), 0, &zero, dims_of({1}),
                                   static_cast<int>(w), c.stream()),
               "index read", d))
    return false;
  auto v = c.download(*cell, d);
  if (!v) return false;
  std::string val = dtype_info(idx.dtype).is_signed ? std::to_string(v->load_i64(0)) : std::to_string(v->load_u64(0));
  d.error("N0012", "`" + what + "` refused its input: index " + val + " at position " + std::to_string(pos) +
                       " is outside [0, " + std::to_string(bound) + ")");
  return false;
}

bool gather_along(Context& c, const DevTensor& x, const DevTensor& idx, std::size_t axis, DevTensor& y, const std::string& what,
                  DiagnosticSink& d) {
  std::uint64_t outer = 1, inner = 1;
  for (std::size_t i = 0; i < axis; ++i) outer *= x.shape[i];
  for (std::size_t i = axis + 1; i < x.shape.size(); ++i) inner *= x.shape[i];
  if (!check_indices(c, idx, x.shape[axis], what, d)) return false;
  return c.check(launch_gather(x.data(), static_cast<int>(dtype_info(x.dtype).block_bytes), idx.data(), dt(idx.dtype), y.data(),
                               outer, idx.numel(), x.shape[axis], inner, c.stream()),
                 "gather kernel", d) &&
         canonicalize(c, y, y, d);
}

bool gather(Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
  std::string err;
  std::size_t axis = *ops::normalize_axis(a.integer("axis"), in[0].shape.size(), err);
  return gather_along(c, in[0], in[1], axis, out[0], "gather", d);
}

bool gather_elements(Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
  const DevTensor &x = in[0], &idx = in[1];
  if (!rank_ok(c, x.shape, d)) return false;
  std::string err;
  std::size_t axis = *ops::normalize_axis(a.integer("axis"), x.shape.size(), err);
  if (!check_indices(c, idx, x.shape[axis], "gather_elements", d)) return false;
  auto xs = row_major_strides(x.shape);
  return c.check(launch_gather_elements(x.data(), static_cast<int>(dtype_info(x.dtype).block_bytes), xs.data(), idx.data(),
                                        dt(idx.dtype), out[0].data(), dims_of(idx.shape), static_cast<int>(axis), c.stream()),
                 "gather_elements kernel", d) &&
         canonicalize(c, out[0], out[0], d);
}

bool cumsum(Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
  const DevTensor& x = in[0];
  std::string err;
  std::size_t axis = *ops::normalize_axis(a.integer("axis"), x.shape.size(), err);
  std::uint64_t outer = 1, inner = 1;
  for (std::size_t i = 0; i < axis; ++i) outer *= x.shape[i];
  for (std::size_t i = axis + 1; i < x.shape.size(); ++i) inner *= x.shape[i];
  return c.check(launch_cumsum(x.data(), out[0].data(), dt(x.dtype), outer, x.shape[axis], inner, a.boolean("exclusive"),
                               a.boolean("reverse"), c.stream()),
                 "cumsum kernel", d);
}

bool embedding(Context& c, In in, const ops::Attrs&, Out& out, DiagnosticSink& d) {
  return gather_along(c, in[0], in[1], 0, out[0], "embedding", d);
}

bool one_hot(Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
  auto depth = static_cast<std::uint64_t>(a.integer("depth"));
  if (!check_indices(c, in[0], depth, "one_hot", d)) return false;
  int bytes = static_cast<int>(dtype_info(out[0].dtype).block_bytes);
  return c.check(launch_fill(out[0].data(), out[0].numel(), bytes, 0, c.stream()), "fill", d) &&
         c.check(launch_one_hot(in[0].data(), dt(in[0].dtype), out[0].data(), dt(out[0].dtype), in[0].numel(), depth, c.stream()),
                 "one_hot kernel", d);
}

// iota: the coordinate as i64, then the cast's single rounding (exact below 2^53).
bool iota(Context& c, In, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
  if (!rank_ok(c, out[0].shape, d)) return false;
  std::string err;
  std::size_t axis = *ops::normalize_axis(a.integer("axis"), out[0].shape.size(), err);
  auto tmp = c.alloc(DType::i64, out[0].shape, d);
  if (!tmp) return false;
  return c.check(launch_iota(tmp->data(), dims_of(out[0].shape), static_cast<int>(axis), c.stream()), "iota kernel", d) &&
         c.check(launch_cast(tmp->data(), dt(DType::i64), out[0].data(), dt(out[0].dtype), out[0].numel(), c.stream()), "iota cast", d);
}

// The FFN composites as the reference computes them (kernels_ffn.cpp): linear chains with the
// hidden activations held in f32, each step one rounding; f16/bf16 weights of the second
// linear are widened exactly first, and the output rounds once.
std::optional<DevTensor> as_f32(Context& c, const DevTensor& t, DiagnosticSink& d) {
  if (t.dtype == DType::f32) return t;
  auto w = c.alloc(DType::f32, t.shape, d);
  if (!w || !c.check(launch_cast(t.data(), dt(t.dtype), w->data(), dt(DType::f32), t.numel(), c.stream()), "widen", d))
    return std::nullopt;
  return w;
}

// y[rows, N] (dtype of y) = x[rows, K] W[N, K]^T (+ b).
bool linear_rows(Context& c, const DevTensor& x, std::uint64_t rows, const DevTensor& w, const DevTensor* b, DevTensor& y,
                 DiagnosticSink& d) {
  DevTensor x2{x.dtype, {rows, w.shape[1]}, x.buf};
  DevTensor y2{y.dtype, {rows, w.shape[0]}, y.buf};
  return run_matmul(c, x2, w, false, true, b, y2, d);
}

bool ffn(Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d, bool swiglu) {
  std::uint64_t rows = ops::element_count(ops::Extents(in[0].shape.begin(), in[0].shape.end() - 1));
  std::uint64_t hidden = in[1].shape[0];
  auto h = c.alloc(DType::f32, {rows, hidden}, d);
  if (!h) return false;
  if (swiglu) {
    auto g = c.alloc(DType::f32, {rows, hidden}, d), u = c.alloc(DType::f32, {rows, hidden}, d);
    if (!g || !u || !linear_rows(c, in[0], rows, in[1], nullptr, *g, d) || !linear_rows(c, in[0], rows, in[2], nullptr, *u, d))
      return false;
    if (!c.check(launch_unary(Ew::silu, g->data(), dt(DType::f32), g->data(), dt(DType::f32), g->numel(), c.stream()), "silu", d))
      return false;
    Dims hd = dims_of({rows, hidden});
    if (!c.check(launch_binary(Ew::mul, bcast(*g, {rows, hidden}), bcast(*u, {rows, hidden}), h->data(), dt(DType::f32), hd, c.stream()),
                 "mul", d))
      return false;
  } else {
    if (!linear_rows(c, in[0], rows, in[1], in.size() > 3 ? &in[3] : nullptr, *h, d)) return false;
    Ew act = a.string("approximate") == "tanh" ? Ew::gelu_tanh : Ew::gelu;
    if (!c.check(launch_unary(act, h->data(), dt(DType::f32), h->data(), dt(DType::f32), h->numel(), c.stream()), "gelu", d))
      return false;
  }
  const DevTensor& w2 = swiglu ? in[3] : in[2];
  auto w32 = as_f32(c, w2, d);
  if (!w32) return false;
  std::optional<DevTensor> b2;
  if (!swiglu && in.size() > 4) b2 = in[4];
  return linear_rows(c, *h, rows, *w32, b2 ? &*b2 : nullptr, out[0], d);
}

bool ffn_swiglu(Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) { return ffn(c, in, a, out, d, true); }
bool ffn_gelu(Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) { return ffn(c, in, a, out, d, false); }

// mse (kernels_loss.cpp): d = a - b and sq = d * d in f32; none = sq, sum = the canonical sum,
// mean = sum / f32(n); the result rounds once to T.
bool mse(Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
  std::uint64_t n = in[0].numel();
  auto dv = c.alloc(DType::f32, {n}, d);
  if (!dv) return false;
  Dims nd = dims_of({n});
  DevTensor a1{in[0].dtype, {n}, in[0].buf}, b1{in[1].dtype, {n}, in[1].buf};
  if (!c.check(launch_binary(Ew::sub, bcast(a1, {n}), bcast(b1, {n}), dv->data(), dt(DType::f32), nd, c.stream()), "mse sub", d))
    return false;
  const std::string& red = a.string("reduction");
  if (red == "none")
    return c.check(launch_binary(Ew::mul, bcast(*dv, {n}), bcast(*dv, {n}), out[0].data(), dt(out[0].dtype), nd, c.stream()),
                   "mse square", d);
  if (!c.check(launch_binary(Ew::mul, bcast(*dv, {n}), bcast(*dv, {n}), dv->data(), dt(DType::f32), nd, c.stream()), "mse square", d))
    return false;
  ReduceSpec spec;
  spec.red = nd;
  spec.red_stride[0] = 1;
  return c.check(launch_reduce(red == "sum" ? Red::sum : Red::mean, dv->data(), dt(DType::f32), out[0].data(), dt(out[0].dtype),
                               spec, c.stream()),
                 "mse reduction", d);
}

// pad (kernels_shape_layout.cpp): the constant is encoded once in x's dtype on the host (floats:
// one RNE rounding); copies keep bits, then NaNs become canonical as the reference's outputs do.
bool pad(Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
  const DevTensor& x = in[0];
  if (!rank_ok(c, x.shape, d)) return false;
  const auto& pads = a.integers("pads");
  const std::string& mode = a.string("mode");
  PadSpec p;
  p.out = dims_of(out[0].shape);
  for (std::size_t k = 0; k < x.shape.size(); ++k) {
    p.in_ext[k] = x.shape[k];
    p.before[k] = pads[2 * k];
  }
  p.mode = mode == "constant" ? 0 : mode == "edge" ? 1 : 2;
  ops::HostTensor fill(x.dtype, {});
  double v = a.real("value");
  if (dtype_info(x.dtype).is_float) fill.store_f64(0, v);
  else if (x.dtype == DType::boolean) fill.store_bool(0, v != 0.0);
  else fill.store_int(0, v < 0 ? static_cast<std::uint64_t>(static_cast<std::int64_t>(v)) : static_cast<std::uint64_t>(v));
  std::memcpy(&p.fill_bits, fill.bytes().data(), fill.bytes().size());
  int bytes = static_cast<int>(dtype_info(x.dtype).block_bytes);
  return c.check(launch_pad(x.data(), out[0].data(), bytes, p, c.stream()), "pad kernel", d) && canonicalize(c, out[0], out[0], d);
}

// resize (ops/kernels_resize.cpp): the host's tables (ops::resize_axes) uploaded per pass,
// passes highest axis first in f32 (f64 for f64) with the intermediates in that type; the
// last pass rounds to the dtype. nearest copies bits in the dtype.
bool resize(Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
  const DevTensor& x = in[0];
  DevTensor& y = out[0];
  if (y.numel() == 0) return true;
  auto axes = ops::resize_axes(x.shape, y.shape, a);
  auto order = ops::resize_pass_order(axes);
  if (order.empty()) {
    std::int64_t one = 1;
    int bytes = static_cast<int>(dtype_info(x.dtype).block_bytes);
    return c.check(launch_copy_strided(x.data(), 0, &one, y.data(), 0, &one, dims_of({x.numel()}), bytes, c.stream()), "resize copy", d) &&
           canonicalize(c, y, y, d);
  }
  const bool nearest = a.string("mode") == "nearest";
  const DType cdt = x.dtype == DType::f64 ? DType::f64 : DType::f32;
  const double ext = a.real("extrapolation_value");
  std::uint64_t ext_bits = 0;
  if (nearest && dtype_info(x.dtype).is_float) {
    ops::HostTensor e(x.dtype, {});
    e.store_f64(0, ext);
    std::memcpy(&ext_bits, e.bytes().data(), e.bytes().size());
  }
  DevTensor cur = x;
  ops::Extents shape = x.shape;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const ops::ResizeAxis& ax = axes[order[k]];
    std::uint64_t n = ax.out * ax.taps;
    ops::HostTensor index(DType::i64, {n}), weight(cdt, {n}), outside(DType::u8, {ax.out});
    for (std::uint64_t i = 0; i < n; ++i) {
      index.set_raw<std::int64_t>(i, ax.index[i]);
      weight.store_f64(i, ax.weight[i]);  // one RNE rounding, as the reference's static_cast
    }
    for (std::uint64_t o = 0; o < ax.out; ++o) outside.set_raw<std::uint8_t>(o, ax.outside[o]);
    auto di = c.upload(index, d), dw = c.upload(weight, d), doo = c.upload(outside, d);
    if (!di || !dw || !doo) return false;
    ops::Extents next_shape = shape;
    next_shape[order[k]] = ax.out;
    const bool last = k + 1 == order.size();
    std::optional<DevTensor> next;
    if (last) next = y;
    else next = c.alloc(nearest ? x.dtype : cdt, next_shape, d);
    if (!next) return false;
    ResizePass p;
    p.pre = ops::extent_product(shape, 0, order[k]);
    p.in = ax.in;
    p.out = ax.out;
    p.post = ops::extent_product(shape, order[k] + 1, shape.size());
    p.taps = static_cast<int>(ax.taps);
    p.ext = ext;
    const auto* idx = static_cast<const std::int64_t*>(di->data());
    const auto* outs = static_cast<const std::uint8_t*>(doo->data());
    int err = nearest ? launch_resize_nearest(cur.data(), next->data(), static_cast<int>(dtype_info(x.dtype).block_bytes), idx, outs,
                                              ext_bits, p, c.stream())
                      : launch_resize_pass(cur.data(), dt(cur.dtype), next->data(), dt(last ? y.dtype : cdt), idx, dw->data(), outs,
                                           p, c.stream());
    if (!c.check(err, "resize pass", d)) return false;
    cur = *next;
    shape = std::move(next_shape);
  }
  return !nearest || canonicalize(c, y, y, d);
}

// arange (kernels_shape_index.cpp): the shape rule has checked the attributes.
bool arange(Context& c, In, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
  double start = a.real("start"), step = a.real("step");
  DType t = out[0].dtype;
  if (dtype_info(t).is_float)
    return c.check(launch_arange_float(out[0].data(), dt(t), out[0].numel(), start, step, c.stream()), "arange kernel", d);
  return c.check(launch_arange_int(out[0].data(), static_cast<int>(dtype_info(t).block_bytes), out[0].numel(),
                                   static_cast<std::int64_t>(start), static_cast<std::int64_t>(step), c.stream()),
                 "arange kernel", d);
}

// The CSR structure is checked on the host with the reference's validate_csr: indptr and
// indices are downloaded (counted in bytes_down), the values stay on the device. A malformed
// matrix is refused with the reference's N0012 before any launch reads it.
bool csr_valid(Context& c, In in, std::uint64_t K, const std::string& op, DiagnosticSink& d) {
  auto ip = c.download(in[0], d);
  if (!ip) return false;
  auto ix = c.download(in[1], d);
  if (!ix) return false;
  ops::HostTensor no_values(in[2].dtype, {0});  // validate_csr reads only the structure
  std::string err = ops::validate_csr(ops::CsrView{*ip, *ix, no_values}, K);
  if (err.empty()) return true;
  d.error("N0012", "`" + op + "` refused its input: " + err);
  return false;
}

bool csr_to_dense(Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
  auto K = static_cast<std::uint64_t>(a.integer("n_cols"));
  if (!csr_valid(c, in, K, "csr_to_dense", d)) return false;
  int bytes = static_cast<int>(dtype_info(out[0].dtype).block_bytes);
  return c.check(launch_fill(out[0].data(), out[0].numel(), bytes, 0, c.stream()), "fill", d) &&
         c.check(launch_csr_to_dense(in[0].data(), in[1].data(), in[0].dtype == DType::i64, in[2].data(), bytes, out[0].data(),
                                     in[0].numel() - 1, K, c.stream()),
                 "csr_to_dense kernel", d) &&
         canonicalize(c, out[0], out[0], d);
}

DevKernel csr_matmul(std::string op) {
  return [op](Context& c, In in, const ops::Attrs&, Out& out, DiagnosticSink& d) {
    const DevTensor& b = in[3];
    if (!csr_valid(c, in, b.shape[0], op, d)) return false;
    std::uint64_t N = b.shape.size() == 2 ? b.shape[1] : 1;
    return c.check(launch_csr_matmul(in[0].data(), in[1].data(), in[0].dtype == DType::i64, in[2].data(), b.data(), dt(b.dtype),
                                     out[0].data(), in[0].numel() - 1, N, c.stream()),
                   op + " kernel", d);
  };
}

// dequantize (kernels_quant.cpp): the shape rule has checked the blocked last dim.
bool dequantize(Context& c, In in, const ops::Attrs&, Out& out, DiagnosticSink& d) {
  return c.check(launch_dequantize(in[0].data(), in[0].dtype == DType::q8_0, out[0].data(), dt(out[0].dtype), out[0].numel(),
                                   c.stream()),
                 "dequantize kernel", d);
}

const std::map<std::string, DevKernel, std::less<>>& table() {
  static auto* t = new std::map<std::string, DevKernel, std::less<>>{
      {"add", binary(Ew::add)}, {"sub", binary(Ew::sub)}, {"mul", binary(Ew::mul)}, {"div", binary(Ew::div)},
      {"maximum", binary(Ew::maximum)}, {"minimum", binary(Ew::minimum)}, {"pow", binary(Ew::pow)},
      {"remainder", binary(Ew::remainder)},
      {"eq", binary(Ew::eq)}, {"ne", binary(Ew::ne)}, {"lt", binary(Ew::lt)}, {"le", binary(Ew::le)},
      {"gt", binary(Ew::gt)}, {"ge", binary(Ew::ge)}, {"logical_and", binary(Ew::logical_and)},
      {"logical_or", binary(Ew::logical_or)}, {"logical_xor", binary(Ew::logical_xor)},
      {"logical_not", unary(Ew::logical_not)},
      {"neg", unary(Ew::neg)}, {"abs", unary(Ew::abs)}, {"square", unary(Ew::square)}, {"sqrt", unary(Ew::sqrt)},
      {"rsqrt", unary(Ew::rsqrt)}, {"reciprocal", unary(Ew::reciprocal)}, {"relu", unary(Ew::relu)},
      {"exp", unary(Ew::exp)}, {"log", unary(Ew::log)}, {"sin", unary(Ew::sin)}, {"cos", unary(Ew::cos)},
      {"tanh", unary(Ew::tanh)}, {"sigmoid", unary(Ew::sigmoid)}, {"silu", unary(Ew::silu)}, {"erf", unary(Ew::erf)},
      {"floor", unary(Ew::floor)}, {"ceil", unary(Ew::ceil)}, {"round", unary(Ew::round)},
      {"asin", unary(Ew::asin)}, {"acos", unary(Ew::acos)}, {"atan", unary(Ew::atan)}, {"bit_shift", bit_shift},
      {"gelu", gelu}, {"clamp", clamp}, {"where", where}, {"cast", cast},
      {"sum", reduce(Red::sum)}, {"mean", reduce(Red::mean)}, {"prod", reduce(Red::prod)}, {"max", reduce(Red::max)},
      {"min", reduce(Red::min)}, {"argmax", reduce(Red::argmax)}, {"argmin", reduce(Red::argmin)},
      {"variance", reduce(Red::variance)}, {"logsumexp", reduce(Red::logsumexp)}, {"cumsum", cumsum},
      {"softmax", softmax(false)}, {"log_softmax", softmax(true)},
      {"matmul", matmul}, {"linear", linear},
      {"reshape", reshape}, {"broadcast_to", broadcast_to}, {"transpose", transpose}, {"slice", slice},
      {"concat", concat}, {"expand_like", expand_like}, {"zeros_like", fill_with(false)}, {"ones_like", fill_with(true)},
      {"layer_norm", norm(true)}, {"rms_norm", norm(false)},
      {"random_bits", random(0)}, {"random_uniform", random(1)}, {"random_normal", random(2)},
      {"sgd_update", sgd}, {"adam_update", adam}, {"gather", gather}, {"gather_elements", gather_elements}, {"embedding", embedding}, {"one_hot", one_hot},
      {"iota", iota}, {"ffn_swiglu", ffn_swiglu}, {"ffn_gelu", ffn_gelu}, {"mse", mse},
      {"pad", pad}, {"resize", resize}, {"arange", arange}, {"csr_to_dense", csr_to_dense}, {"csr_matmul", csr_matmul("csr_matmul")},
      {"csr_matvec", csr_matmul("csr_matvec")}, {"dequantize", dequantize},
  };
  static const bool merged = (add_nn_dev_kernels(*t), add_conv_dev_kernels(*t), true);
  (void)merged;
  return *t;
}

}  // namespace

const DevKernel* find_dev_kernel(std::string_view op) {
  auto it = table().find(op);
  return it == table().end() ? nullptr : &it->second;
}

std::vector<std::string> dev_kernel_names() {
  std::vector<std::string> v;
  for (const auto& [k, _] : table()) v.push_back(k);
  return v;
}

std::optional<std::vector<DevTensor>> run_dev(Context& ctx, const ops::OpDef& op, std::span<const DevTensor> inputs,
                                              const AttrMap& attrs, DiagnosticSink& diags) {
  const DevKernel* k = find_dev_kernel(op.name);
  if (!k) {
    diags.error("U0004", "the cuda backend has no kernel for `" + op.name + "`")
        .note("`rung ops --missing cuda` lists the ops it lacks; run them on the reference or cpu backend");
    return std::nullopt;
  }
  std::vector<TensorType> types;
  for (const auto& t : inputs) {
    TensorType tt;
    tt.dtype = t.dtype;
    for (auto e : t.shape) tt.shape.push_back(Dim::fixed(e));
    types.push_back(std::move(tt));
  }
  std::vector<std::string> errors;
  auto typed = ops::infer_types(op, types, attrs, errors);
  if (!typed) {
    auto& d = diags.error("N0011", "`" + op.name + "` cannot be applied to these operands");
    for (auto& e : errors) d.note(e);
    d.note("signature: " + op.signature());
    return std::nullopt;
  }
  std::vector<DevTensor> outputs;
  for (const auto& rt : typed->results) {
    ops::Extents ext;
    bool dynamic = false;
    for (const auto& dim : rt.shape) {
      if (!dim.is_static()) {
        dynamic = true;
        break;
      }
      ext.push_back(dim.extent());
    }
    if (dynamic) {  // the kernel counts, then allocates this output (count pass, fill pass)
      if (!dev_kernel_sizes_outputs(op.name)) {
        diags.error("U0004", "`" + op.name + "` has a data-dependent result shape, which the cuda backend does not produce");
        return std::nullopt;
      }
      outputs.push_back(DevTensor{rt.dtype, {0}, nullptr});
      continue;
    }
    auto bytes = ops::HostTensor::checked_bytes(rt.dtype, ext);
    if (!bytes || *bytes > (std::uint64_t{1} << 40)) {
      diags.error("N0013", "`" + op.name + "` would produce " + rt.to_string() + ", which is too large to evaluate");
      return std::nullopt;
    }
    if (op.name == "reshape") {
      outputs.push_back(DevTensor{rt.dtype, std::move(ext), nullptr});
      continue;
    }
    auto t = ctx.alloc(rt.dtype, std::move(ext), diags);
    if (!t) return std::nullopt;
    outputs.push_back(std::move(*t));
  }
  if (!(*k)(ctx, inputs, typed->attrs, outputs, diags)) return std::nullopt;
  for (auto& o : outputs) o.canonical_nans = true;  // every registry kernel stores NaNs canonically
  return outputs;
}

}  // namespace rung::cuda
