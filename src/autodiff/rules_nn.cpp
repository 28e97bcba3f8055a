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

  // Sparse ops. The row of stored entry k is the number of rows that end at or before k:
  // row[k] = sum_i (indptr[i + 1] <= k), built from iota, a comparison and an integer sum,
  // so gradients w.r.t. the stored values are gathers: csr_to_dense: g[row, col];
  // csr_matmul: sum_j g[row, j] B[col, j]; csr_matvec: g[row] x[col]. The dense operand's
  // gradient is A^T g with A densified. Static M, nnz (and K, n_cols) are needed.
  auto entry_rows = [](Emitter& e, ValueRef indptr, ValueRef values) -> std::optional<ValueRef> {
    const Dim &mp1 = e.type(indptr).shape[0], &nnz = e.type(values).shape[0];
    if (!mp1.is_static() || !nnz.is_static()) {
      e.fail("needs a static row count and number of stored entries");
      return std::nullopt;
    }
    auto M = static_cast<std::int64_t>(mp1.extent()) - 1, n = static_cast<std::int64_t>(nnz.extent());
    DType it = e.type(indptr).dtype;
    ValueRef ends = e.op("slice", {indptr}, {{"starts", std::vector<std::int64_t>{1}}, {"ends", std::vector<std::int64_t>{M + 1}}});
    ValueRef k = e.op("iota", {}, {{"shape", Shape{Dim::fixed(static_cast<std::uint64_t>(n)), Dim::fixed(static_cast<std::uint64_t>(M))}},
                                   {"axis", std::int64_t{0}}, {"dtype", it}});
    ValueRef done = e.op("cast", {e.op("le", {ends, k})}, {{"to", it}});
    return e.op("sum", {done}, {{"axes", std::vector<std::int64_t>{1}}, {"keepdims", false}});
  };
  auto csr_rule = [entry_rows](bool vector) {
    return [vector, entry_rows](Emitter& e, const GradArgs& a) -> Grads {
      ValueRef indptr = a.inputs[0], indices = a.inputs[1], values = a.inputs[2], B = a.inputs[3], g = a.output_grads[0];
      Grads out(4);
      if (a.wanted[2]) {
        auto rows = entry_rows(e, indptr, values);
        if (!rows) return out;
        ValueRef grow = e.op("gather", {g, *rows}, {{"axis", std::int64_t{0}}});
        ValueRef bcol = e.op("gather", {B, indices}, {{"axis", std::int64_t{0}}});
        out[2] = vector ? e.op("mul", {grow, bcol})
                        : e.op("sum", {e.op("mul", {grow, bcol})}, {{"axes", std::vector<std::int64_t>{1}}, {"keepdims", false}});
      }
      if (a.wanted[3]) {
        const Dim& k = e.type(B).shape[0];
        if (!k.is_static()) {
          e.fail("needs the static inner dimension K (it is " + k.to_string() + ")");
          return out;
        }
        ValueRef A = e.op("csr_to_dense", {indptr, indices, values}, {{"n_cols", static_cast<std::int64_t>(k.extent())}});
        out[3] = vector ? e.op("sum", {e.op("mul", {A, e.op("expand_like", {g, A}, {{"axes", std::vector<std::int64_t>{1}}})})},
                               {{"axes", std::vector<std::int64_t>{0}}, {"keepdims", false}})
                        : e.op("matmul", {A, g}, {{"transpose_a", true}});
      }
      return out;
    };
  };
  define_rule("csr_matmul", csr_rule(false));
  define_rule("csr_matvec", csr_rule(true));
  define_rule("csr_to_dense", [entry_rows](Emitter& e, const GradArgs& a) -> Grads {
    Grads out(3);
    if (!a.wanted[2]) return out;
    auto rows = entry_rows(e, a.inputs[0], a.inputs[2]);
    if (!rows) return out;
    const TensorType gt = e.type(a.output_grads[0]);
    std::uint64_t M = gt.shape[0].extent(), N = gt.shape[1].extent();  // static: M from indptr, N from n_cols
    ValueRef flat_g = e.op("reshape", {a.output_grads[0]}, {{"shape", Shape{Dim::fixed(M * N)}}});
    ValueRef at = e.op("add", {e.op("mul", {*rows, e.scalar(e.type(*rows).dtype, static_cast<double>(N))}), a.inputs[1]});
    out[2] = e.op("gather", {flat_g, at}, {{"axis", std::int64_t{0}}});
    return out;
  });
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
