// Support ops for reverse-mode autodiff (ids 850-899). Gradients of reductions and
// broadcasts need "the shape of that other value" where dims are symbolic, which a shape
// attribute cannot express (a kernel sees attributes, not run-time dim bindings), so these
// ops take the shape from a second operand instead.
#include "ops/elementwise_driver.h"
#include "ops/registry.h"
#include "ops/shape_rules.h"

namespace rung::ops {
namespace {

// x's shape with size-1 dims inserted at `axes` (positions in like's rank): the shape a
// reduction without keepdims removed them from.
std::optional<Shape> with_axes(const Shape& x, std::size_t like_rank, const std::vector<std::int64_t>& axes, std::string& err) {
  if (axes.empty()) return x;
  std::vector<bool> inserted(like_rank, false);
  for (auto ax : axes) {
    auto n = normalize_axis(ax, like_rank, err);
    if (!n) return std::nullopt;
    inserted[*n] = true;
  }
  Shape out;
  std::size_t k = 0;
  for (std::size_t i = 0; i < like_rank; ++i) {
    if (inserted[i]) out.push_back(Dim::fixed(1));
    else if (k < x.size()) out.push_back(x[k++]);
    else return err = "x has too few dims for `axes`", std::nullopt;
  }
  if (k != x.size()) return err = "x has too many dims for `axes`", std::nullopt;
  return out;
}

// y has like's shape; x (with `axes` re-inserted) must broadcast to it.
ShapeResult rule_expand_like(const ShapeArgs& a) {
  std::string err;
  auto x = with_axes(a.inputs[0].shape, a.inputs[1].shape.size(), a.attrs.integers("axes"), err);
  if (!x) return ShapeResult::fail(err);
  Shape shapes[2] = {*x, a.inputs[1].shape};
  auto b = broadcast_shapes(shapes, err);
  if (!b) return ShapeResult::fail(err);
  if (b->size() != a.inputs[1].shape.size())
    return ShapeResult::fail("x " + shape_to_string(a.inputs[0].shape) + " has more dims than like " + shape_to_string(a.inputs[1].shape));
  for (std::size_t i = 0; i < b->size(); ++i)
    if (!same_dim((*b)[i], a.inputs[1].shape[i]))
      return ShapeResult::fail("x " + shape_to_string(a.inputs[0].shape) + " does not broadcast to like " +
                               shape_to_string(a.inputs[1].shape));
  return ShapeResult::ok({a.inputs[1].shape});
}

void expand_like_kernel(KernelContext& c) {
  const HostTensor& x = c.inputs[0];
  HostTensor& y = c.outputs[0];
  std::size_t w = dtype_info(x.dtype()).block_bytes;
  // Re-inserting size-1 axes does not move any element: only the extents change.
  Extents xs;
  std::vector<bool> inserted(y.rank(), false);
  for (auto ax : c.attrs.integers("axes")) inserted[static_cast<std::size_t>(ax < 0 ? ax + static_cast<std::int64_t>(y.rank()) : ax)] = true;
  std::size_t k = 0;
  if (c.attrs.integers("axes").empty()) xs = x.shape();  // x may have fewer dims than y: nothing to re-insert
  else
    for (std::size_t i = 0; i < y.rank(); ++i) xs.push_back(inserted[i] ? 1 : x.shape()[k++]);
  for_each_broadcast<1>(y.shape(), {&xs}, [&](std::uint64_t i, const std::array<std::uint64_t, 1>& o) {
    std::memcpy(y.bytes().data() + i * w, x.bytes().data() + o[0] * w, w);
  });
}

ShapeResult rule_like(const ShapeArgs& a) { return ShapeResult::ok({a.inputs[0].shape}); }

}  // namespace

void register_family_autodiff(OpRegistry& r) {
  using TC = TolClass;
  r.add(OpDef("expand_like", 850)
            .doc("x broadcast to the shape of `like` (its values are not read)")
            .type_var("T", kPlain).type_var("U", kPlain)
            .input("x", "T").input("like", "U").output("y", "T")
            .attr("axes", std::vector<std::int64_t>{}, "axes of `like` that x lacks (as a reduction without keepdims left it)")
            .shape(rule_expand_like).kernel(expand_like_kernel)
            .tolerance_classes(TC::exact, TC::exact, TC::exact));
  r.add(OpDef("zeros_like", 851)
            .doc("+0 with the dtype and shape of x (its values are not read)")
            .type_var("T", kPlain).input("x", "T").output("y", "T")
            .shape(rule_like).kernel([](KernelContext&) {})  // outputs arrive zero-filled: +0 in every dtype
            .tolerance_classes(TC::exact, TC::exact, TC::exact));
  r.add(OpDef("ones_like", 852)
            .doc("1 with the dtype and shape of x (its values are not read)")
            .type_var("T", kNumeric).input("x", "T").output("y", "T")
            .shape(rule_like)
            .kernel([](KernelContext& c) {
              HostTensor& y = c.outputs[0];
              visit_compute_type(y.dtype(), [&](auto tag) {
                using T = decltype(tag);
                for (std::uint64_t i = 0; i < y.numel(); ++i) store_as(y, i, T(1));
              });
            })
            .tolerance_classes(TC::exact, TC::exact, TC::exact));
}

}  // namespace rung::ops
