// Linear algebra (ids 400-449): matmul in its four transposed forms with batch broadcasting,
// and linear (x W^T + b). All follow the sequential-k fma chain of numerics/dot.h.
#include "ops/kernels_linalg.h"
#include "ops/registry.h"

namespace rung::ops {

void register_family_linalg(OpRegistry& r) {
  using TC = TolClass;
  r.add(OpDef("matmul", 400)
            .doc("batched A @ B over the last two dims (optionally transposed); batch dims broadcast")
            .type_var("T", kFloat)
            .input("a", "T").input("b", "T").output("y", "T")
            .attr("transpose_a", false, "use A^T (A's last two dims swapped)")
            .attr("transpose_b", false, "use B^T")
            .shape(rule_matmul)
            .kernel(matmul_kernel)
            .tolerance_classes(TC::exact, TC::default_, TC::loose));
  r.add(OpDef("linear", 401)
            .doc("x @ W^T + b: x [..., K], W [N, K], optional b [N]; bias added after the chain")
            .type_var("T", kFloat)
            .input("x", "T").input("w", "T").input("b", "T", Arity::optional).output("y", "T")
            .shape(rule_linear)
            .kernel(linear_kernel)
            .tolerance_classes(TC::exact, TC::default_, TC::loose));
}

}  // namespace rung::ops
