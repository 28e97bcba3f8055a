// Block-quantized ops (ids 750-799): q8_0 / q4_0 (32 values and one f16 scale per block,
// byte layout in docs/quantization.md), quantize, dequantize and linear_q. Encoding and
// decoding are defined bit for bit; linear_q's int8 path accumulates exactly in integers.
#include "ops/kernels_quant.h"
#include "ops/registry.h"

namespace rung::ops {

void register_family_quant(OpRegistry& r) {
  using TC = TolClass;
  r.add(OpDef("quantize", 750)
            .doc("blocks of 32 along the last dim -> q8_0 (d = amax/127) or q4_0 (d = max/-8); RNE codes")
            .type_var("T", kFloat32Like).input("x", "T").output("q", "attr:to")
            .attr("to", DType::q8_0, "q8_0 or q4_0")
            .shape(rule_quantize).kernel(quantize_kernel));
  r.add(OpDef("dequantize", 751)
            .doc("d * code per element (exact in f32)")
            .type_var("Q", kQuantized).input("q", "Q").output("y", "attr:to")
            .attr("to", DType::f32, "f32, f16 or bf16 (f16/bf16 round once)")
            .shape(rule_dequantize).kernel(dequantize_kernel));
  r.add(OpDef("linear_q", 752)
            .doc("x @ W^T + b with W [N, K] quantized: int8 block dot products, or the fma chain on dequantized W")
            .type_var("T", kFloat32Like).type_var("Q", kQuantized)
            .input("x", "T").input("w", "Q").input("b", "T", Arity::optional).output("y", "T")
            .choice_attr("compute", {"int8", "float"}, "int8",
                         "int8: x quantized per block, exact integer dots, one fma per block; "
                         "float: linear(x, dequantize(W), b) bit for bit")
            .shape(rule_linear_q).kernel(linear_q_kernel)
            .tolerance_classes(TC::exact, TC::default_, TC::loose));
}

}  // namespace rung::ops
