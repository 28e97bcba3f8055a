// Scaled dot-product attention, the exact-tier composite of SEMANTICS.md §6 (two-pass
// softmax, no online rescaling). For batch b and query i over keys j in [0, Sk):
//   allowed(j) = (!causal || j <= i + Sk - Sq) && (bool mask absent or mask[b, i, j])
//   s_j = dot(q_i, k_j) * scale  [+ mask[b, i, j] for a float mask]     (allowed j only)
//   m = max_j s_j;  e_j = exp(s_j - m), +0 where not allowed;  l = csum_j e_j;  p_j = e_j / l
//   out_i = fma chain over allowed j in increasing order of p_j * v_j, from +0
// dot is matmul's fma chain over D, csum the canonical sum over all Sk positions. Keys and
// values of positions that are not allowed are never read. A query with no allowed key
// gives +0 (a causal row with Sq > Sk, or a mask row of all false).
#include "ops/elementwise_driver.h"
#include "ops/kernels_nn.h"
#include "ops/numerics/dot.h"
#include "ops/numerics/elementwise.h"
#include "ops/numerics/reduce_tree.h"
#include "ops/shape_rules.h"

namespace rung::ops {

namespace {

Shape batch_of(const Shape& s, std::size_t keep) { return Shape(s.begin(), s.end() - static_cast<std::ptrdiff_t>(keep)); }

}  // namespace

ShapeResult rule_attention(const ShapeArgs& a) {
  const Shape &q = a.inputs[0].shape, &k = a.inputs[1].shape, &v = a.inputs[2].shape;
  if (q.size() < 2 || k.size() < 2 || v.size() < 2)
    return ShapeResult::fail("q, k and v need rank >= 2 ([..., S, D]), got " + shape_to_string(q) + ", " +
                             shape_to_string(k) + ", " + shape_to_string(v));
  const Dim &sq = q[q.size() - 2], &d = q.back(), &sk = k[k.size() - 2];
  if (!same_dim(k.back(), d)) return ShapeResult::fail("k's head dim " + k.back().to_string() + " differs from q's " + d.to_string());
  if (!same_dim(v[v.size() - 2], sk))
    return ShapeResult::fail("v has " + v[v.size() - 2].to_string() + " positions, k has " + sk.to_string());
  if (a.attrs.boolean("causal") && (!sq.is_static() || !sk.is_static()) && !same_dim(sq, sk))
    return ShapeResult::fail("a causal mask needs static Sq and Sk or the same symbol (the diagonal offset is Sk - Sq)");
  std::vector<Shape> batches{batch_of(q, 2), batch_of(k, 2), batch_of(v, 2)};
  std::string err;
  auto batch = broadcast_shapes(batches, err);
  if (!batch) return ShapeResult::fail("batch dims: " + err);
  if (a.inputs.size() > 3) {
    Shape scores = *batch;
    scores.push_back(sq);
    scores.push_back(sk);
    std::vector<Shape> both{scores, a.inputs[3].shape};
    auto m = broadcast_shapes(both, err);
    if (!m || *m != scores)
      return ShapeResult::fail("the mask " + shape_to_string(a.inputs[3].shape) + " must broadcast to the scores " +
                               shape_to_string(scores));
  }
  if (!d.is_static() && !a.attrs.has("scale"))
    return ShapeResult::fail("the default scale 1/sqrt(D) needs a static head dim; give `scale`");
  Shape out = *batch;
  out.push_back(sq);
  out.push_back(v.back());
  return ShapeResult::ok({out});
}

void attention_kernel(KernelContext& c) {
  const HostTensor &Q = c.inputs[0], &K = c.inputs[1], &V = c.inputs[2];
  const HostTensor* mask = c.has_input(3) ? &c.inputs[3] : nullptr;
  bool bool_mask = mask && mask->dtype() == DType::boolean;
  HostTensor& Y = c.outputs[0];
  const Extents &eq = Q.shape(), &ek = K.shape(), &ev = V.shape();
  std::uint64_t Sq = eq[eq.size() - 2], D = eq.back(), Sk = ek[ek.size() - 2], Dv = ev.back();
  bool causal = c.attrs.boolean("causal");
  float scale = c.attrs.has("scale") ? static_cast<float>(c.attrs.real("scale"))
                                     : 1.0f / num::sqrt_f32(static_cast<float>(D));
  Extents bq(eq.begin(), eq.end() - 2), bk(ek.begin(), ek.end() - 2), bv(ev.begin(), ev.end() - 2);
  Extents by(Y.shape().begin(), Y.shape().end() - 2);
  // Mask offsets: broadcast the mask against the full scores shape [batch..., Sq, Sk].
  Extents scores = by;
  scores.push_back(Sq);
  scores.push_back(Sk);
  std::vector<std::uint64_t> mstride;
  if (mask) mstride = broadcast_strides(mask->shape(), scores);
  auto mask_at = [&](const std::vector<std::uint64_t>& bidx, std::uint64_t i, std::uint64_t j) {
    std::uint64_t off = 0;
    for (std::size_t d = 0; d < bidx.size(); ++d) off += bidx[d] * mstride[d];
    return off + i * mstride[bidx.size()] + j * mstride[bidx.size() + 1];
  };
  std::vector<float> s(Sk), e(Sk);
  std::vector<char> allowed(Sk);
  std::vector<std::uint64_t> bidx(by.size(), 0);
  for_each_broadcast<3>(by, {&bq, &bk, &bv}, [&](std::uint64_t bi, const std::array<std::uint64_t, 3>& o) {
    std::uint64_t qb = o[0] * Sq * D, kb = o[1] * Sk * D, vb = o[2] * Sk * Dv;
    for (std::uint64_t i = 0; i < Sq; ++i) {
      bool any = false;
      for (std::uint64_t j = 0; j < Sk; ++j) {
        bool ok = !causal || j + Sq <= i + Sk;  // j <= i + Sk - Sq without unsigned underflow
        if (ok && bool_mask) ok = mask->load_bool(mask_at(bidx, i, j));
        allowed[j] = ok;
        if (!ok) continue;
        any = true;
        float dot = num::dot_chain_f32(D, [&](std::uint64_t d) { return Q.load_f32(qb + i * D + d); },
                                       [&](std::uint64_t d) { return K.load_f32(kb + j * D + d); });
        s[j] = dot * scale;
        if (mask && !bool_mask) s[j] = s[j] + mask->load_f32(mask_at(bidx, i, j));
      }
      std::uint64_t yrow = (bi * Sq + i) * Dv;
      if (!any) continue;  // outputs stay +0
      float m = num::canonical_reduce<float>(
          Sk, [&](std::uint64_t j) { return allowed[j] ? s[j] : -num::inf_f32(); }, num::Maximum{}, -num::inf_f32());
      for (std::uint64_t j = 0; j < Sk; ++j) e[j] = allowed[j] ? num::exp_f32(s[j] - m) : 0.0f;
      float l = num::canonical_sum<float>(Sk, [&](std::uint64_t j) { return e[j]; });
      for (std::uint64_t d = 0; d < Dv; ++d) {
        float acc = 0.0f;
        for (std::uint64_t j = 0; j < Sk; ++j)
          if (allowed[j]) acc = num::fma_f32(e[j] / l, V.load_f32(vb + j * Dv + d), acc);
        Y.store_f32(yrow + d, acc);
      }
    }
    for (std::size_t d = by.size(); d-- > 0;) {  // advance the batch multi-index (for the mask)
      if (++bidx[d] < by[d]) break;
      bidx[d] = 0;
    }
  });
}

}  // namespace rung::ops
