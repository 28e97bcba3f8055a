// Gradients of the loss ops and of shape/type plumbing.
#include "autodiff/rules_common.h"
#include "base/check.h"

namespace rung::autodiff {
namespace {

// Sum of ones over every element of `x` (as a scalar of dtype `dt`): the element count,
// exact in floating point below 2^24 elements per reduction, and the same n the forward's
// mean divides by.
ValueRef count_of(Emitter& e, ValueRef x, DType dt) {
  ValueRef ones = e.op("ones_like", {x});
  if (e.type(ones).dtype != dt) ones = e.op("cast", {ones}, {{"to", dt}});
  return e.op("sum", {ones}, {{"axes", std::vector<std::int64_t>{}}, {"keepdims", false}});
}

}  // namespace

void register_nn_rules() {
  define_rule("cross_entropy", [](Emitter& e, const GradArgs& a) -> Grads {
    // d loss_row / d logits = softmax(logits) - onehot(target), per counted row.
    ValueRef logits = a.inputs[0], targets = a.inputs[1], g = a.output_grads[0];
    const TensorType& lt = e.type(logits);
    DType dt = lt.dtype;
    std::int64_t last = static_cast<std::int64_t>(lt.rank()) - 1;
    RUNG_CHECK(lt.shape.back().is_static(), "cross_entropy's class dimension is static (its shape rule requires it)");
    ValueRef p = e.op("softmax", {logits}, {{"axis", last}});
    ValueRef oh = e.op("one_hot", {targets}, {{"depth", static_cast<std::int64_t>(lt.shape.back().extent())}, {"dtype", dt}});
    ValueRef d = e.op("sub", {p, oh});
    std::optional<ValueRef> mask;  // 1 for counted rows, 0 for ignored ones
    if (a.attrs.has("ignore_index")) {
      ValueRef ignore = e.scalar(e.type(targets).dtype, static_cast<double>(a.attrs.integer("ignore_index")));
      mask = e.op("cast", {e.op("ne", {targets, ignore})}, {{"to", dt}});
      d = e.op("mul", {d, e.op("expand_like", {*mask, logits}, {{"axes", std::vector<std::int64_t>{last}}})});
    }
    const std::string& reduction = a.attrs.string("reduction");
    ValueRef scale = g;
    if (reduction == "none") {
      scale = e.op("expand_like", {g, logits}, {{"axes", std::vector<std::int64_t>{last}}});
    } else if (reduction == "mean") {
      ValueRef n = mask ? e.op("sum", {*mask}, {{"axes", std::vector<std::int64_t>{}}, {"keepdims", false}})
                        : count_of(e, targets, dt);
      scale = e.op("div", {g, n});
    }
    return {e.op("mul", {d, scale}), std::nullopt};
  });

  define_rule("mse", [](Emitter& e, const GradArgs& a) -> Grads {
    ValueRef A = a.inputs[0], B = a.inputs[1], g = a.output_grads[0];
    ValueRef d = e.op("sub", {A, B});
    ValueRef two_d = e.op("mul", {d, e.scalar(e.type(d).dtype, 2.0)});
    const std::string& reduction = a.attrs.string("reduction");
    ValueRef scale = g;
    if (reduction == "mean") scale = e.op("div", {g, count_of(e, d, e.type(d).dtype)});
    ValueRef dA = e.op("mul", {two_d, scale});
    return {e.reduce_like(dA, A), e.reduce_like(e.op("neg", {dA}), B)};
  });

  define_rule("transpose", [](Emitter& e, const GradArgs& a) -> Grads {
    std::size_t rank = e.type(a.inputs[0]).rank();
    std::vector<std::int64_t> perm = a.attrs.integers("perm");
    if (perm.empty())  // the default reverses the axes, which is its own inverse
      return {e.op("transpose", {a.output_grads[0]})};
    std::vector<std::int64_t> inverse(rank);
    for (std::size_t i = 0; i < rank; ++i) {
      std::int64_t p = perm[i] < 0 ? perm[i] + static_cast<std::int64_t>(rank) : perm[i];
      inverse[static_cast<std::size_t>(p)] = static_cast<std::int64_t>(i);
    }
    return {e.op("transpose", {a.output_grads[0]}, {{"perm", inverse}})};
  });

  define_rule("broadcast_to", [](Emitter& e, const GradArgs& a) -> Grads {
    return {e.reduce_like(a.output_grads[0], a.inputs[0])};
  });

  // Composites: back-propagate through their decomposition (decompose.h), so each reuses
  // the primitive rules and gradcheck judges it against the op's own kernel.
  for (const char* op : {"layer_norm", "rms_norm", "rope", "attention", "ffn_swiglu", "ffn_gelu", "linear_q"})
    define_rule(op, rule_by_decomposition());

  define_rule("embedding", [](Emitter& e, const GradArgs& a) -> Grads {
    // y = table[ids]: every looked-up row receives its cotangent; repeated ids accumulate
    // in scatter_add's canonical per-target order.
    ValueRef table = a.inputs[0];
    if (!dtype_info(e.type(table).dtype).is_float) return {std::nullopt, std::nullopt};
    return {e.op("scatter_add", {e.op("zeros_like", {table}), a.inputs[1], a.output_grads[0]}, {{"axis", std::int64_t{0}}}),
            std::nullopt};
  });

  // Sparse products: the dense operand's gradient is A^T g (A densified); a gradient with
  // respect to the stored values is not provided and is reported when one is needed.
  auto csr_rule = [](bool vector) {
    return [vector](Emitter& e, const GradArgs& a) -> Grads {
      if (a.wanted[2]) {
        e.fail("with respect to the CSR values is not supported (differentiate a dense matmul instead)");
        return Grads(4);
      }
      ValueRef B = a.inputs[3], g = a.output_grads[0];
      const Dim& k = e.type(B).shape[0];
      if (!k.is_static()) {
        e.fail("needs the static inner dimension K (it is " + k.to_string() + ")");
        return Grads(4);
      }
      ValueRef A = e.op("csr_to_dense", {a.inputs[0], a.inputs[1], a.inputs[2]}, {{"n_cols", static_cast<std::int64_t>(k.extent())}});
      ValueRef dB = vector ? e.op("sum", {e.op("mul", {A, e.op("expand_like", {g, A}, {{"axes", std::vector<std::int64_t>{1}}})})},
                                  {{"axes", std::vector<std::int64_t>{0}}, {"keepdims", false}})
                           : e.op("matmul", {A, g}, {{"transpose_a", true}});
      return {std::nullopt, std::nullopt, std::nullopt, dB};
    };
  };
  define_rule("csr_matmul", csr_rule(false));
  define_rule("csr_matvec", csr_rule(true));
  define_rule("csr_from_dense", [](Emitter& e, const GradArgs& a) -> Grads {
    // values = x at the stored positions: dx = the values' cotangent scattered back densely.
    const Dim& n = e.type(a.inputs[0]).shape[1];
    if (!n.is_static()) {
      e.fail("needs a static column count (it is " + n.to_string() + ")");
      return {std::nullopt};
    }
    return {e.op("csr_to_dense", {a.outputs[0], a.outputs[1], a.output_grads[2]}, {{"n_cols", static_cast<std::int64_t>(n.extent())}})};
  });
  define_rule("cast", [](Emitter& e, const GradArgs& a) -> Grads {
    DType from = e.type(a.inputs[0]).dtype;
    if (!dtype_info(from).is_float) return {std::nullopt};
    return {e.op("cast", {a.output_grads[0]}, {{"to", from}})};
  });
}

}  // namespace rung::autodiff
