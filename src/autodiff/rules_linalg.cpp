// Gradients of matmul (all four transposed forms, batch dims broadcast) and linear.
#include "autodiff/rules_common.h"

namespace rung::autodiff {

void register_linalg_rules() {
  define_rule("matmul", [](Emitter& e, const GradArgs& a) -> Grads {
    bool ta = a.attrs.boolean("transpose_a"), tb = a.attrs.boolean("transpose_b");
    ValueRef A = a.inputs[0], B = a.inputs[1], g = a.output_grads[0];
    auto mm = [&](ValueRef x, ValueRef y, bool tx, bool ty) {
      return e.op("matmul", {x, y}, {{"transpose_a", tx}, {"transpose_b", ty}});
    };
    ValueRef dA, dB;
    if (!ta && !tb) {         // Y = A B
      dA = mm(g, B, false, true);
      dB = mm(A, g, true, false);
    } else if (ta && !tb) {   // Y = A^T B
      dA = mm(B, g, false, true);
      dB = mm(A, g, false, false);
    } else if (!ta && tb) {   // Y = A B^T
      dA = mm(g, B, false, false);
      dB = mm(g, A, true, false);
    } else {                  // Y = A^T B^T
      dA = mm(B, g, true, true);
      dB = mm(g, A, true, true);
    }
    return {e.reduce_like(dA, A), e.reduce_like(dB, B)};
  });
  define_rule("linear", [](Emitter& e, const GradArgs& a) -> Grads {
    // y = x W^T + b with x [..., K], W [N, K], b [N]
    ValueRef x = a.inputs[0], W = a.inputs[1], g = a.output_grads[0];
    ValueRef dx = e.op("matmul", {g, W});
    ValueRef dW = e.op("matmul", {g, x}, {{"transpose_a", true}});  // [..., N, K] for batched x
    if (e.type(dW).rank() > 2) dW = e.reduce_like(dW, W);
    Grads out{dx, dW};
    if (a.inputs.size() > 2) out.push_back(e.reduce_like(g, a.inputs[2]));
    return out;
  });
}

}  // namespace rung::autodiff
