#include "op_cases.h"

namespace rung::webgpu::testing {

std::vector<OpCase> op_cases() {
  using V = std::vector<std::int64_t>;
  std::vector<OpCase> c = {
      // elementwise, broadcasting, integers
      {"add", {"f32[3,4]", "f32[4]"}, {}},
      {"add", {"i32[5]", "i32[5]"}, {}, "i32"},
      {"add", {"f16[2,8]", "f16[2,8]"}, {}, "f16"},
      {"sub", {"f32[2,3]", "f32[2,1]"}, {}},
      {"mul", {"f32[6]", "f32"}, {}},
      {"mul", {"i8[7]", "i8[7]"}, {}, "i8 wraps"},
      {"div", {"f32[9]", "f32+[9]"}, {}},
      {"div", {"i32[6]", "i32<3[6]"}, {}, "i32 (x/0 = 0)"},
      {"maximum", {"f32[8]", "f32[8]"}, {}},
      {"minimum", {"bf16[8]", "bf16[8]"}, {}, "bf16"},
      {"neg", {"f32[5]"}, {}},
      {"abs", {"i16[5]"}, {}, "i16"},
      {"square", {"f32[7]"}, {}},
      {"sqrt", {"f32+[16]"}, {}},
      {"rsqrt", {"f32+[16]"}, {}},
      {"reciprocal", {"f32+[16]"}, {}},
      {"relu", {"f32[16]"}, {}},
      {"exp", {"f32[64]"}, {}},
      {"log", {"f32+[64]"}, {}},
      {"sin", {"f32[64]"}, {}},
      {"cos", {"f32[64]"}, {}},
      {"tanh", {"f32[64]"}, {}},
      {"sigmoid", {"f32[64]"}, {}},
      {"silu", {"f32[64]"}, {}},
      {"erf", {"f32[64]"}, {}},
      {"gelu", {"f32[64]"}, {}},
      {"gelu", {"f32[64]"}, {{"approximate", "tanh"}}, "tanh"},
      {"pow", {"f32+[32]", "f32[32]"}, {}},
      {"remainder", {"f32[33]", "f32[33]"}, {}},
      {"remainder", {"i32[17]", "i32[17]"}, {}, "i32"},
      {"clamp", {"f32[10]"}, {{"min", -0.5}, {"max", 0.5}}},
      // comparisons, logic, where, cast
      {"eq", {"i32<3[8]", "i32<3[8]"}, {}},
      {"lt", {"f32[3,4]", "f32[4]"}, {}},
      {"ge", {"f32[6]", "f32[6]"}, {}},
      {"ne", {"f32[6]", "f32[6]"}, {}},
      {"le", {"u8<4[6]", "u8<4[6]"}, {}},
      {"gt", {"f32[6]", "f32[6]"}, {}},
      {"logical_and", {"bool[8]", "bool[8]"}, {}},
      {"logical_or", {"bool[8]", "bool[8]"}, {}},
      {"logical_xor", {"bool[8]", "bool[8]"}, {}},
      {"logical_not", {"bool[8]"}, {}},
      {"where", {"bool[2,3]", "f32[2,3]", "f32[3]"}, {}},
      {"cast", {"f32[12]"}, {{"to", DType::f16}}, "f32->f16"},
      {"cast", {"f32[12]"}, {{"to", DType::i32}}, "f32->i32"},
      {"cast", {"i32[12]"}, {{"to", DType::f32}}, "i32->f32"},
      {"cast", {"f32[12]"}, {{"to", DType::boolean}}, "f32->bool"},
      // reductions and softmax
      {"sum", {"f32[4,33]"}, {{"axes", V{1}}}},
      {"sum", {"f32[5000]"}, {}, "5000 values: two tree levels"},
      {"sum", {"i32[3,4]"}, {{"axes", V{0}}}, "i32"},
      {"mean", {"f32[3,4,5]"}, {{"axes", V{0, 2}}, {"keepdims", true}}},
      {"prod", {"f32+[2,6]"}, {{"axes", V{1}}}},
      {"max", {"f32[3,7]"}, {{"axes", V{1}}}},
      {"min", {"f32[3,7]"}, {{"axes", V{0}}}},
      {"argmax", {"f32[4,9]"}, {}},
      {"argmin", {"f32[4,9]"}, {{"axis", std::int64_t{0}}}},
      {"variance", {"f32[3,10]"}, {{"axes", V{1}}, {"correction", std::int64_t{1}}}},
      {"logsumexp", {"f32[3,10]"}, {{"axes", V{1}}}},
      {"softmax", {"f32[4,10]"}, {}},
      {"log_softmax", {"f32[3,5,4]"}, {{"axis", std::int64_t{1}}}},
      // shape
      {"reshape", {"f32[2,6]"}, {{"shape", Shape{Dim::fixed(3), Dim::fixed(4)}}}},
      {"broadcast_to", {"f32[3,1]"}, {{"shape", Shape{Dim::fixed(2), Dim::fixed(3), Dim::fixed(4)}}}},
      {"transpose", {"f32[2,3,4]"}, {{"perm", V{2, 0, 1}}}},
      {"slice", {"f32[6,5]"}, {{"starts", V{1, -1}}, {"ends", V{5, -6}}, {"steps", V{2, -2}}}},
      {"concat", {"f32[2,3]", "f32[2,2]", "f32[2,1]"}, {{"axis", std::int64_t{1}}}},
      {"gather", {"f32[5,3]", "i64<5[4]"}, {}},
      {"pad", {"f32[3,4]"}, {{"pads", V{1, 2, 0, 1}}, {"value", 1.5}}},
      {"pad", {"f32[3,4]"}, {{"pads", V{2, 2, 1, 1}}, {"mode", "reflect"}}, "reflect"},
      {"resize", {"f32[2,5,6]"}, {{"sizes", V{-1, 9, 3}}, {"mode", "linear"}}, "linear"},
      {"resize", {"f16[1,4,4]"}, {{"sizes", V{1, 7, 8}}, {"mode", "cubic"}, {"exclude_outside", true}}, "cubic"},
      {"resize", {"i32[3,4]"}, {{"sizes", V{5, 9}}, {"nearest_mode", "round_prefer_ceil"}}, "nearest"},
      {"resize", {"f32[6,7]"}, {{"sizes", V{4, 9}}, {"mode", "linear"}, {"coordinate_mode", "tf_crop_and_resize"},
                                {"roi", std::vector<double>{0.1, -0.3, 1.2, 0.8}}, {"extrapolation_value", 3.0}}, "crop"},
      {"iota", {}, {{"shape", Shape{Dim::fixed(3), Dim::fixed(4)}}, {"axis", std::int64_t{1}}, {"dtype", DType::f32}}},
      {"arange", {}, {{"start", 2.0}, {"stop", 20.0}, {"step", 3.0}, {"dtype", DType::i32}}},
      {"one_hot", {"i32<5[6]"}, {{"depth", std::int64_t{5}}}},
      {"scatter_add", {"f32[5,3]", "i64<5[7]", "f32[7,3]"}, {}},
      {"scatter_add", {"i32[2,4]", "i32<4[6]", "i32[2,6]"}, {{"axis", std::int64_t{1}}}, "i32, axis 1"},
      {"expand_like", {"f32[3]", "f32[3,4]"}, {{"axes", V{1}}}},
      {"zeros_like", {"f32[5]"}, {}},
      {"ones_like", {"i32[5]"}, {}},
      // linear algebra
      {"matmul", {"f32[2,19,33]", "f32[33,70]"}, {}},
      {"matmul", {"f32[17,9]", "f32[5,17]"}, {{"transpose_a", true}, {"transpose_b", true}}, "transposed"},
      {"matmul", {"f16[8,8]", "f16[8,8]"}, {}, "f16"},
      {"linear", {"f32[5,12]", "f32[7,12]", "f32[7]"}, {}},
      // Weights scaled like trained ones ("~": [-0.5, 0.5]); with weights in [-3, 3] a hidden
      // layer of 16 reaches |h| ~ 10^3 and single outputs cancel to ~1, where any 1-ulp
      // difference in silu/gelu exceeds the elementwise bound (normwise stays ~1e-7).
      {"ffn_swiglu", {"f32[3,8]", "f32~[16,8]", "f32~[16,8]", "f32~[8,16]"}, {}},
      {"ffn_gelu", {"f32[3,8]", "f32~[16,8]", "f32~[8,16]", "f32[16]", "f32[8]"}, {}},
      // nn
      {"layer_norm", {"f32[4,16]", "f32[16]", "f32[16]"}, {}},
      {"rms_norm", {"f32[4,16]", "f32[16]"}, {}},
      {"rope", {"f32[2,5,8]"}, {}},
      {"rope", {"f32[2,5,8]"}, {{"layout", "interleaved"}}, "interleaved"},
      {"attention", {"f32[2,6,8]", "f32[2,6,8]", "f32[2,6,8]"}, {}},
      {"attention", {"f32[1,4,8]", "f32[1,6,8]", "f32[1,6,4]"}, {{"causal", false}, {"scale", 0.25}}, "non-causal"},
      {"embedding", {"f32[10,4]", "i32<10[3,2]"}, {}},
      {"cross_entropy", {"f32[5,7]", "i64<7[5]"}, {}},
      {"cross_entropy", {"f32[5,7]", "i32<7[5]"}, {{"reduction", "none"}}, "none"},
      {"mse", {"f32[4,6]", "f32[4,6]"}, {}},
      {"mse", {"f32[4,6]", "f32[4,6]"}, {{"reduction", "none"}}, "none"},
      // convolution and pooling (1-D and 2-D; padding, strides, dilations, groups, ceil_mode)
      {"conv", {"f32[2,3,9,11]", "f32~[4,3,3,3]", "f32[4]"}, {{"pads", V{1, 1, 1, 1}}}},
      {"conv", {"f32[2,4,17]", "f32~[6,2,5]"}, {{"strides", V{2}}, {"pads", V{2, 1}}, {"dilations", V{2}}, {"groups", std::int64_t{2}}},
       "1-D, groups, dilation, no bias"},
      {"conv", {"f16[1,2,6,7]", "f16~[3,2,2,3]", "f16[3]"}, {{"strides", V{2, 1}}, {"pads", V{0, 1, 2, 0}}}, "f16"},
      {"conv_transpose", {"f32[1,6,5,4]", "f32~[6,3,4,4]", "f32[3]"}, {{"strides", V{2, 2}}, {"pads", V{1, 1, 1, 1}}}},
      {"conv_transpose", {"f32[2,4,4,5]", "f32~[4,3,2,3]", "f32[6]"},
       {{"groups", std::int64_t{2}}, {"dilations", V{2, 1}}, {"strides", V{3, 2}}, {"output_padding", V{1, 1}}}, "groups, output_padding"},
      {"conv_transpose", {"bf16[2,3,9]", "bf16~[3,4,3]"}, {{"strides", V{2}}, {"pads", V{1, 0}}, {"output_padding", V{1}}}, "1-D bf16"},
      {"max_pool", {"f32[2,3,8,9]"}, {{"kernel_shape", V{3, 3}}, {"strides", V{2, 2}}, {"pads", V{1, 0, 1, 2}}, {"ceil_mode", true}}},
      {"max_pool", {"f32%[3,2,20]"}, {{"kernel_shape", V{3}}, {"dilations", V{2}}, {"pads", V{2, 1}}}, "1-D, zeros, -0 and NaN"},
      {"max_pool", {"f16[1,2,5,5]"}, {{"kernel_shape", V{2, 2}}}, "f16"},
      {"avg_pool", {"f32[2,3,8,9]"}, {{"kernel_shape", V{3, 3}}, {"strides", V{2, 2}}, {"pads", V{1, 0, 1, 2}}, {"ceil_mode", true}}},
      {"avg_pool", {"f32[1,2,7,10]"}, {{"kernel_shape", V{3, 2}}, {"pads", V{1, 1, 1, 0}}, {"count_include_pad", true}}, "count_include_pad"},
      {"avg_pool", {"bf16[2,4,6,6]"}, {{"kernel_shape", V{6, 6}}}, "bf16, whole plane"},
      // random: stream positions crossing 2^32, negative seeds, f16 output
      {"random_bits", {}, {{"shape", Shape{Dim::fixed(37)}}, {"seed", std::int64_t{-5}}, {"offset", std::int64_t{3}},
                           {"position", std::int64_t{4294967290}}}},
      {"random_uniform", {}, {{"shape", Shape{Dim::fixed(64)}}, {"seed", std::int64_t{42}}, {"low", -1.0}, {"high", 2.0}}},
      {"random_normal", {}, {{"shape", Shape{Dim::fixed(3), Dim::fixed(21)}}, {"seed", std::int64_t{7}}, {"position", std::int64_t{5}}}},
      {"random_normal", {}, {{"shape", Shape{Dim::fixed(40)}}, {"seed", std::int64_t{9}}, {"mean", 1.0}, {"std", 0.5}, {"dtype", DType::f16}}, "f16"},
      // optimizers
      {"sgd_update", {"f32[10]", "f32[10]", "f32[10]"}, {{"lr", 0.1}, {"momentum", 0.9}, {"weight_decay", 0.01}}},
      {"adam_update", {"f32[10]", "f32[10]", "f32[10]", "f32+[10]", "pows"}, {{"lr", 0.01}}},
      // quantized and sparse (operands built valid by the test)
      {"quantize", {"f32[3,64]"}, {{"to", DType::q8_0}}},
      {"quantize", {"f16[2,32]"}, {{"to", DType::q4_0}}, "q4_0 from f16"},
      {"dequantize", {"q8_0[2,64]"}, {}},
      {"dequantize", {"q4_0[2,64]"}, {}, "q4_0"},
      {"linear_q", {"f32[3,64]", "q8_0[5,64]"}, {{"compute", "float"}}, "float"},
      {"linear_q", {"f32[3,64]", "q4_0[5,64]", "f32[5]"}, {{"compute", "int8"}}, "int8"},
      {"csr_matmul", {"csr[6,9]", "f32[9,5]"}, {}},
      {"csr_matvec", {"csr[6,9]", "f32[9]"}, {}},
      {"csr_to_dense", {"csr[6,9]"}, {{"n_cols", std::int64_t{9}}}},
      // data-dependent sizes (two programs: the count read back, then the fill)
      {"csr_from_dense", {"f32%[6,9]"}, {}},
      {"csr_from_dense", {"bf16%[300,70]"}, {{"index_dtype", DType::i32}}, "bf16, i32 indices, 300 rows"},
      {"csr_from_coo", {"i64<6[40]", "i64<5[40]", "f32[40]"}, {{"n_rows", std::int64_t{8}}, {"n_cols", std::int64_t{5}}}},
      {"csr_from_coo", {"i32<50[3000]", "i32<40[3000]", "f16[3000]"}, {{"n_rows", std::int64_t{50}}, {"n_cols", std::int64_t{40}}},
       "f16, i32, 3000 entries"},
  };
  return c;
}

std::vector<OpCase> zero_extent_cases() {
  using V = std::vector<std::int64_t>;
  // A sum/prod over an empty axis is the identity; an op with an empty output dispatches
  // nothing (its index arithmetic would divide by the zero extent, which WGSL refuses).
  return {
      {"sum", {"f32[4,0,1]"}, {}, "over an empty axis"},
      {"prod", {"f32[2,0,3]"}, {{"axes", V{1}}}, "over an empty axis"},
      {"sum", {"i32[3,0]"}, {{"axes", V{1}}}, "i32 over an empty axis"},
      {"add", {"f32[0,3]", "f32[3]"}, {}, "empty output"},
      {"gather", {"f32[5,3]", "i64<5[0]"}, {}, "no indices"},
  };
}

}  // namespace rung::webgpu::testing
