// Shape family: hand-computed cases, index errors as diagnostics, symbolic shape rules,
// scatter_add's canonical order, repeated evaluation.
#include <limits>

#include "op_test_util.h"
#include "ops/registry.h"
#include "ops/resize_plan.h"
#include "ops/slice_bounds.h"
#include "ops/typing.h"

namespace rung::ops::testing {
namespace {

using V = std::vector<std::int64_t>;

Shape shp(std::initializer_list<std::uint64_t> d) {
  Shape s;
  for (auto e : d) s.push_back(Dim::fixed(e));
  return s;
}

// Shape-rule result (or the first error) for symbolic operand types.
std::string infer(std::string_view op, std::vector<TensorType> in, const AttrMap& attrs) {
  std::vector<std::string> errs;
  auto t = infer_types(*op_registry().find(op), in, attrs, errs);
  if (!t) return "error: " + (errs.empty() ? std::string("?") : errs.front());
  std::string s;
  for (const auto& r : t->results) s += (s.empty() ? "" : " ") + r.to_string();
  return s;
}

HostTensor iota_f32(Extents shape) {
  std::vector<float> v(element_count(shape));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  return f32(std::move(shape), v);
}

std::string failure_message(std::string_view op, std::vector<HostTensor> in, const AttrMap& attrs) {
  DiagnosticSink d;
  evaluate(op, in, attrs, d);
  return d.empty() ? "" : d.all().front().code + " " + d.all().front().message;
}

TEST(Reshape, KeepsRowMajorOrder) {
  HostTensor y = eval1("reshape", {iota_f32({2, 3})}, {{"shape", shp({3, 1, 2})}});
  EXPECT_EQ(y.shape(), (Extents{3, 1, 2}));
  EXPECT_EQ(values_f32(y), (std::vector<float>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(eval_codes("reshape", {iota_f32({2, 3})}, {{"shape", shp({4})}}), std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval1("reshape", {iota_f32({0, 3})}, {{"shape", shp({5, 0})}}).shape(), (Extents{5, 0}));
}

TEST(Reshape, SymbolicDimsMustMatchAsFactors) {
  TensorType x = tensor(DType::f32, {Dim::symbol("B"), Dim::fixed(784)});
  EXPECT_EQ(infer("reshape", {x}, {{"shape", Shape{Dim::symbol("B"), Dim::fixed(28), Dim::fixed(28)}}}), "f32[B, 28, 28]");
  EXPECT_EQ(infer("reshape", {x}, {{"shape", Shape{Dim::fixed(784), Dim::symbol("B")}}}), "f32[784, B]");
  EXPECT_NE(infer("reshape", {x}, {{"shape", Shape{Dim::symbol("C"), Dim::fixed(784)}}}).find("error"), std::string::npos);
  EXPECT_NE(infer("reshape", {x}, {{"shape", shp({784})}}).find("error"), std::string::npos);
}

TEST(BroadcastTo, RepeatsSizeOneDims) {
  HostTensor y = eval1("broadcast_to", {f32({2, 1}, {-0.0f, nanf()})}, {{"shape", shp({2, 3})}});
  auto v = values_f32(y);
  for (int j = 0; j < 3; ++j) EXPECT_EQ(bits(v[j]), 0x80000000u);  // -0 is copied, not normalised
  for (int j = 3; j < 6; ++j) EXPECT_EQ(bits(v[j]), 0x7FC00000u);
  EXPECT_EQ(values_f32(eval1("broadcast_to", {f32({3}, {1, 2, 3})}, {{"shape", shp({2, 3})}})),
            (std::vector<float>{1, 2, 3, 1, 2, 3}));
  EXPECT_EQ(eval_codes("broadcast_to", {f32({2}, {1, 2})}, {{"shape", shp({3})}}), std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval_codes("broadcast_to", {f32({1, 2}, {1, 2})}, {{"shape", shp({2})}}), std::vector<std::string>{"N0011"});
  EXPECT_EQ(infer("broadcast_to", {tensor(DType::f32, {Dim::fixed(1), Dim::symbol("N")})},
                  {{"shape", Shape{Dim::symbol("B"), Dim::symbol("N")}}}),
            "f32[B, N]");
}

TEST(Transpose, PermutesAxes) {
  HostTensor y = eval1("transpose", {iota_f32({2, 3})});
  EXPECT_EQ(y.shape(), (Extents{3, 2}));
  EXPECT_EQ(values_f32(y), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  // y[i, j, k] = x[k, i, j] for perm (1, 2, 0).
  HostTensor x = iota_f32({2, 3, 4});
  HostTensor z = eval1("transpose", {x}, {{"perm", V{1, 2, -3}}});
  ASSERT_EQ(z.shape(), (Extents{3, 4, 2}));
  for (std::uint64_t i = 0; i < 3; ++i)
    for (std::uint64_t j = 0; j < 4; ++j)
      for (std::uint64_t k = 0; k < 2; ++k) EXPECT_EQ(z.load_f32((i * 4 + j) * 2 + k), x.load_f32((k * 3 + i) * 4 + j));
  EXPECT_EQ(eval_codes("transpose", {x}, {{"perm", V{0, 0, 1}}}), std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval_codes("transpose", {x}, {{"perm", V{0, 1}}}), std::vector<std::string>{"N0011"});
}

TEST(Slice, PythonSemantics) {
  HostTensor x = iota_f32({10});
  auto sl = [&](std::int64_t s, std::int64_t e, std::int64_t st) {
    return values_f32(eval1("slice", {x}, {{"starts", V{s}}, {"ends", V{e}}, {"steps", V{st}}}));
  };
  EXPECT_EQ(sl(2, 8, 2), (std::vector<float>{2, 4, 6}));
  EXPECT_EQ(sl(2, 9, 3), (std::vector<float>{2, 5, 8}));
  EXPECT_EQ(sl(-3, 100, 1), (std::vector<float>{7, 8, 9}));
  EXPECT_EQ(sl(-1, std::numeric_limits<std::int64_t>::min(), -1), (std::vector<float>{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(sl(8, 2, -3), (std::vector<float>{8, 5}));
  EXPECT_EQ(sl(100, -100, -4), (std::vector<float>{9, 5, 1}));
  EXPECT_EQ(sl(5, 2, 1), (std::vector<float>{}));
  EXPECT_EQ(sl(0, 10, std::numeric_limits<std::int64_t>::min()), (std::vector<float>{}));
  EXPECT_EQ(eval_codes("slice", {x}, {{"starts", V{0}}, {"ends", V{5}}, {"steps", V{0}}}), std::vector<std::string>{"N0011"});
}

TEST(Slice, ListedAxesOnlyAndSymbolicRule) {
  HostTensor y = eval1("slice", {iota_f32({3, 4})}, {{"starts", V{1}}, {"ends", V{3}}, {"axes", V{-1}}});
  EXPECT_EQ(y.shape(), (Extents{3, 2}));
  EXPECT_EQ(values_f32(y), (std::vector<float>{1, 2, 5, 6, 9, 10}));
  TensorType x = tensor(DType::f32, {Dim::symbol("B"), Dim::fixed(10)});
  EXPECT_EQ(infer("slice", {x}, {{"starts", V{0}}, {"ends", V{4}}, {"axes", V{1}}}), "f32[B, 4]");
  EXPECT_NE(infer("slice", {x}, {{"starts", V{0}}, {"ends", V{4}}, {"axes", V{0}}}).find("symbolic"), std::string::npos);
}

// An omitted bound is the int64 extreme on its side (ops/slice_bounds.h): Python's None for
// every extent and step, including the negative steps whose omitted end is before index 0.
TEST(Slice, OmittedBoundsAreTheExtremes) {
  constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
  HostTensor x = iota_f32({4});
  auto sl = [&](std::int64_t s, std::int64_t e, std::int64_t st) {
    return values_f32(eval1("slice", {x}, {{"starts", V{s}}, {"ends", V{e}}, {"steps", V{st}}}));
  };
  EXPECT_EQ(sl(omitted_start(-1), omitted_end(-1), -1), (std::vector<float>{3, 2, 1, 0}));  // x[::-1]
  EXPECT_EQ(sl(3, omitted_end(-1), -1), (std::vector<float>{3, 2, 1, 0}));                  // x[3::-1]
  EXPECT_EQ(sl(omitted_start(-1), 0, -1), (std::vector<float>{3, 2, 1}));                   // x[:0:-1]
  EXPECT_EQ(sl(omitted_start(-2), omitted_end(-2), -2), (std::vector<float>{3, 1}));        // x[::-2]
  EXPECT_EQ(sl(omitted_start(2), omitted_end(2), 2), (std::vector<float>{0, 2}));           // x[::2]
  EXPECT_EQ(sl(lo, hi, hi), (std::vector<float>{0}));
  EXPECT_EQ(sl(hi, lo, lo), (std::vector<float>{3}));
  EXPECT_EQ(sl(lo, lo, -1), (std::vector<float>{}));
  EXPECT_EQ(sl(hi, hi, 1), (std::vector<float>{}));
  HostTensor empty = iota_f32({0});
  EXPECT_EQ(eval1("slice", {empty}, {{"starts", V{hi}}, {"ends", V{lo}}, {"steps", V{-1}}}).shape(), (Extents{0}));
}

// A symbolic dim can be sliced whole (forwards or backwards): the result keeps the symbol.
TEST(Slice, WholeAxisOfASymbolicDim) {
  constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
  TensorType x = tensor(DType::f32, {Dim::symbol("N"), Dim::fixed(5)});
  EXPECT_EQ(infer("slice", {x}, {{"starts", V{hi, 1}}, {"ends", V{lo, hi}}, {"steps", V{-1, 2}}}), "f32[N, 2]");
  EXPECT_EQ(infer("slice", {x}, {{"starts", V{0}}, {"ends", V{hi}}, {"steps", V{1}}}), "f32[N, 5]");
  EXPECT_NE(infer("slice", {x}, {{"starts", V{1}}, {"ends", V{hi}}}).find("symbolic"), std::string::npos);
  EXPECT_NE(infer("slice", {x}, {{"starts", V{hi}}, {"ends", V{lo}}, {"steps", V{-2}}}).find("symbolic"), std::string::npos);
  EXPECT_NE(infer("slice", {x}, {{"starts", V{0}}, {"ends", V{4}}, {"steps", V{0}}}).find("step"), std::string::npos);
}

TEST(Concat, JoinsAlongAxis) {
  HostTensor y = eval1("concat", {f32({2, 1}, {1, 2}), f32({2, 0}, {}), f32({2, 2}, {3, 4, 5, 6})}, {{"axis", 1}});
  EXPECT_EQ(y.shape(), (Extents{2, 3}));
  EXPECT_EQ(values_f32(y), (std::vector<float>{1, 3, 4, 2, 5, 6}));
  EXPECT_EQ(values_i64(eval1("concat", {i64({2}, {7, 8}, DType::i8), i64({1}, {-9}, DType::i8)})), (V{7, 8, -9}));
  EXPECT_EQ(eval_codes("concat", {f32({2, 1}, {1, 2}), f32({3, 1}, {1, 2, 3})}, {{"axis", 1}}),
            std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval_codes("concat", {f32({2}, {1, 2}), i64({1}, {1})}), std::vector<std::string>{"N0011"});
  EXPECT_NE(infer("concat", {tensor(DType::f32, {Dim::symbol("N")}), tensor(DType::f32, {Dim::fixed(2)})}, {}).find("symbolic"),
            std::string::npos);
}

TEST(Gather, IndexSelectAlongAnyAxis) {
  HostTensor x = iota_f32({3, 2});
  EXPECT_EQ(values_f32(eval1("gather", {x, i64({2}, {2, 0})})), (std::vector<float>{4, 5, 0, 1}));
  HostTensor y = eval1("gather", {x, i64({2, 2}, {1, 1, 0, 2}, DType::u8)});
  EXPECT_EQ(y.shape(), (Extents{2, 2, 2}));
  EXPECT_EQ(values_f32(y), (std::vector<float>{2, 3, 2, 3, 0, 1, 4, 5}));
  HostTensor z = eval1("gather", {x, i64({3}, {1, 1, 0}, DType::i32)}, {{"axis", -1}});
  EXPECT_EQ(z.shape(), (Extents{3, 3}));
  EXPECT_EQ(values_f32(z), (std::vector<float>{1, 1, 0, 3, 3, 2, 5, 5, 4}));
  EXPECT_EQ(eval1("gather", {x, i64({0}, {})}).shape(), (Extents{0, 2}));
}

TEST(Gather, OutOfRangeIndexIsAClearError) {
  HostTensor x = iota_f32({3, 2});
  EXPECT_EQ(failure_message("gather", {x, i64({2}, {0, 3})}, {}),
            "N0012 `gather` refused its input: index 3 at position 1 is out of range [0, 3) (axis 0)");
  EXPECT_EQ(eval_codes("gather", {x, i64({1}, {-1})}), std::vector<std::string>{"N0012"});
  EXPECT_EQ(eval_codes("gather", {iota_f32({0, 2}), i64({1}, {0})}), std::vector<std::string>{"N0012"});
}

TEST(ScatterAdd, AccumulatesDuplicatesOnTheCanonicalTree) {
  // Three updates land on row 0: a sequential sum gives (1e8 + 1) - 1e8 = 0 in f32; the
  // canonical tree pairs lane 0 with lane 2 first: (1e8 + -1e8) + 1 = 1.
  HostTensor x = f32({2, 1}, {0.0f, -0.0f});
  HostTensor y = eval1("scatter_add", {x, i64({3}, {0, 0, 0}), f32({3, 1}, {1e8f, 1.0f, -1e8f})});
  auto v = values_f32(y);
  EXPECT_EQ(v[0], 1.0f);
  EXPECT_EQ(bits(v[1]), 0x80000000u);  // untouched: x's -0 kept
  HostTensor z = eval1("scatter_add", {f32({3}, {10, 20, 30}), i64({4}, {2, 0, 2, 2}), f32({4}, {1, 2, 3, 4})});
  EXPECT_EQ(values_f32(z), (std::vector<float>{12, 20, 38}));
}

TEST(ScatterAdd, AxisOneIntegersAndErrors) {
  HostTensor y = eval1("scatter_add", {i64({2, 2}, {0, 0, 0, 0}, DType::i8), i64({3}, {1, 1, 0}),
                                       i64({2, 3}, {100, 100, 1, 2, 3, 4}, DType::i8)},
                       {{"axis", 1}});
  EXPECT_EQ(values_i64(y), (V{1, -56, 4, 5}));  // 100 + 100 wraps in i8
  EXPECT_EQ(eval_codes("scatter_add", {f32({2}, {0, 0}), i64({1}, {2}), f32({1}, {1})}), std::vector<std::string>{"N0012"});
  EXPECT_EQ(eval_codes("scatter_add", {f32({2}, {0, 0}), i64({1}, {1}), f32({2}, {1, 1})}), std::vector<std::string>{"N0011"});
}

TEST(ScatterAdd, RepeatedEvaluationIsBitIdentical) {
  std::vector<float> u(6000);
  V idx(6000);
  for (std::size_t i = 0; i < u.size(); ++i) {
    u[i] = static_cast<float>((i * 2654435761u) % 1000) * 0.001f - 0.37f;
    idx[i] = static_cast<std::int64_t>((i * 7) % 5);
  }
  std::vector<HostTensor> in{f32({5}, {0, 0, 0, 0, 0}), i64({6000}, idx), f32({6000}, u)};
  HostTensor a = eval1("scatter_add", in), b = eval1("scatter_add", in);
  EXPECT_TRUE(a.identical(b));
}

TEST(Pad, ConstantEdgeReflect) {
  HostTensor x = f32({3}, {1, 2, 3});
  auto pad = [&](std::string mode) {
    return values_f32(eval1("pad", {x}, {{"pads", V{2, 2}}, {"mode", mode}, {"value", -1.5}}));
  };
  EXPECT_EQ(pad("constant"), (std::vector<float>{-1.5, -1.5, 1, 2, 3, -1.5, -1.5}));
  EXPECT_EQ(pad("edge"), (std::vector<float>{1, 1, 1, 2, 3, 3, 3}));
  EXPECT_EQ(pad("reflect"), (std::vector<float>{3, 2, 1, 2, 3, 2, 1}));
  HostTensor y = eval1("pad", {iota_f32({2, 2})}, {{"pads", V{1, 0, 0, 1}}});
  EXPECT_EQ(values_f32(y), (std::vector<float>{0, 0, 0, 0, 1, 0, 2, 3, 0}));
  EXPECT_EQ(eval_codes("pad", {x}, {{"pads", V{3, 0}}, {"mode", "reflect"}}), std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval_codes("pad", {x}, {{"pads", V{-1, 0}}}), std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval_codes("pad", {x}, {{"pads", V{std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::max()}}}),
            std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval_codes("pad", {i64({1}, {1}, DType::u8)}, {{"pads", V{1, 0}}, {"value", 256.0}}),
            std::vector<std::string>{"N0011"});
  EXPECT_EQ(values_i64(eval1("pad", {i64({1}, {1}, DType::i8)}, {{"pads", V{1, 0}}, {"value", -128.0}})), (V{-128, 1}));
}

// Expected values: ONNX 1.12's reference (onnx/backend/test/case/node/resize.py), whose
// results here are binary fractions that f32 computes exactly.
TEST(Resize, NearestLinearCubicAgainstOnnxReference) {
  using R = std::vector<double>;
  HostTensor x = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  HostTensor up = eval1("resize", {x}, {{"sizes", V{1, 1, 4, 6}}, {"scales", R{1, 1, 2, 3}}});
  EXPECT_EQ(values_f32(up), (std::vector<float>{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4}));
  HostTensor lin = eval1("resize", {f32({4}, {1, 2, 3, 4})}, {{"sizes", V{8}}, {"mode", "linear"}});
  EXPECT_EQ(values_f32(lin), (std::vector<float>{1, 1.25, 1.75, 2.25, 2.75, 3.25, 3.75, 4}));
  std::vector<float> v16(16);
  for (int i = 0; i < 16; ++i) v16[i] = static_cast<float>(i + 1);
  HostTensor cub = eval1("resize", {f32({1, 1, 4, 4}, v16)}, {{"sizes", V{1, 1, 8, 8}}, {"scales", R{1, 1, 2, 2}}, {"mode", "cubic"}});
  auto c = values_f32(cub);
  EXPECT_EQ(std::vector<float>(c.begin(), c.begin() + 8),
            (std::vector<float>{0.47265625f, 0.76953125f, 1.24609375f, 1.875f, 2.28125f, 2.91015625f, 3.38671875f, 3.68359375f}));
  EXPECT_EQ(c[63], 16.52734375f);
  // tf_crop_and_resize: source coordinates -0.5, 0.5, 1.5 of [0, 10]; the outer two extrapolate.
  HostTensor crop = eval1("resize", {f32({2}, {0, 10})}, {{"sizes", V{3}}, {"mode", "linear"}, {"coordinate_mode", "tf_crop_and_resize"},
                                                          {"roi", R{-0.5, 1.5}}, {"extrapolation_value", -7.0}});
  EXPECT_EQ(values_f32(crop), (std::vector<float>{-7, 5, -7}));
  // nearest copies integers; a kept axis (-1) is copied as it is.
  HostTensor ints = eval1("resize", {i64({2, 3}, {1, 2, 3, 4, 5, 6}, DType::i32)}, {{"sizes", V{-1, 2}}, {"coordinate_mode", "asymmetric"},
                                                                                  {"nearest_mode", "floor"}});
  EXPECT_EQ(values_i64(ints), (V{1, 2, 4, 5}));
}

TEST(Resize, RefusesWhatItCannotDefine) {
  HostTensor x = f32({2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(eval_codes("resize", {x}, {{"sizes", V{4}}}), std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval_codes("resize", {i64({2}, {1, 2}, DType::i32)}, {{"sizes", V{4}}, {"mode", "linear"}}), std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval_codes("resize", {x}, {{"sizes", V{4, 4}}, {"scales", std::vector<double>{2, 0}}}), std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval_codes("resize", {x}, {{"sizes", V{4, -2}}}), std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval_codes("resize", {x}, {{"sizes", V{4, 4}}, {"coordinate_mode", "tf_crop_and_resize"}, {"roi", std::vector<double>{0, 1}}}),
            std::vector<std::string>{"N0011"});
}

TEST(Resize, InterpolatingPassesRunInTheDeclaredOrder) {
  // Two resampled axes: the highest axis first, each value kept in f32; f64 computes in f64.
  std::vector<float> v(12);
  for (int i = 0; i < 12; ++i) v[i] = 0.1f * static_cast<float>(i * i) - 0.3f;
  HostTensor x = f32({3, 4}, v);
  AttrMap a = {{"sizes", V{5, 7}}, {"mode", "linear"}, {"coordinate_mode", "align_corners"}};
  HostTensor y = eval1("resize", {x}, a);
  // The same two passes by hand, as the definition states them.
  std::vector<std::string> errors;
  auto resolved = resolve_attrs(op_registry().find("resize")->attrs, a, errors);
  ASSERT_TRUE(resolved);
  auto axes = resize_axes({3, 4}, {5, 7}, Attrs(*resolved));
  std::vector<float> mid(3 * 7), want(5 * 7);
  for (int p = 0; p < 3; ++p)
    for (int o = 0; o < 7; ++o) {
      float acc = -0.0f;
      for (std::size_t t = 0; t < axes[1].taps; ++t) {
        float w = static_cast<float>(axes[1].weight[o * axes[1].taps + t]);
        if (w != 0) acc = acc + w * v[p * 4 + axes[1].index[o * axes[1].taps + t]];
      }
      mid[p * 7 + o] = acc;
    }
  for (int o = 0; o < 5; ++o)
    for (int q = 0; q < 7; ++q) {
      float acc = -0.0f;
      for (std::size_t t = 0; t < axes[0].taps; ++t) {
        float w = static_cast<float>(axes[0].weight[o * axes[0].taps + t]);
        if (w != 0) acc = acc + w * mid[axes[0].index[o * axes[0].taps + t] * 7 + q];
      }
      want[o * 7 + q] = acc;
    }
  EXPECT_EQ(values_f32(y), want);
}

TEST(Iota, IndexAlongAxis) {
  HostTensor y = eval1("iota", {}, {{"shape", shp({2, 3})}, {"axis", 1}, {"dtype", DType::f16}});
  EXPECT_EQ(y.dtype(), DType::f16);
  EXPECT_EQ(values_f32(y), (std::vector<float>{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(values_i64(eval1("iota", {}, {{"shape", shp({2, 2})}})), (V{0, 0, 1, 1}));
  EXPECT_EQ(eval_codes("iota", {}, {{"shape", Shape{Dim::symbol("N")}}}), std::vector<std::string>{"N0012"});
}

TEST(Arange, LengthAndValues) {
  EXPECT_EQ(values_i64(eval1("arange", {}, {{"start", 2.0}, {"stop", 11.0}, {"step", 3.0}})), (V{2, 5, 8}));
  EXPECT_EQ(values_i64(eval1("arange", {}, {{"start", 3.0}, {"stop", -1.0}, {"step", -2.0}, {"dtype", DType::i8}})),
            (V{3, 1}));
  EXPECT_EQ(eval1("arange", {}, {{"start", 5.0}, {"stop", 5.0}}).shape(), (Extents{0}));
  HostTensor f = eval1("arange", {}, {{"stop", 1.0}, {"step", 0.25}, {"dtype", DType::f32}});
  EXPECT_EQ(values_f32(f), (std::vector<float>{0, 0.25f, 0.5f, 0.75f}));
  // 0.1 * 3 in binary64 is 0.30000000000000004, rounded once to f32.
  HostTensor g = eval1("arange", {}, {{"stop", 0.35}, {"step", 0.1}, {"dtype", DType::f32}});
  ASSERT_EQ(g.numel(), 4u);
  EXPECT_SAME_BITS(g.load_f32(3), static_cast<float>(3.0 * 0.1));
  EXPECT_EQ(eval_codes("arange", {}, {{"stop", 3.0}, {"step", 0.5}}), std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval_codes("arange", {}, {{"stop", 300.0}, {"dtype", DType::i8}}), std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval_codes("arange", {}, {{"stop", 3.0}, {"step", 0.0}}), std::vector<std::string>{"N0011"});
}

TEST(OneHot, ClassesAlongNewLastAxis) {
  HostTensor y = eval1("one_hot", {i64({2}, {2, 0})}, {{"depth", 3}});
  EXPECT_EQ(y.shape(), (Extents{2, 3}));
  EXPECT_EQ(values_f32(y), (std::vector<float>{0, 0, 1, 1, 0, 0}));
  HostTensor b = eval1("one_hot", {i64({1}, {1}, DType::u16)}, {{"depth", 2}, {"dtype", DType::boolean}});
  EXPECT_FALSE(b.load_bool(0));
  EXPECT_TRUE(b.load_bool(1));
  EXPECT_EQ(failure_message("one_hot", {i64({2}, {0, 3})}, {{"depth", 3}}),
            "N0012 `one_hot` refused its input: class index 3 at position 1 is out of range [0, 3) (depth 3)");
  EXPECT_EQ(eval_codes("one_hot", {i64({1}, {-1})}, {{"depth", 3}}), std::vector<std::string>{"N0012"});
}

TEST(ShapeFamily, EveryOpIsExactInEveryTier) {
  int n = 0;
  for (const OpDef* d : op_registry().all()) {
    if (d->family != "shape") continue;
    ++n;
    EXPECT_EQ(d->tolerance.debug, TolClass::exact) << d->name;
    EXPECT_EQ(d->tolerance.prod, TolClass::exact) << d->name;
  }
  EXPECT_EQ(n, 13);  // with gather_elements (511) and resize (516)
}

}  // namespace
}  // namespace rung::ops::testing
