// Reductions (sum mean prod max min argmax argmin variance logsumexp) and softmax /
// log_softmax. Each output's values are brought into one contiguous buffer (a pointer into
// the input when the reduced axes are trailing, else a gather in the canonical order of
// ops/reduce_layout.h), then reduced with the canonical tree: f32/f64 sums, max and min with
// the SIMD chunk routine (tree.h), products and integers with rung's scalar tree. Outputs are
// spread over threads. A leading-axis f32 sum/max/min (bias gradients) keeps the kept axis
// innermost and vectorises across outputs (simd::column_chunk_f32), same tree per output.
// cumsum runs each line sequentially, as the reference defines it.
#include <algorithm>

#include "backends/cpu/cpu_kernel.h"
#include "backends/cpu/rows.h"
#include "backends/cpu/tree.h"
#include "ops/elementwise_driver.h"
#include "ops/numerics/elementwise.h"
#include "ops/reduce_layout.h"
#include "ops/shape_rules.h"
#include "ops/tensor_walk.h"

namespace rung::cpu {

namespace {

using ops::Extents;
using ops::HostTensor;

template <typename T> constexpr bool kReal = std::is_same_v<T, float> || std::is_same_v<T, double>;
template <typename T> constexpr bool kInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

std::vector<std::size_t> reduced_axes(const ops::KernelContext& c) {
  std::string err;
  const auto& in = c.inputs[0].shape();
  if (c.attrs.has("axis")) return {*ops::normalize_axis(c.attrs.integer("axis"), in.size(), err)};
  auto axes = *ops::normalize_axes(c.attrs.integers("axes"), in.size(), true, err);
  std::sort(axes.begin(), axes.end());
  return axes;
}

// How the n values of each output are found.
struct Plan {
  std::uint64_t outputs = 0, n = 0;
  bool trailing = false;  // output o's values are x[o * n, (o + 1) * n)
  ops::ReduceLayout layout;  // otherwise
};

Plan plan_for(const Extents& in, const std::vector<std::size_t>& axes) {
  Plan p;
  bool trailing = true;
  for (std::size_t i = 0; i < axes.size(); ++i) trailing = trailing && axes[i] == in.size() - axes.size() + i;
  p.n = 1;
  for (auto a : axes) p.n *= in[a];
  p.trailing = trailing;
  if (trailing) {
    p.outputs = 1;
    for (std::size_t d = 0; d < in.size() - axes.size(); ++d) p.outputs *= in[d];
  } else {
    p.layout = ops::reduce_layout(in, axes);
    p.outputs = p.layout.out_base.size();
  }
  return p;
}

// Values of output o as compute type T: a pointer into x, or `buf` filled.
template <typename T> const T* values_of(const HostTensor& x, const Plan& p, std::uint64_t o, std::vector<T>& buf) {
  if (p.trailing) return load_row<T>(x, o * p.n, p.n, buf);
  buf.resize(p.n);
  std::uint64_t base = p.layout.out_base[o];
  for (std::uint64_t i = 0; i < p.n; ++i) buf[i] = ops::load_as<T>(x, base + p.layout.red_offset[i]);
  return buf.data();
}

template <typename T, typename Op> T scalar_tree(const T* v, std::uint64_t n, Op op, T identity) {
  return num::canonical_reduce<T>(n, [&](std::uint64_t i) { return v[i]; }, op, identity);
}

template <typename T> T lowest() {
  if constexpr (kReal<T>) return -std::numeric_limits<T>::infinity();
  else return std::numeric_limits<T>::lowest();
}
template <typename T> T highest() {
  if constexpr (kReal<T>) return std::numeric_limits<T>::infinity();
  else return std::numeric_limits<T>::max();
}

enum class Kind { sum, mean, prod, max, min, argmax, argmin, variance, logsumexp };

template <Kind K, typename T> void reduce_one(HostTensor& y, std::uint64_t o, const T* v, std::uint64_t n, const ops::Attrs& attrs) {
  if constexpr (K == Kind::sum) {
    if constexpr (kReal<T>) ops::store_as<T>(y, o, tree_sum<T>(v, n));
    else ops::store_as<T>(y, o, scalar_tree<T>(v, n, num::Add{}, T(0)));
  } else if constexpr (K == Kind::mean) {
    ops::store_as<T>(y, o, tree_sum<T>(v, n) / static_cast<T>(n));
  } else if constexpr (K == Kind::prod) {
    ops::store_as<T>(y, o, scalar_tree<T>(v, n, num::Mul{}, T(1)));
  } else if constexpr (K == Kind::max || K == Kind::min) {
    constexpr bool kMax = K == Kind::max;
    if constexpr (kReal<T>) ops::store_as<T>(y, o, tree_reduce<T>(kMax ? simd::RedOp::max : simd::RedOp::min, v, n));
    else if constexpr (kMax) ops::store_as<T>(y, o, scalar_tree<T>(v, n, num::Maximum{}, lowest<T>()));
    else ops::store_as<T>(y, o, scalar_tree<T>(v, n, num::Minimum{}, highest<T>()));
  } else if constexpr (K == Kind::argmax || K == Kind::argmin) {
    constexpr bool kMax = K == Kind::argmax;
    std::uint64_t best = 0;
    T bv = v[0];
    for (std::uint64_t i = 1; i < n; ++i) {
      T x = v[i];
      if constexpr (kReal<T>) {
        if (num::is_nan(bv)) break;
        if (num::is_nan(x)) { best = i; break; }
      }
      if (kMax ? x > bv : x < bv) { best = i; bv = x; }
    }
    y.set_raw<std::int64_t>(o, static_cast<std::int64_t>(best));
  } else if constexpr (K == Kind::variance) {
    T mean = tree_sum<T>(v, n) / static_cast<T>(n);
    std::vector<T> sq(n);
    for (std::uint64_t i = 0; i < n; ++i) {
      T d = v[i] - mean;
      sq[i] = d * d;
    }
    std::int64_t div = static_cast<std::int64_t>(n) - attrs.integer("correction");
    ops::store_as<T>(y, o, tree_sum<T>(sq.data(), n) / static_cast<T>(div > 0 ? div : 0));
  } else if constexpr (K == Kind::logsumexp) {
    T m = tree_reduce<T>(simd::RedOp::max, v, n);
    if (num::is_nan(m) || num::is_inf(m)) { ops::store_as<T>(y, o, m); return; }
    std::vector<T> e(n);
    if constexpr (std::is_same_v<T, float>) {
      simd::binary_f32(simd::BinOp::sub, v, false, &m, true, e.data(), n);
      simd::exp_f32(e.data(), e.data(), n);
    } else {  // binary64: rung's exp_f64 element by element
      for (std::uint64_t i = 0; i < n; ++i) e[i] = num::exp_f64(v[i] - m);
    }
    ops::store_as<T>(y, o, m + num::Log{}(tree_sum<T>(e.data(), n)));
  }
}

template <Kind K, typename T> constexpr bool supports() {
  if constexpr (K == Kind::mean || K == Kind::variance) return kReal<T>;
  else if constexpr (K == Kind::logsumexp) return kReal<T>;
  else return kReal<T> || kInt<T>;
}

// Leading-axis reduction with the kept axes innermost: x viewed as [outer, n, inner].
// Returns false when the shape is not of that form.
template <Kind K> bool column_reduce(CpuContext& c, const std::vector<std::size_t>& axes) {
  const HostTensor& x = c.k.inputs[0];
  HostTensor& y = c.k.outputs[0];
  if (x.dtype() != DType::f32 || !(K == Kind::sum || K == Kind::mean || K == Kind::max || K == Kind::min)) return false;
  for (std::size_t i = 1; i < axes.size(); ++i)
    if (axes[i] != axes[i - 1] + 1) return false;
  std::size_t a0 = axes.front(), a1 = axes.back() + 1;
  if (a1 >= x.rank()) return false;
  const Extents& e = x.shape();
  std::uint64_t outer = ops::extent_product(e, 0, a0), n = ops::extent_product(e, a0, a1),
                inner = ops::extent_product(e, a1, e.size());
  if (inner < 16 || n == 0) return false;
  simd::RedOp op = K == Kind::max ? simd::RedOp::max : K == Kind::min ? simd::RedOp::min : simd::RedOp::sum;
  const float* px = reinterpret_cast<const float*>(x.bytes().data());
  float* py = reinterpret_cast<float*>(y.bytes().data());
  constexpr std::uint64_t W = 256;  // outputs per task
  std::uint64_t blocks = (inner + W - 1) / W;
  c.pool.parallel_for(outer * blocks, 1, [&](std::uint64_t t0, std::uint64_t t1) {
    std::vector<float> level, next;
    for (std::uint64_t t = t0; t < t1; ++t) {
      std::uint64_t o = t / blocks, j0 = (t % blocks) * W, w = std::min(W, inner - j0);
      // Level 0 reads x with row stride `inner`; later levels read the chunk results.
      const float* src = px + o * n * inner + j0;
      std::uint64_t stride = inner, m = n;
      do {
        std::uint64_t chunks = (m + num::kReduceChunk - 1) / num::kReduceChunk;
        next.assign(chunks * w, 0.0f);
        for (std::uint64_t ch = 0; ch < chunks; ++ch) {
          std::uint64_t b = ch * num::kReduceChunk;
          simd::column_chunk_f32(op, src + b * stride, stride, std::min<std::uint64_t>(num::kReduceChunk, m - b), w,
                                 next.data() + ch * w);
        }
        level.swap(next);
        src = level.data();
        stride = w;
        m = chunks;
      } while (m > 1);
      for (std::uint64_t j = 0; j < w; ++j)
        py[o * inner + j0 + j] = K == Kind::mean ? level[j] / static_cast<float>(n) : level[j];
    }
  });
  return true;
}

template <Kind K> void reduce_kernel(CpuContext& c) {
  const HostTensor& x = c.k.inputs[0];
  HostTensor& y = c.k.outputs[0];
  std::vector<std::size_t> axes = reduced_axes(c.k);
  if (!axes.empty() && column_reduce<K>(c, axes)) return;
  Plan p = plan_for(x.shape(), axes);
  ops::visit_compute_type(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (supports<K, T>()) {
      c.pool.parallel_for(p.outputs, row_grain(p.n, kElemGrain), [&](std::uint64_t o0, std::uint64_t o1) {
        std::vector<T> buf;
        for (std::uint64_t o = o0; o < o1; ++o) reduce_one<K, T>(y, o, values_of<T>(x, p, o, buf), p.n, c.k.attrs);
      });
    } else {
      RUNG_UNREACHABLE("dtype admitted by the signature but not implemented by the formula");
    }
  });
}

// softmax / log_softmax along one axis: m = tree max, e_i = exp(x_i - m), s = tree sum(e),
// y_i = e_i / s or (x_i - m) - log(s).
template <bool kLog> void softmax_kernel(CpuContext& c) {
  const HostTensor& x = c.k.inputs[0];
  HostTensor& y = c.k.outputs[0];
  std::string err;
  std::size_t axis = *ops::normalize_axis(c.k.attrs.integer("axis"), x.rank(), err);
  Plan p = plan_for(x.shape(), {axis});
  c.pool.parallel_for(p.outputs, row_grain(p.n, kElemGrain / 4), [&](std::uint64_t o0, std::uint64_t o1) {
    std::vector<float> buf, e, out;
    for (std::uint64_t o = o0; o < o1; ++o) {
      const float* v = values_of<float>(x, p, o, buf);
      std::uint64_t n = p.n;
      float m = tree_reduce<float>(simd::RedOp::max, v, n);
      e.resize(n);
      simd::binary_f32(simd::BinOp::sub, v, false, &m, true, e.data(), n);  // x_i - m, then exp
      simd::exp_f32(e.data(), e.data(), n);
      float s = tree_sum<float>(e.data(), n);
      out.resize(n);
      if constexpr (kLog) {
        float ls = num::log_f32(s);
        for (std::uint64_t i = 0; i < n; ++i) out[i] = (v[i] - m) - ls;
      } else {
        simd::binary_f32(simd::BinOp::div, e.data(), false, &s, true, out.data(), n);
      }
      if (p.trailing) {
        for (std::uint64_t i = 0; i < n; ++i) y.store_f32(o * n + i, out[i]);
      } else {
        std::uint64_t base = p.layout.out_base[o];
        for (std::uint64_t i = 0; i < n; ++i) y.store_f32(base + p.layout.red_offset[i], out[i]);
      }
    }
  });
}

// cumsum: the reference's sequential order per line (ops/family_reduce.cpp), lines over
// threads.
void cumsum_kernel(CpuContext& c) {
  const HostTensor& x = c.k.inputs[0];
  HostTensor& y = c.k.outputs[0];
  std::string err;
  std::size_t ax = *ops::normalize_axis(c.k.attrs.integer("axis"), x.rank(), err);
  bool exclusive = c.k.attrs.boolean("exclusive"), reverse = c.k.attrs.boolean("reverse");
  std::uint64_t n = x.shape()[ax], inner = ops::extent_product(x.shape(), ax + 1, x.rank());
  std::uint64_t lines = ops::extent_product(x.shape(), 0, ax) * inner;
  ops::visit_compute_type(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      c.pool.parallel_for(lines, row_grain(n, kElemGrain), [&](std::uint64_t l0, std::uint64_t l1) {
        for (std::uint64_t l = l0; l < l1; ++l) {
          std::uint64_t o = l / inner, q = l % inner;
          T acc{};
          for (std::uint64_t s = 0; s < n; ++s) {
            std::uint64_t at = (o * n + (reverse ? n - 1 - s : s)) * inner + q;
            T v = ops::load_as<T>(x, at);
            if (exclusive) ops::store_as<T>(y, at, acc);
            acc = s == 0 ? v : num::Add{}(acc, v);
            if (!exclusive) ops::store_as<T>(y, at, acc);
          }
        }
      });
    } else {
      RUNG_UNREACHABLE("cumsum admits no bool");
    }
  });
}

}  // namespace

void register_reduce_kernels(ops::OpRegistry& r) {
  add_kernel(r, "sum", reduce_kernel<Kind::sum>, Impl::simd);
  add_kernel(r, "mean", reduce_kernel<Kind::mean>, Impl::simd);
  add_kernel(r, "prod", reduce_kernel<Kind::prod>, Impl::scalar);
  add_kernel(r, "max", reduce_kernel<Kind::max>, Impl::simd);
  add_kernel(r, "min", reduce_kernel<Kind::min>, Impl::simd);
  add_kernel(r, "argmax", reduce_kernel<Kind::argmax>, Impl::scalar);
  add_kernel(r, "argmin", reduce_kernel<Kind::argmin>, Impl::scalar);
  add_kernel(r, "variance", reduce_kernel<Kind::variance>, Impl::simd);
  add_kernel(r, "logsumexp", reduce_kernel<Kind::logsumexp>, Impl::simd);
  add_kernel(r, "cumsum", cumsum_kernel, Impl::scalar);
  add_kernel(r, "softmax", softmax_kernel<false>, Impl::simd);
  add_kernel(r, "log_softmax", softmax_kernel<true>, Impl::simd);
}

}  // namespace rung::cpu
