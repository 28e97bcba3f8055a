// The device kernel of every op the CUDA backend implements: attribute handling and index
// bookkeeping on the host, the arithmetic in the launchers of device_api.h. The registry's
// shape rule has already produced the output types (run_dev).
#include <algorithm>
#include <map>
#include <numeric>

#include "backends/cuda/cuda_context.h"
#include "backends/cuda/device_api.h"
#include "ops/shape_rules.h"
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

bool clamp(Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
  return c.check(launch_clamp(in[0].data(), dt(in[0].dtype), out[0].data(), in[0].numel(), a.real("min"), a.real("max"), c.stream()),
                 "clamp kernel", d);
}

bool where(Context& c, In in, const ops::Attrs&, Out& out, DiagnosticSink& d) {
  if (!rank_ok(c, out[0].shape, d)) return false;
  int bytes = static_cast<int>(dtype_info(out[0].dtype).block_bytes);
  return c.check(launch_where(bcast(in[0], out[0].shape), bcast(in[1], out[0].shape), bcast(in[2], out[0].shape), out[0].data(),
                              bytes, dims_of(out[0].shape), c.stream()),
                 "where kernel", d);
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
  if (c.tier() == ops::Tier::fast && (A.dtype == DType::f32 || A.dtype == DType::bf16) && !bias)
    return fast_matmul(c, A, B, Y, m, d);
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

bool reshape(Context&, In in, const ops::Attrs&, Out& out, DiagnosticSink&) {
  out[0].buf = in[0].buf;  // values are immutable: the same bytes under a new shape
  return true;
}

// y[c] = x[base + sum c_d * stride_d] for every index c of y.
bool gather_view(Context& c, const DevTensor& x, std::int64_t base, const std::vector<std::int64_t>& stride, DevTensor& y,
                 DiagnosticSink& d) {
  if (!rank_ok(c, y.shape, d)) return false;
  auto ys = row_major_strides(y.shape);
  int bytes = static_cast<int>(dtype_info(x.dtype).block_bytes);
  return c.check(launch_copy_strided(x.data(), base, stride.data(), y.data(), 0, ys.data(), dims_of(y.shape), bytes, c.stream()),
                 "copy kernel", d);
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
  } else {
    perm = *ops::normalize_axes(a.integers("perm"), r, false, err);
  }
  auto xs = row_major_strides(in[0].shape);
  std::vector<std::int64_t> st(r);
  for (std::size_t i = 0; i < r; ++i) st[i] = xs[perm[i]];
  return gather_view(c, in[0], 0, st, out[0], d);
}

bool slice(Context& c, In in, const ops::Attrs& a, Out& out, DiagnosticSink& d) {
  const auto& x = in[0];
  std::size_t r = x.shape.size();
  const auto& starts = a.integers("starts");
  std::vector<std::int64_t> axes_given = a.integers("axes"), steps = a.integers("steps");
  std::vector<std::size_t> axes;
  std::string err;
  if (axes_given.empty()) for (std::size_t i = 0; i < starts.size(); ++i) axes.push_back(i);
  else axes = *ops::normalize_axes(axes_given, r, false, err);
  auto xs = row_major_strides(x.shape);
  std::vector<std::int64_t> st = xs;
  std::int64_t base = 0;
  for (std::size_t k = 0; k < axes.size(); ++k) {
    std::size_t ax = axes[k];
    std::int64_t n = static_cast<std::int64_t>(x.shape[ax]);
    std::int64_t step = steps.empty() ? 1 : steps[k];
    std::int64_t s = starts[k];
    // Python's slice.indices: the start clamps to [0, n] (step > 0) or [-1, n-1] (step < 0).
    if (s < 0) s = std::max<std::int64_t>(s + n, step > 0 ? 0 : -1);
    else s = std::min<std::int64_t>(s, step > 0 ? n : n - 1);
    base += s * xs[ax];
    st[ax] = xs[ax] * step;
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
  return true;
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

const std::map<std::string, DevKernel, std::less<>>& table() {
  static const auto* t = new std::map<std::string, DevKernel, std::less<>>{
      {"add", binary(Ew::add)}, {"sub", binary(Ew::sub)}, {"mul", binary(Ew::mul)}, {"div", binary(Ew::div)},
      {"maximum", binary(Ew::maximum)}, {"minimum", binary(Ew::minimum)}, {"pow", binary(Ew::pow)},
      {"eq", binary(Ew::eq)}, {"ne", binary(Ew::ne)}, {"lt", binary(Ew::lt)}, {"le", binary(Ew::le)},
      {"gt", binary(Ew::gt)}, {"ge", binary(Ew::ge)}, {"logical_and", binary(Ew::logical_and)},
      {"logical_or", binary(Ew::logical_or)}, {"logical_xor", binary(Ew::logical_xor)},
      {"logical_not", unary(Ew::logical_not)},
      {"neg", unary(Ew::neg)}, {"abs", unary(Ew::abs)}, {"square", unary(Ew::square)}, {"sqrt", unary(Ew::sqrt)},
      {"rsqrt", unary(Ew::rsqrt)}, {"reciprocal", unary(Ew::reciprocal)}, {"relu", unary(Ew::relu)},
      {"exp", unary(Ew::exp)}, {"log", unary(Ew::log)}, {"sin", unary(Ew::sin)}, {"cos", unary(Ew::cos)},
      {"tanh", unary(Ew::tanh)}, {"sigmoid", unary(Ew::sigmoid)}, {"silu", unary(Ew::silu)}, {"erf", unary(Ew::erf)},
      {"gelu", gelu}, {"clamp", clamp}, {"where", where}, {"cast", cast},
      {"sum", reduce(Red::sum)}, {"mean", reduce(Red::mean)}, {"prod", reduce(Red::prod)}, {"max", reduce(Red::max)},
      {"min", reduce(Red::min)}, {"argmax", reduce(Red::argmax)}, {"argmin", reduce(Red::argmin)},
      {"variance", reduce(Red::variance)}, {"logsumexp", reduce(Red::logsumexp)},
      {"softmax", softmax(false)}, {"log_softmax", softmax(true)},
      {"matmul", matmul}, {"linear", linear},
      {"reshape", reshape}, {"broadcast_to", broadcast_to}, {"transpose", transpose}, {"slice", slice},
      {"concat", concat}, {"expand_like", expand_like}, {"zeros_like", fill_with(false)}, {"ones_like", fill_with(true)},
  };
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
    for (const auto& dim : rt.shape) {
      if (!dim.is_static()) {
        diags.error("U0004", "`" + op.name + "` has a data-dependent result shape, which the cuda backend does not produce");
        return std::nullopt;
      }
      ext.push_back(dim.extent());
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
  return outputs;
}

}  // namespace rung::cuda
