// The built-in gradcheck cases: at least one per differentiable registry op, covering each
// attribute that changes the rule (transposes, reductions, layouts, masks, modes).
#include <map>

#include "autodiff/gradcheck.h"
#include "base/check.h"
#include "ops/evaluate.h"

namespace rung::autodiff {
namespace {

using In = OpCase::Input;
using K = In::Kind;
using Axes = std::vector<std::int64_t>;

In r(ops::Extents s, DType dt = DType::f32) { return In{std::move(s), dt, K::real, 0, std::nullopt}; }
In pos(ops::Extents s, DType dt = DType::f32) { return In{std::move(s), dt, K::positive, 0, std::nullopt}; }
In unit(ops::Extents s, DType dt = DType::f32) { return In{std::move(s), dt, K::unit, 0, std::nullopt}; }
In idx(ops::Extents s, std::uint64_t bound, DType dt = DType::i64) { return In{std::move(s), dt, K::index, bound, std::nullopt}; }
In boolean(ops::Extents s) { return In{std::move(s), DType::boolean, K::boolean, 0, std::nullopt}; }
In given(ops::HostTensor t) { return In{t.shape(), t.dtype(), K::given, 0, std::move(t)}; }

ops::HostTensor evaluated(std::string_view op, std::vector<ops::HostTensor> in, const AttrMap& attrs, std::size_t result = 0) {
  DiagnosticSink d;
  auto out = ops::evaluate(op, in, attrs, d);
  RUNG_CHECK(out.has_value(), "a built-in gradcheck case failed to build its operands");
  return (*out)[result];
}

ops::HostTensor sparse_matrix() {  // 3 x 4 with 5 stored entries
  double v[12] = {0.5, 0, -1.25, 0, 0, 0.75, 0, 0, 1.5, 0, 0, -0.5};
  ops::HostTensor dense = ops::HostTensor::from_f64({3, 4}, v, DType::f32);
  return dense;
}

std::map<std::string, std::vector<OpCase>, std::less<>> make_cases() {
  std::map<std::string, std::vector<OpCase>, std::less<>> m;
  auto add = [&](std::string op, std::vector<In> in, AttrMap attrs = {}, std::string label = {}) {
    m[op].push_back(OpCase{op, std::move(in), std::move(attrs), label.empty() ? op : label});
  };
  // elementwise
  add("add", {r({2, 3}), r({3})});
  add("sub", {r({2, 3}), r({2, 1})});
  add("mul", {r({2, 3}), r({2, 3})});
  add("mul", {r({2, 3}, DType::f64), r({3}, DType::f64)}, {}, "mul f64");
  add("div", {r({2, 3}), pos({3})});
  add("remainder", {r({2, 3}), pos({3})});
  add("maximum", {r({2, 3}), r({3})});
  add("minimum", {r({2, 3}), r({2, 3})});
  for (const char* op : {"neg", "abs", "square", "relu", "exp", "sin", "cos", "tanh", "sigmoid", "silu", "erf"}) add(op, {r({2, 3})});
  for (const char* op : {"sqrt", "rsqrt", "reciprocal", "log"}) add(op, {pos({2, 3})});
  for (const char* op : {"floor", "ceil", "round", "atan"}) add(op, {r({2, 3})});
  for (const char* op : {"asin", "acos"}) add(op, {unit({2, 3})});
  add("gelu", {r({2, 3})});
  add("gelu", {r({2, 3})}, {{"approximate", "tanh"}}, "gelu tanh");
  add("pow", {pos({2, 3}), r({3})});
  add("clamp", {r({2, 4})}, {{"min", -0.5}, {"max", 0.7}});
  add("where", {boolean({2, 3}), r({2, 3}), r({3})});
  add("cast", {r({2, 3})}, {{"to", DType::f64}});
  add("expand_like", {r({3}), r({2, 3})});
  add("zeros_like", {r({2, 3})});
  add("ones_like", {r({2, 3})});
  // linear algebra
  add("matmul", {r({2, 3}), r({3, 4})});
  add("matmul", {r({3, 2}), r({3, 4})}, {{"transpose_a", true}}, "matmul transpose_a");
  add("matmul", {r({2, 3}), r({4, 3})}, {{"transpose_b", true}}, "matmul transpose_b");
  add("matmul", {r({3, 2}), r({4, 3})}, {{"transpose_a", true}, {"transpose_b", true}}, "matmul transpose_a transpose_b");
  add("matmul", {r({2, 2, 3}), r({3, 4})}, {}, "matmul batch-broadcast");
  add("linear", {r({2, 3}), r({4, 3}), r({4})});
  add("linear", {r({2, 2, 3}), r({4, 3})}, {}, "linear batched");
  // reductions and the softmax family
  add("sum", {r({2, 3})}, {{"axes", Axes{1}}});
  add("sum", {r({2, 3, 2})}, {{"axes", Axes{0, 2}}, {"keepdims", true}}, "sum keepdims");
  add("mean", {r({2, 3})}, {{"axes", Axes{0}}});
  add("prod", {r({2, 3})}, {{"axes", Axes{1}}});
  add("max", {r({2, 4})}, {{"axes", Axes{1}}});
  add("min", {r({2, 4})}, {{"axes", Axes{0}}, {"keepdims", true}});
  add("variance", {r({2, 4})}, {{"axes", Axes{1}}, {"correction", std::int64_t{1}}});
  add("logsumexp", {r({2, 4})}, {{"axes", Axes{1}}});
  add("cumsum", {r({3, 4})}, {{"axis", std::int64_t{1}}});
  add("cumsum", {r({3, 4})}, {{"axis", std::int64_t{0}}, {"exclusive", true}, {"reverse", true}}, "cumsum exclusive reverse");
  add("softmax", {r({2, 4})});
  add("log_softmax", {r({2, 4})}, {{"axis", std::int64_t{0}}});
  // nn composites
  add("layer_norm", {r({2, 3, 4}), r({4}), r({4})});
  add("layer_norm", {r({2, 3, 4})}, {{"axis", std::int64_t{1}}}, "layer_norm axis 1");
  add("rms_norm", {r({2, 3, 4}), r({4})});
  add("rope", {r({2, 3, 4})});
  add("rope", {r({3, 6}), idx({3}, 9)}, {{"layout", "interleaved"}}, "rope interleaved positions");
  add("attention", {r({2, 3, 4}), r({2, 3, 4}), r({2, 3, 4})});
  add("attention", {r({3, 4}), r({5, 4}), r({5, 2}), r({3, 5})}, {{"causal", false}, {"scale", 0.3}}, "attention float mask");
  add("attention", {r({4, 4}), r({3, 4}), r({3, 3}), boolean({4, 3})}, {{"causal", false}}, "attention bool mask");
  add("attention", {r({2, 4}), r({4, 4}), r({4, 2})}, {}, "attention causal Sq < Sk");
  add("attention", {r({4, 4}), r({2, 4}), r({2, 3})}, {}, "attention causal Sq > Sk (rows without keys)");
  add("ffn_swiglu", {r({2, 3}), r({5, 3}), r({5, 3}), r({3, 5})});
  add("ffn_gelu", {r({2, 3}), r({5, 3}), r({4, 5}), r({5}), r({4})});
  add("ffn_gelu", {r({2, 3}), r({5, 3}), r({4, 5})}, {{"approximate", "tanh"}}, "ffn_gelu tanh");
  add("embedding", {r({5, 3}), idx({2, 3}, 5)});
  add("cross_entropy", {r({3, 4}), idx({3}, 4)});
  add("cross_entropy", {r({3, 4}), idx({3}, 4)}, {{"reduction", "sum"}}, "cross_entropy sum");
  add("cross_entropy", {r({3, 4}), idx({3}, 4)}, {{"reduction", "none"}}, "cross_entropy none");
  add("cross_entropy", {r({4, 4}), given(ops::HostTensor::from_i64({4}, std::vector<std::int64_t>{2, 0, 3, 0}))},
      {{"ignore_index", std::int64_t{0}}}, "cross_entropy ignore_index");
  add("mse", {r({2, 3}), r({2, 3})});
  add("mse", {r({2, 3}), r({2, 3})}, {{"reduction", "none"}}, "mse none");
  {
    std::vector<double> w(4 * 32);
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<double>((i * 37) % 23) / 11.0 - 1.0;
    ops::HostTensor q = evaluated("quantize", {ops::HostTensor::from_f64({4, 32}, w, DType::f32)}, {{"to", DType::q8_0}});
    add("linear_q", {r({2, 32}), given(q), r({4})}, {{"compute", "float"}});
  }
  // convolution and pooling
  using I = std::int64_t;
  add("conv", {r({2, 3, 7}), r({4, 3, 3}), r({4})}, {{"strides", Axes{2}}, {"pads", Axes{1, 2}}}, "conv 1-D stride pads bias");
  add("conv", {r({2, 4, 5, 6}), r({6, 2, 2, 3})},
      {{"strides", Axes{2, 1}}, {"pads", Axes{0, 1, 2, 0}}, {"dilations", Axes{1, 2}}, {"groups", I{2}}},
      "conv 2-D groups stride dilation");
  add("conv", {r({1, 2, 4, 4}), r({3, 2, 2, 2}), r({3})}, {{"pads", Axes{3, 0, 0, 3}}, {"strides", Axes{3, 2}}},
      "conv 2-D pads beyond the kernel");
  add("conv_transpose", {r({2, 3, 4}), r({3, 2, 3}), r({2})}, {{"strides", Axes{2}}, {"pads", Axes{1, 0}}, {"output_padding", Axes{1}}},
      "conv_transpose 1-D stride output_padding bias");
  add("conv_transpose", {r({2, 4, 3, 3}), r({4, 3, 2, 3})},
      {{"strides", Axes{2, 1}}, {"pads", Axes{0, 1, 1, 0}}, {"dilations", Axes{1, 2}}, {"groups", I{2}}},
      "conv_transpose 2-D groups stride dilation");
  add("max_pool", {r({2, 2, 5, 6})}, {{"kernel_shape", Axes{2, 3}}, {"strides", Axes{2, 2}}, {"pads", Axes{1, 0, 0, 1}}});
  add("max_pool", {r({2, 3, 9})}, {{"kernel_shape", Axes{3}}, {"strides", Axes{2}}, {"dilations", Axes{2}}, {"ceil_mode", true}},
      "max_pool 1-D dilation ceil_mode");
  add("avg_pool", {r({2, 2, 5, 6})}, {{"kernel_shape", Axes{3, 2}}, {"strides", Axes{2, 1}}, {"pads", Axes{1, 1, 0, 1}}});
  add("avg_pool", {r({1, 3, 7})}, {{"kernel_shape", Axes{3}}, {"strides", Axes{2}}, {"pads", Axes{1, 1}}, {"ceil_mode", true},
      {"count_include_pad", true}}, "avg_pool 1-D count_include_pad ceil_mode");
  // shape and indexing
  add("reshape", {r({2, 6})}, {{"shape", Shape{Dim::fixed(3), Dim::fixed(4)}}});
  add("broadcast_to", {r({3})}, {{"shape", Shape{Dim::fixed(2), Dim::fixed(3)}}});
  add("transpose", {r({2, 3, 4})}, {{"perm", Axes{2, 0, 1}}});
  add("slice", {r({4, 5})}, {{"starts", Axes{1, 4}}, {"ends", Axes{4, 0}}, {"axes", Axes{0, 1}}, {"steps", Axes{2, -1}}});
  add("concat", {r({2, 3}), r({2, 2})}, {{"axis", std::int64_t{1}}});
  add("gather", {r({4, 3}), idx({5}, 4)});
  add("scatter_add", {r({4, 3}), idx({5}, 4), r({5, 3})});
  add("gather_elements", {r({3, 4}), idx({5, 4}, 3)});  // repeated targets accumulate
  add("gather_elements", {r({2, 3, 4}), idx({2, 2, 6}, 4, DType::i32)}, {{"axis", std::int64_t{-1}}}, "gather_elements axis -1 i32");
  add("pad", {r({2, 3})}, {{"pads", Axes{1, 0, 0, 2}}});
  add("pad", {r({3, 4})}, {{"pads", Axes{2, 1, 0, 3}}, {"mode", "edge"}}, "pad edge");
  add("pad", {r({3, 4})}, {{"pads", Axes{1, 2, 3, 0}}, {"mode", "reflect"}}, "pad reflect");
  add("resize", {r({2, 3})}, {{"sizes", Axes{4, 2}}}, "resize nearest");
  add("resize", {r({1, 2, 3})}, {{"sizes", Axes{-1, 4, 5}}, {"mode", "linear"}}, "resize linear");
  add("resize", {r({3, 4})}, {{"sizes", Axes{5, 3}}, {"mode", "cubic"}, {"coordinate_mode", "align_corners"},
                              {"exclude_outside", true}}, "resize cubic");
  add("resize", {r({3, 4})}, {{"sizes", Axes{2, 3}}, {"mode", "linear"}, {"coordinate_mode", "tf_crop_and_resize"},
                              {"roi", std::vector<double>{0.0, 0.4, 1.0, 1.3}}, {"extrapolation_value", 2.0}}, "resize crop");
  // sparse
  {
    ops::HostTensor dense = sparse_matrix();
    auto indptr = evaluated("csr_from_dense", {dense}, {}, 0), indices = evaluated("csr_from_dense", {dense}, {}, 1),
         values = evaluated("csr_from_dense", {dense}, {}, 2);
    // Stored values are random (only indptr/indices carry the structure).
    add("csr_matmul", {given(indptr), given(indices), r(values.shape()), r({4, 2})});
    add("csr_matvec", {given(indptr), given(indices), r(values.shape()), r({4})});
    add("csr_to_dense", {given(indptr), given(indices), r(values.shape())}, {{"n_cols", std::int64_t{4}}});
    add("csr_from_dense", {r({3, 4})});
  }
  return m;
}

}  // namespace

std::vector<OpCase> builtin_cases(std::string_view op) {
  static const auto cases = make_cases();
  auto it = cases.find(op);
  return it == cases.end() ? std::vector<OpCase>{} : it->second;
}

}  // namespace rung::autodiff
