// Shape ops (ids 500-599): data movement, indexing, index generation and resampling. Every
// result is a bit copy of input elements (scatter_add: a canonical sum per target; resize's
// linear and cubic modes: a fixed sequence of weighted sums), so all are exact in every tier. Definitions: docs/semantics.md, "Shape ops".
#include "ops/kernels_shape.h"
#include "ops/registry.h"

namespace rung::ops {

void register_family_shape(OpRegistry& r) {
  using TC = TolClass;
  r.add(OpDef("reshape", 500)
            .doc("same elements in row-major order, new shape (element counts must match, symbols included)")
            .type_var("T", kPlain).input("x", "T").output("y", "T")
            .attr("shape", AttrKind::shape, "the result shape")
            .shape(rule_reshape).kernel(reshape_kernel));
  r.add(OpDef("broadcast_to", 501)
            .doc("numpy broadcasting of x to `shape` (x's dims must be 1 or equal, aligned at the end)")
            .type_var("T", kPlain).input("x", "T").output("y", "T")
            .attr("shape", AttrKind::shape, "the result shape")
            .shape(rule_broadcast_to).kernel(broadcast_to_kernel));
  r.add(OpDef("transpose", 502)
            .doc("permute axes: y.shape[i] = x.shape[perm[i]]; empty perm reverses the axes")
            .type_var("T", kPlain).input("x", "T").output("y", "T")
            .attr("perm", std::vector<std::int64_t>{}, "a permutation of the axes (negative counts from the end)")
            .shape(rule_transpose).kernel(transpose_kernel));
  r.add(OpDef("slice", 503)
            .doc("Python slices start:end:step on the listed axes, as slice.indices (negative bounds count from the end, "
                 "out-of-range ones clamp; an omitted bound is the int64 extreme on its side)")
            .type_var("T", kPlain).input("x", "T").output("y", "T")
            .attr("starts", AttrKind::integers, "first index per sliced axis; omitted: 0, or INT64_MAX for a negative step")
            .attr("ends", AttrKind::integers, "end (exclusive) per sliced axis; omitted: INT64_MAX, or INT64_MIN for a negative step")
            .attr("axes", std::vector<std::int64_t>{}, "the sliced axes; empty = 0, 1, ... len(starts)-1")
            .attr("steps", std::vector<std::int64_t>{}, "step per sliced axis (non-zero, may be negative); empty = 1")
            .shape(rule_slice).kernel(slice_kernel));
  r.add(OpDef("concat", 504)
            .doc("join operands along `axis`; other dims must agree")
            .type_var("T", kPlain).input("xs", "T", Arity::variadic).output("y", "T")
            .attr("axis", std::int64_t{0}, "the axis to join along")
            .shape(rule_concat).kernel(concat_kernel));
  r.add(OpDef("gather", 505)
            .doc("index_select: y = x[:axis] + indices + x[axis+1:] picking x's slices along axis; indices checked")
            .type_var("T", kPlain).type_var("I", kInt).input("x", "T").input("indices", "I").output("y", "T")
            .attr("axis", std::int64_t{0}, "the axis indexed")
            .shape(rule_gather).kernel(gather_kernel));
  r.add(OpDef("gather_elements", 511)
            .doc("y[c] = x[c with c_axis = indices[c]]: y has the indices' shape (x's rank; at most x's extents off the axis); "
                 "indices checked")
            .type_var("T", kPlain).type_var("I", kInt).input("x", "T").input("indices", "I").output("y", "T")
            .attr("axis", std::int64_t{0}, "the axis indexed")
            .shape(rule_gather_elements).kernel(gather_elements_kernel));
  r.add(OpDef("scatter_add", 506)
            .doc("y = x; y[.., indices[j], ..] += updates[.., j, ..]; per target a canonical sum in update order")
            .type_var("T", kNumeric).type_var("I", kInt)
            .input("x", "T").input("indices", "I").input("updates", "T").output("y", "T")
            .attr("axis", std::int64_t{0}, "the axis indexed")
            .shape(rule_scatter_add).kernel(scatter_add_kernel)
            .tolerance_classes(TC::exact, TC::exact, TC::tight));
  r.add(OpDef("pad", 507)
            .doc("pad each axis by (before, after) elements: constant value, edge repeat or reflect")
            .type_var("T", kPlain).input("x", "T").output("y", "T")
            .attr("pads", AttrKind::integers, "before_0, after_0, before_1, after_1, ... (>= 0)")
            .choice_attr("mode", {"constant", "edge", "reflect"}, "constant", "how padded elements are filled")
            .attr("value", 0.0, "the constant for mode constant (must be representable in T)")
            .shape(rule_pad).kernel(pad_kernel));
  r.add(OpDef("iota", 508)
            .doc("y[i_0, ..., i_n] = i_axis, converted to dtype")
            .output("y", "attr:dtype")
            .attr("shape", AttrKind::shape, "the result shape")
            .attr("axis", std::int64_t{0}, "the axis whose index is the value")
            .attr("dtype", DType::i64, "element type")
            .shape(rule_iota).kernel(iota_kernel));
  r.add(OpDef("arange", 509)
            .doc("start, start + step, ... below stop (above for negative step); n = ceil((stop - start) / step)")
            .output("y", "attr:dtype")
            .attr("start", 0.0, "first value").attr("stop", AttrKind::real, "end (exclusive)")
            .attr("step", 1.0, "increment (non-zero)").attr("dtype", DType::i64, "element type")
            .shape(rule_arange).kernel(arange_kernel));
  r.add(OpDef("one_hot", 510)
            .doc("y[..., c] = 1 if indices[...] == c else 0, c < depth; an index outside [0, depth) is an error")
            .type_var("I", kInt).input("indices", "I").output("y", "attr:dtype")
            .attr("depth", AttrKind::integer, "number of classes")
            .attr("dtype", DType::f32, "element type of the result")
            .shape(rule_one_hot).kernel(one_hot_kernel));
  r.add(OpDef("resize", 516)
            .doc("resample to `sizes` by nearest, n-linear or cubic interpolation, axis by axis (ONNX Resize's coordinates)")
            .type_var("T", kPlain).input("x", "T").output("y", "T")
            .attr("sizes", AttrKind::integers, "result extent per axis; -1 keeps the axis as it is")
            .attr("scales", std::vector<double>{}, "per-axis scale of the coordinate transform; empty = sizes / extents")
            .choice_attr("mode", {"nearest", "linear", "cubic"}, "nearest", "interpolation (linear, cubic: float dtypes)")
            .choice_attr("coordinate_mode",
                         {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_crop_and_resize"},
                         "half_pixel", "how an output coordinate maps to a source coordinate")
            .choice_attr("nearest_mode", {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"},
                         "round_prefer_floor", "which neighbour mode nearest picks")
            .attr("cubic_coeff_a", -0.75, "the cubic kernel's A")
            .attr("exclude_outside", false, "linear/cubic: taps outside the input get weight 0, the rest renormalised")
            .attr("extrapolation_value", 0.0, "tf_crop_and_resize: the value where the source lies outside the input")
            .attr("roi", std::vector<double>{}, "tf_crop_and_resize: starts then ends per axis, normalised; empty = 0 and 1")
            .shape(rule_resize).kernel(resize_kernel));
}

}  // namespace rung::ops
