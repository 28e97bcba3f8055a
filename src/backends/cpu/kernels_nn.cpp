// NN composites, each the reference's fixed sequence of canonical steps:
//   layer_norm, rms_norm  groups over threads; sums on the SIMD canonical tree
//   ffn_swiglu, ffn_gelu  the linear parts on the exact GEMM (same fma chains), activations
//                         with rung's scalar formulas, hidden values kept in f32
//   rope                  angle table once, rows over threads (scalar)
//   attention             query rows over threads; scores and the p*v chains scalar (the
//                         chain skips masked keys, which a GEMM cannot); softmax on the tree
//   embedding             row copies; cross_entropy, mse rows over threads, tree sums.
#include <algorithm>

#include "backends/cpu/cpu_kernel.h"
#include "backends/cpu/gemm.h"
#include "backends/cpu/rows.h"
#include "backends/cpu/tree.h"
#include "ops/elementwise_driver.h"
#include "ops/numerics/dot.h"
#include "ops/shape_rules.h"
#include "ops/tensor_walk.h"

namespace rung::cpu {

void gather_rows_cpu(CpuContext& c, const ops::HostTensor& x, const ops::HostTensor& idx, std::size_t axis,
                     ops::HostTensor& out);

namespace {

using ops::Extents;
using ops::HostTensor;

const float* as_f32(const HostTensor& t, std::vector<float>& buf) { return load_row<float>(t, 0, t.numel(), buf); }

template <bool kLayer> void norm_kernel(CpuContext& c) {
  const HostTensor& x = c.k.inputs[0];
  HostTensor& y = c.k.outputs[0];
  std::string err;
  std::size_t ax = *ops::normalize_axis(c.k.attrs.integer("axis"), x.rank(), err);
  std::uint64_t count = ops::extent_product(x.shape(), 0, ax), n = ops::extent_product(x.shape(), ax, x.rank());
  float eps = static_cast<float>(c.k.attrs.real("eps")), nf = static_cast<float>(n);
  std::vector<float> bg, bb;
  const float* gamma = c.k.has_input(1) ? as_f32(c.k.inputs[1], bg) : nullptr;
  const float* beta = kLayer && c.k.has_input(2) ? as_f32(c.k.inputs[2], bb) : nullptr;
  c.pool.parallel_for(count, row_grain(n, kElemGrain / 4), [&](std::uint64_t g0, std::uint64_t g1) {
    std::vector<float> bx, sq, out;
    for (std::uint64_t g = g0; g < g1; ++g) {
      const float* v = load_row<float>(x, g * n, n, bx);
      sq.resize(n);
      out.resize(n);
      float* py = out_row<float>(y, g * n, n, out);
      if constexpr (kLayer) {
        float mean = tree_sum<float>(v, n) / nf;
        for (std::uint64_t i = 0; i < n; ++i) {
          float d = v[i] - mean;
          sq[i] = d * d;
        }
        float r = 1.0f / num::sqrt_f32(tree_sum<float>(sq.data(), n) / nf + eps);
        for (std::uint64_t i = 0; i < n; ++i) {
          float t = (v[i] - mean) * r;
          if (gamma) t = t * gamma[i];
          if (beta) t = t + beta[i];
          py[i] = t;
        }
      } else {
        for (std::uint64_t i = 0; i < n; ++i) sq[i] = v[i] * v[i];
        float r = 1.0f / num::sqrt_f32(tree_sum<float>(sq.data(), n) / nf + eps);
        for (std::uint64_t i = 0; i < n; ++i) {
          float t = v[i] * r;
          if (gamma) t = t * gamma[i];
          py[i] = t;
        }
      }
      store_row<float>(y, g * n, n, py);
    }
  });
}

void rope_kernel(CpuContext& c) {
  const HostTensor& x = c.k.inputs[0];
  HostTensor& y = c.k.outputs[0];
  std::uint64_t D = x.shape().back(), S = x.shape()[x.rank() - 2], half = D / 2;
  std::uint64_t rows = D == 0 ? 0 : x.numel() / D;
  bool interleaved = c.k.attrs.string("layout") == "interleaved";
  float base = static_cast<float>(c.k.attrs.real("base")), df = static_cast<float>(D);
  std::vector<float> cs(S * half), sn(S * half);
  c.pool.parallel_for(S, 1, [&](std::uint64_t s0, std::uint64_t s1) {
    for (std::uint64_t s = s0; s < s1; ++s) {
      float pos = static_cast<float>(s);
      if (c.k.has_input(1)) {
        const HostTensor& P = c.k.inputs[1];
        pos = P.dtype() == DType::u64 ? static_cast<float>(P.load_u64(s)) : static_cast<float>(P.load_i64(s));
      }
      for (std::uint64_t p = 0; p < half; ++p) {
        float inv = num::pow_f32(base, -(static_cast<float>(2 * p) / df));
        float theta = pos * inv;
        cs[s * half + p] = num::cos_f32(theta);
        sn[s * half + p] = num::sin_f32(theta);
      }
    }
  });
  c.pool.parallel_for(rows, row_grain(D, kElemGrain), [&](std::uint64_t r0, std::uint64_t r1) {
    std::vector<float> bx, by;
    for (std::uint64_t r = r0; r < r1; ++r) {
      std::uint64_t s = r % S, row = r * D;
      const float* v = load_row<float>(x, row, D, bx);
      float* py = out_row<float>(y, row, D, by);
      for (std::uint64_t p = 0; p < half; ++p) {
        std::uint64_t ia = interleaved ? 2 * p : p, ib = interleaved ? 2 * p + 1 : p + half;
        float a = v[ia], b = v[ib], cv = cs[s * half + p], sv = sn[s * half + p];
        py[ia] = a * cv - b * sv;
        py[ib] = a * sv + b * cv;
      }
      store_row<float>(y, row, D, py);
    }
  });
}

void attention_kernel(CpuContext& c) {
  const HostTensor &Q = c.k.inputs[0], &K = c.k.inputs[1], &V = c.k.inputs[2];
  const HostTensor* mask = c.k.has_input(3) ? &c.k.inputs[3] : nullptr;
  bool bool_mask = mask && mask->dtype() == DType::boolean;
  HostTensor& Y = c.k.outputs[0];
  const Extents &eq = Q.shape(), &ek = K.shape(), &ev = V.shape();
  std::uint64_t Sq = eq[eq.size() - 2], D = eq.back(), Sk = ek[ek.size() - 2], Dv = ev.back();
  bool causal = c.k.attrs.boolean("causal");
  float scale = c.k.attrs.has("scale") ? static_cast<float>(c.k.attrs.real("scale"))
                                       : 1.0f / num::sqrt_f32(static_cast<float>(D));
  std::vector<float> bq, bk, bv, bm;
  const float *q = as_f32(Q, bq), *k = as_f32(K, bk), *v = as_f32(V, bv);
  const float* mf = mask && !bool_mask ? as_f32(*mask, bm) : nullptr;
  Extents bqx(eq.begin(), eq.end() - 2), bkx(ek.begin(), ek.end() - 2), bvx(ev.begin(), ev.end() - 2);
  Extents by(Y.shape().begin(), Y.shape().end() - 2);
  Extents scores = by;
  scores.push_back(Sq);
  scores.push_back(Sk);
  std::vector<std::uint64_t> mstride;
  if (mask) mstride = ops::broadcast_strides(mask->shape(), scores);
  // Operand offsets per batch index (as the reference's broadcast walk gives them).
  std::vector<std::array<std::uint64_t, 3>> boff;
  ops::for_each_broadcast<3>(by, {&bqx, &bkx, &bvx},
                             [&](std::uint64_t, const std::array<std::uint64_t, 3>& o) { boff.push_back(o); });
  std::uint64_t nb = boff.size();
  std::vector<float> yout(nb * Sq * Dv, 0.0f);
  c.pool.parallel_for(nb * Sq, 1, [&](std::uint64_t t0, std::uint64_t t1) {
    std::vector<float> s(Sk), e(Sk);
    std::vector<char> allowed(Sk);
    for (std::uint64_t t = t0; t < t1; ++t) {
      std::uint64_t bi = t / Sq, i = t % Sq;
      std::uint64_t qb = boff[bi][0] * Sq * D, kb = boff[bi][1] * Sk * D, vb = boff[bi][2] * Sk * Dv;
      std::uint64_t moff = 0;
      if (mask) {
        std::uint64_t rem = bi;
        for (std::size_t d = by.size(); d-- > 0;) {
          moff += (rem % by[d]) * mstride[d];
          rem /= by[d];
        }
        moff += i * mstride[by.size()];
      }
      bool any = false;
      for (std::uint64_t j = 0; j < Sk; ++j) {
        bool ok = !causal || j + Sq <= i + Sk;
        std::uint64_t mo = mask ? moff + j * mstride[by.size() + 1] : 0;
        if (ok && bool_mask) ok = mask->bytes()[mo] != 0;
        allowed[j] = ok;
        if (!ok) continue;
        any = true;
        const float* qr = q + qb + i * D;
        const float* kr = k + kb + j * D;
        float dot = 0.0f;
        for (std::uint64_t d = 0; d < D; ++d) dot = num::fma_f32(qr[d], kr[d], dot);
        s[j] = dot * scale;
        if (mf) s[j] = s[j] + mf[mo];
      }
      if (!any) continue;
      for (std::uint64_t j = 0; j < Sk; ++j) e[j] = allowed[j] ? s[j] : -num::inf_f32();
      float m = tree_reduce<float>(simd::RedOp::max, e.data(), Sk);
      for (std::uint64_t j = 0; j < Sk; ++j) e[j] = allowed[j] ? num::exp_f32(s[j] - m) : 0.0f;
      float l = tree_sum<float>(e.data(), Sk);
      float* yr = yout.data() + t * Dv;
      for (std::uint64_t j = 0; j < Sk; ++j) {
        if (!allowed[j]) continue;
        float p = e[j] / l;
        const float* vr = v + vb + j * Dv;
        for (std::uint64_t d = 0; d < Dv; ++d) yr[d] = num::fma_f32(p, vr[d], yr[d]);
      }
    }
  });
  for (std::uint64_t i = 0; i < yout.size(); ++i) Y.store_f32(i, yout[i]);
}

// C[rows, N] = X[rows, K] W[N, K]^T on the exact GEMM (f32).
std::vector<float> linear_f32(CpuContext& c, const float* x, std::uint64_t rows, std::uint64_t K, const float* w,
                              std::uint64_t N) {
  std::vector<float> out(rows * N);
  GemmArgs<float> g;
  g.M = rows, g.N = N, g.K = K;
  g.a = x, g.a_rs = K, g.a_ks = 1;
  g.b = w, g.b_ks = 1, g.b_cs = K;
  g.c = out.data(), g.ldc = N;
  gemm_batch(c.pool, {g});
  return out;
}

void ffn_swiglu_kernel(CpuContext& c) {
  const HostTensor &X = c.k.inputs[0], &Wg = c.k.inputs[1], &Wu = c.k.inputs[2], &Wd = c.k.inputs[3];
  HostTensor& Y = c.k.outputs[0];
  std::uint64_t D = Wg.shape()[1], H = Wg.shape()[0], O = Wd.shape()[0];
  std::uint64_t rows = ops::element_count(Extents(X.shape().begin(), X.shape().end() - 1));
  std::vector<float> bx, bg, bu, bd;
  const float* x = as_f32(X, bx);
  auto G = linear_f32(c, x, rows, D, as_f32(Wg, bg), H);
  auto U = linear_f32(c, x, rows, D, as_f32(Wu, bu), H);
  c.pool.parallel_for(G.size(), kElemGrain, [&](std::uint64_t i0, std::uint64_t i1) {
    for (std::uint64_t i = i0; i < i1; ++i) G[i] = num::silu_f32(G[i]) * U[i];
  });
  auto out = linear_f32(c, G.data(), rows, H, as_f32(Wd, bd), O);
  for (std::uint64_t i = 0; i < out.size(); ++i) Y.store_f32(i, out[i]);
}

void ffn_gelu_kernel(CpuContext& c) {
  const HostTensor &X = c.k.inputs[0], &W1 = c.k.inputs[1], &W2 = c.k.inputs[2];
  HostTensor& Y = c.k.outputs[0];
  std::uint64_t D = W1.shape()[1], H = W1.shape()[0], O = W2.shape()[0];
  std::uint64_t rows = ops::element_count(Extents(X.shape().begin(), X.shape().end() - 1));
  bool tanh_form = c.k.attrs.string("approximate") == "tanh";
  std::vector<float> bx, b1, b2, bb1, bb2;
  const float* bias1 = c.k.has_input(3) ? as_f32(c.k.inputs[3], bb1) : nullptr;
  const float* bias2 = c.k.has_input(4) ? as_f32(c.k.inputs[4], bb2) : nullptr;
  auto h = linear_f32(c, as_f32(X, bx), rows, D, as_f32(W1, b1), H);
  c.pool.parallel_for(h.size(), kElemGrain, [&](std::uint64_t i0, std::uint64_t i1) {
    for (std::uint64_t i = i0; i < i1; ++i) {
      float t = h[i];
      if (bias1) t = t + bias1[i % H];
      h[i] = tanh_form ? num::gelu_tanh_f32(t) : num::gelu_erf_f32(t);
    }
  });
  auto out = linear_f32(c, h.data(), rows, H, as_f32(W2, b2), O);
  for (std::uint64_t i = 0; i < out.size(); ++i) Y.store_f32(i, bias2 ? out[i] + bias2[i % O] : out[i]);
}

void embedding_kernel(CpuContext& c) { gather_rows_cpu(c, c.k.inputs[0], c.k.inputs[1], 0, c.k.outputs[0]); }

void store_reduced(HostTensor& y, const std::string& reduction, const std::vector<float>& losses, std::uint64_t count) {
  if (reduction == "none") {
    for (std::uint64_t i = 0; i < losses.size(); ++i) y.store_f32(i, losses[i]);
    return;
  }
  float s = tree_sum<float>(losses.data(), losses.size());
  y.store_f32(0, reduction == "sum" ? s : s / static_cast<float>(count));
}

void cross_entropy_kernel(CpuContext& c) {
  const HostTensor &X = c.k.inputs[0], &T = c.k.inputs[1];
  std::uint64_t C = X.shape().back(), rows = T.numel();
  bool has_ignore = c.k.attrs.has("ignore_index");
  std::int64_t ignore = has_ignore ? c.k.attrs.integer("ignore_index") : 0;
  bool is_signed = dtype_info(T.dtype()).is_signed;
  auto ignored = [&](std::uint64_t r) {
    return has_ignore && (is_signed ? T.load_i64(r) == ignore
                                    : ignore >= 0 && T.load_u64(r) == static_cast<std::uint64_t>(ignore));
  };
  // Targets are checked first, in row order, so the first bad one is the one reported.
  std::uint64_t count = 0;
  for (std::uint64_t r = 0; r < rows; ++r) {
    if (ignored(r)) continue;
    std::string err;
    if (!ops::checked_index(T, r, C, "target", err)) return c.k.fail(err + " (classes: " + std::to_string(C) + ")");
    ++count;
  }
  std::vector<float> loss(rows, 0.0f);
  c.pool.parallel_for(rows, row_grain(C, kElemGrain / 4), [&](std::uint64_t r0, std::uint64_t r1) {
    std::vector<float> bx, e;
    for (std::uint64_t r = r0; r < r1; ++r) {
      if (ignored(r)) continue;
      std::uint64_t t = *ops::load_index(T, r);
      const float* v = load_row<float>(X, r * C, C, bx);
      float m = tree_reduce<float>(simd::RedOp::max, v, C);
      e.resize(C);
      simd::binary_f32(simd::BinOp::sub, v, false, &m, true, e.data(), C);
      simd::exp_f32(e.data(), e.data(), C);
      float s = tree_sum<float>(e.data(), C);
      loss[r] = num::Neg{}((v[t] - m) - num::log_f32(s));
    }
  });
  store_reduced(c.k.outputs[0], c.k.attrs.string("reduction"), loss, count);
}

void mse_kernel(CpuContext& c) {
  const HostTensor &A = c.k.inputs[0], &B = c.k.inputs[1];
  std::vector<float> sq(A.numel());
  c.pool.parallel_for(sq.size(), kElemGrain, [&](std::uint64_t i0, std::uint64_t i1) {
    std::vector<float> ba, bb;
    const float* a = load_row<float>(A, i0, i1 - i0, ba);
    const float* b = load_row<float>(B, i0, i1 - i0, bb);
    simd::binary_f32(simd::BinOp::sub, a, false, b, false, sq.data() + i0, i1 - i0);
    simd::unary_f32(simd::UnOp::square, sq.data() + i0, sq.data() + i0, i1 - i0);
  });
  store_reduced(c.k.outputs[0], c.k.attrs.string("reduction"), sq, sq.size());
}

}  // namespace

void register_nn_kernels(ops::OpRegistry& r) {
  add_kernel(r, "layer_norm", norm_kernel<true>, Impl::simd);
  add_kernel(r, "rms_norm", norm_kernel<false>, Impl::simd);
  add_kernel(r, "rope", rope_kernel, Impl::scalar);
  add_kernel(r, "attention", attention_kernel, Impl::scalar);
  add_kernel(r, "ffn_swiglu", ffn_swiglu_kernel, Impl::simd);
  add_kernel(r, "ffn_gelu", ffn_gelu_kernel, Impl::simd);
  add_kernel(r, "embedding", embedding_kernel, Impl::scalar);
  add_kernel(r, "cross_entropy", cross_entropy_kernel, Impl::simd);
  add_kernel(r, "mse", mse_kernel, Impl::simd);
}

}  // namespace rung::cpu
