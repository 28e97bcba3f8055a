// NN composites (ids 600-699): normalisations, rotary embedding, attention, feed-forward
// blocks, embedding lookup and losses. Each is a fixed sequence of canonical steps (see
// kernels_nn.h and docs/semantics.md, "NN composites"), so it is exact in tier debug.
#include "ops/kernels_nn.h"
#include "ops/registry.h"

namespace rung::ops {

void register_family_nn(OpRegistry& r) {
  using TC = TolClass;
  r.add(OpDef("layer_norm", 600)
            .doc("(x - mean) / sqrt(var + eps) * gamma + beta over the axes from `axis` on (two passes)")
            .type_var("T", kFloat32Like)
            .input("x", "T").input("gamma", "T", Arity::optional).input("beta", "T", Arity::optional).output("y", "T")
            .attr("axis", std::int64_t{-1}, "first normalised axis; normalises axis..rank-1")
            .attr("eps", 1e-5, "added to the variance (rounded to f32)")
            .shape(rule_norm).kernel(layer_norm_kernel)
            .tolerance_classes(TC::exact, TC::tight, TC::default_));
  r.add(OpDef("rms_norm", 601)
            .doc("x / sqrt(mean(x^2) + eps) * gamma over the axes from `axis` on")
            .type_var("T", kFloat32Like)
            .input("x", "T").input("gamma", "T", Arity::optional).output("y", "T")
            .attr("axis", std::int64_t{-1}, "first normalised axis; normalises axis..rank-1")
            .attr("eps", 1e-6, "added to the mean square (rounded to f32)")
            .shape(rule_norm).kernel(rms_norm_kernel)
            .tolerance_classes(TC::exact, TC::tight, TC::default_));
  r.add(OpDef("rope", 602)
            .doc("rotary position embedding on x [..., S, D]: pairs rotated by pos * base^(-2p/D)")
            .type_var("T", kFloat32Like).type_var("I", kInt)
            .input("x", "T").input("positions", "I", Arity::optional).output("y", "T")
            .attr("base", 10000.0, "frequency base (theta)")
            .choice_attr("layout", {"half", "interleaved"}, "half",
                         "pairs (x[p], x[p + D/2]) (half, GPT-NeoX) or (x[2p], x[2p+1]) (interleaved, GPT-J)")
            .shape(rule_rope).kernel(rope_kernel)
            .tolerance_classes(TC::exact, TC::tight, TC::default_));
  r.add(OpDef("attention", 603)
            .doc("softmax(q k^T * scale + mask) v with a two-pass softmax; causal by default; bool or additive mask")
            .type_var("T", kFloat32Like).type_var("M", kBool | kFloat32Like)
            .input("q", "T").input("k", "T").input("v", "T").input("mask", "M", Arity::optional).output("y", "T")
            .attr("causal", true, "query i sees keys j <= i + Sk - Sq")
            .optional_attr("scale", AttrKind::real, "score scale; default 1/sqrt(D)")
            .shape(rule_attention).kernel(attention_kernel)
            .tolerance_classes(TC::exact, TC::default_, TC::loose));
  r.add(OpDef("ffn_swiglu", 604)
            .doc("(silu(x Wg^T) * (x Wu^T)) Wd^T; weights [out, in]")
            .type_var("T", kFloat32Like)
            .input("x", "T").input("w_gate", "T").input("w_up", "T").input("w_down", "T").output("y", "T")
            .shape(rule_ffn_swiglu).kernel(ffn_swiglu_kernel)
            .tolerance_classes(TC::exact, TC::default_, TC::loose));
  r.add(OpDef("ffn_gelu", 605)
            .doc("gelu(x W1^T + b1) W2^T + b2; weights [out, in]")
            .type_var("T", kFloat32Like)
            .input("x", "T").input("w1", "T").input("w2", "T").input("b1", "T", Arity::optional)
            .input("b2", "T", Arity::optional).output("y", "T")
            .choice_attr("approximate", {"none", "tanh"}, "none", "gelu form: erf (none) or tanh")
            .shape(rule_ffn_gelu).kernel(ffn_gelu_kernel)
            .tolerance_classes(TC::exact, TC::default_, TC::loose));
  r.add(OpDef("embedding", 606)
            .doc("rows of table [V, D] picked by ids: y = table[ids] of shape ids.shape + [D]; ids checked")
            .type_var("T", kPlain).type_var("I", kInt)
            .input("table", "T").input("ids", "I").output("y", "T")
            .shape(rule_embedding).kernel(embedding_kernel));
  r.add(OpDef("cross_entropy", 607)
            .doc("-log_softmax(logits)[target] per row over the last axis; reduction mean, sum or none")
            .type_var("T", kFloat32Like).type_var("I", kInt)
            .input("logits", "T").input("targets", "I").output("loss", "T")
            .choice_attr("reduction", {"mean", "sum", "none"}, "mean", "how row losses combine")
            .optional_attr("ignore_index", AttrKind::integer, "rows with this target give 0 and do not count")
            .shape(rule_cross_entropy).kernel(cross_entropy_kernel)
            .tolerance_classes(TC::exact, TC::tight, TC::default_));
  r.add(OpDef("mse", 608)
            .doc("(a - b)^2 elementwise; reduction mean, sum or none")
            .type_var("T", kFloat32Like)
            .input("a", "T").input("b", "T").output("loss", "T")
            .choice_attr("reduction", {"mean", "sum", "none"}, "mean", "how squared errors combine")
            .shape(rule_mse).kernel(mse_kernel)
            .tolerance_classes(TC::exact, TC::tight, TC::default_));
}

}  // namespace rung::ops
