// One pre-norm transformer block, forward and backward, written once as a sequence of rung
// registry ops and run by any executor (the reference on host tensors, the CUDA backend on
// device tensors), so the two results can be compared bit for bit.
//   h1 = rmsnorm(x) g1; qkv = h1 Wqkv (fused); causal softmax attention over H heads (the
//   `attention` op); x2 = x + o Wo; h2 = rmsnorm(x2) g2; y = x2 + (silu(h2 Wg) * (h2 Wu)) Wd
// Backward from a given dy by the chain rule, every step a registry op; the attention
// probabilities are recomputed there from q and k by matmul, mul, add (mask) and softmax
// (or, with attention_op off, the forward composes attention and keeps them).
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "ir/graph/attr.h"

namespace rung::bench {

struct BlockDims {
  std::uint64_t B, T, D, H, F;
  // Forward attention by the `attention` op (p recomputed in the backward), or composed
  // (matmul, mul, add mask, softmax, matmul; p kept for the backward).
  bool attention_op = true;
};

// Names of the inputs, in order, and of the outputs.
inline std::vector<std::string> block_input_names() {
  return {"x", "dy", "g1", "wqkv", "wo", "g2", "wg", "wu", "wd", "eps", "scale", "mask"};
}
inline std::vector<std::string> block_output_names() {
  return {"y", "dx", "dg1", "dwqkv", "dwo", "dg2", "dwg", "dwu", "dwd"};
}

// run(op, inputs, attrs) -> the op's first result.
template <typename V, typename Run>
std::vector<V> transformer_block(Run& run, const BlockDims& d, const std::vector<V>& in) {
  using I = std::vector<std::int64_t>;
  auto shape = [](std::initializer_list<std::uint64_t> l) {
    Shape s;
    for (auto e : l) s.push_back(Dim::fixed(e));
    return s;
  };
  const V &x = in[0], &dy = in[1], &g1 = in[2], &wqkv = in[3], &wo = in[4], &g2 = in[5], &wg = in[6], &wu = in[7],
          &wd = in[8], &eps = in[9], &scale = in[10], &mask = in[11];
  const std::uint64_t B = d.B, T = d.T, D = d.D, H = d.H, hd = d.D / d.H, F = d.F, BT = B * T;
  auto mm = [&](const V& a, const V& b, bool ta = false, bool tb = false) {
    return run("matmul", {a, b}, AttrMap{{"transpose_a", ta}, {"transpose_b", tb}});
  };
  auto rs = [&](const V& a, Shape s) { return run("reshape", {a}, AttrMap{{"shape", s}}); };
  auto tr = [&](const V& a, I perm) { return run("transpose", {a}, AttrMap{{"perm", perm}}); };
  auto bin = [&](const char* op, const V& a, const V& b) { return run(op, {a, b}, AttrMap{}); };
  auto un = [&](const char* op, const V& a) { return run(op, {a}, AttrMap{}); };
  // rmsnorm: n = x * rsqrt(mean(x*x) + eps); h = n * g. Returns {h, n, r}.
  auto rms = [&](const V& v, const V& g) {
    V ms = run("mean", {bin("mul", v, v)}, AttrMap{{"axes", I{-1}}, {"keepdims", true}});
    V r = un("rsqrt", bin("add", ms, eps));
    V n = bin("mul", v, r);
    return std::vector<V>{bin("mul", n, g), n, r};
  };
  // Backward of rmsnorm: dg = sum(dh * n); dn = dh * g; dx = r * (dn - n * mean(dn * n)).
  auto rms_back = [&](const V& dh, const V& n, const V& r, const V& g, V& dg) {
    dg = run("sum", {bin("mul", dh, n)}, AttrMap{{"axes", I{0, 1}}});
    V dn = bin("mul", dh, g);
    V m = run("mean", {bin("mul", dn, n)}, AttrMap{{"axes", I{-1}}, {"keepdims", true}});
    return bin("mul", r, bin("sub", dn, bin("mul", n, m)));
  };
  auto flat = [&](const V& v, std::uint64_t cols) { return rs(v, shape({BT, cols})); };

  // Forward.
  auto n1 = rms(x, g1);
  V qkv = mm(n1[0], wqkv);                                                       // [B, T, 3D]
  V qkvt = tr(rs(qkv, shape({B, T, 3, H, hd})), I{2, 0, 3, 1, 4});               // [3, B, H, T, hd]
  auto part = [&](std::int64_t i) {
    V s = run("slice", {qkvt}, AttrMap{{"starts", I{i}}, {"ends", I{i + 1}}, {"axes", I{0}}});
    return rs(s, shape({B, H, T, hd}));
  };
  V q = part(0), k = part(1), v = part(2);
  // p = softmax(q k^T * scale + mask), the same bits as inside the attention op.
  auto probs = [&] {
    V sc = bin("add", bin("mul", mm(q, k, false, true), scale), mask);          // [B, H, T, T]
    return run("softmax", {sc}, AttrMap{{"axis", std::int64_t{-1}}});
  };
  V p, oh;
  if (d.attention_op) {
    oh = run("attention", {q, k, v}, AttrMap{{"causal", true}});                // [B, H, T, hd], scale 1/sqrt(hd)
  } else {
    p = probs();
    oh = mm(p, v);
  }
  V o = rs(tr(oh, I{0, 2, 1, 3}), shape({B, T, D}));
  V x2 = bin("add", x, mm(o, wo));
  auto n2 = rms(x2, g2);
  V gt = mm(n2[0], wg), up = mm(n2[0], wu);
  V sg = un("silu", gt);
  V act = bin("mul", sg, up);
  V y = bin("add", x2, mm(act, wd));

  // Backward.
  V dwd = mm(flat(act, F), flat(dy, D), true, false);
  V dact = mm(dy, wd, false, true);
  V dsg = bin("mul", dact, up), dup = bin("mul", dact, sg);
  V sig = un("sigmoid", gt);
  V one = run("ones_like", {sig}, AttrMap{});
  V dsilu = bin("mul", sig, bin("add", one, bin("mul", gt, bin("sub", one, sig))));  // silu'(z)
  V dgt = bin("mul", dsg, dsilu);
  V dwg = mm(flat(n2[0], D), flat(dgt, F), true, false), dwu = mm(flat(n2[0], D), flat(dup, F), true, false);
  V dh2 = bin("add", mm(dgt, wg, false, true), mm(dup, wu, false, true));
  V dg2;
  V dx2 = bin("add", dy, rms_back(dh2, n2[1], n2[2], g2, dg2));
  V dwo = mm(flat(o, D), flat(dx2, D), true, false);
  V dot = tr(rs(mm(dx2, wo, false, true), shape({B, T, H, hd})), I{0, 2, 1, 3});  // [B, H, T, hd]
  // The attention op keeps p to itself: recompute it from the same q, k (the composed form).
  if (d.attention_op) p = probs();
  V dp = mm(dot, v, false, true), dv = mm(p, dot, true, false);
  // sum_j p_j dp_j = dO . sum_j p_j v_j = dO . o: a [B, H, T, hd] product instead of [B, H, T, T].
  V rowdot = run("sum", {bin("mul", dot, oh)}, AttrMap{{"axes", I{-1}}, {"keepdims", true}});
  // The scale goes on the [B, H, T, hd] products, not on the [B, H, T, T] ds.
  V ds = bin("mul", p, bin("sub", dp, rowdot));
  V dq = bin("mul", mm(ds, k), scale), dk = bin("mul", mm(ds, q, true, false), scale);
  auto lift = [&](const V& t) { return rs(t, shape({1, B, H, T, hd})); };
  V dqkvt = run("concat", {lift(dq), lift(dk), lift(dv)}, AttrMap{{"axis", std::int64_t{0}}});
  V dqkv = rs(tr(dqkvt, I{1, 3, 0, 2, 4}), shape({B, T, 3 * D}));
  V dwqkv = mm(flat(n1[0], D), flat(dqkv, 3 * D), true, false);
  V dh1 = mm(dqkv, wqkv, false, true);
  V dg1;
  V dx = bin("add", dx2, rms_back(dh1, n1[1], n1[2], g1, dg1));
  return {y, dx, dg1, dwqkv, dwo, dg2, dwg, dwu, dwd};
}

}  // namespace rung::bench
