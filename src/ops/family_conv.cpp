// Convolution and pooling (ids 620-639) over 1 or 2 spatial axes, NCL / NCHW layout. Every
// output element is a fixed sequence (docs/semantics.md, "Convolution and pooling"): conv one
// fma chain over (c, kh, kw) from the bias, max_pool an ordered scan, avg_pool the canonical
// sum and one division, so every backend can give the reference's bits in tier debug.
// Pads are explicit, [before, after] per spatial axis; ops/window_geometry.h resolves
// ONNX's auto_pad SAME_UPPER / SAME_LOWER (same_pads).
#include "ops/kernels_conv.h"
#include "ops/registry.h"

namespace rung::ops {

namespace {

using Ints = std::vector<std::int64_t>;

// The window attributes conv and the pools share.
OpDef& with_window_attrs(OpDef& d) {
  return d.attr("strides", Ints{}, "step per spatial axis; [] = 1 each")
      .attr("pads", Ints{}, "[before_0, after_0, before_1, after_1]: zero/ignored margins; [] = 0 each")
      .attr("dilations", Ints{}, "tap spacing per spatial axis; [] = 1 each");
}

}  // namespace

void register_family_conv(OpRegistry& r) {
  using TC = TolClass;
  OpDef conv("conv", 620);
  conv.doc(
          "convolution (cross-correlation) of x [N, C, (H,) W] with w [M, C/groups, (KH,) KW] (+ b [M]); "
          "each output one fma chain over (c, kh, kw) from the bias")
      .type_var("T", kFloat)
      .input("x", "T")
      .input("w", "T")
      .input("b", "T", Arity::optional)
      .output("y", "T");
  with_window_attrs(conv).attr("groups", std::int64_t{1},
                               "channel groups: output channel m reads group m / (M/groups)");
  r.add(std::move(conv.shape(rule_conv).kernel(conv_kernel).tolerance_classes(TC::exact, TC::default_, TC::loose)));

  OpDef convt("conv_transpose", 621);
  convt.doc("transposed convolution (conv's adjoint) of x [N, C, (H,) W] with w [C, M/groups, (KH,) KW] (+ b [M]); "
            "each output one fma chain over (c, kh, kw) from the bias")
      .type_var("T", kFloat)
      .input("x", "T").input("w", "T").input("b", "T", Arity::optional).output("y", "T");
  with_window_attrs(convt)
      .attr("groups", std::int64_t{1}, "channel groups: output channel m reads group m / (M/groups)")
      .attr("output_padding", Ints{}, "extra output extent after each spatial axis (< stride or dilation); [] = 0");
  r.add(std::move(
      convt.shape(rule_conv_transpose).kernel(conv_transpose_kernel).tolerance_classes(TC::exact, TC::default_, TC::loose)));

  OpDef max_pool("max_pool", 625);
  max_pool.doc("maximum over each window of x [N, C, (H,) W] (padding never wins; NaN wins) and its flat index in x")
      .type_var("T", kFloat)
      .input("x", "T")
      .output("y", "T")
      .output("indices", "i64")
      .attr("kernel_shape", AttrKind::integers, "window extent per spatial axis");
  with_window_attrs(max_pool).attr("ceil_mode", false,
                                   "round the output extent up (a window starting in the after-padding is dropped)");
  r.add(std::move(
      max_pool.shape(rule_max_pool).kernel(max_pool_kernel).tolerance_classes(TC::exact, TC::exact, TC::exact)));

  OpDef avg_pool("avg_pool", 626);
  avg_pool
      .doc(
          "mean over each window of x [N, C, (H,) W]: canonical sum of the taps (padding +0), one division by the "
          "count")
      .type_var("T", kFloat)
      .input("x", "T")
      .output("y", "T")
      .attr("kernel_shape", AttrKind::integers, "window extent per spatial axis");
  with_window_attrs(avg_pool)
      .attr("ceil_mode", false, "round the output extent up (a window starting in the after-padding is dropped)")
      .attr("count_include_pad", false, "divide by the taps inside the padded input, not only those inside x");
  r.add(std::move(
      avg_pool.shape(rule_avg_pool).kernel(avg_pool_kernel).tolerance_classes(TC::exact, TC::tight, TC::default_)));
}

}  // namespace rung::ops
