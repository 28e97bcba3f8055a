// softmax and log_softmax over one axis (ids 450-459), as the composite SEMANTICS.md §6
// fixes: m = max (NaN if any is NaN), e_i = exp(x_i - m), s = canonical_sum(e),
// softmax_i = e_i / s, log_softmax_i = (x_i - m) - log(s). f16/bf16 compute in f32 and round
// once at the output. A row of all -inf gives NaN (as -inf - -inf does).
#include "ops/elementwise_driver.h"
#include "ops/numerics/elementwise.h"
#include "ops/numerics/reduce_tree.h"
#include "ops/reduce_layout.h"
#include "ops/registry.h"
#include "ops/shape_rules.h"

namespace rung::ops {

namespace {

template <bool kLog> void softmax_kernel(KernelContext& c) {
  const HostTensor& x = c.inputs[0];
  HostTensor& y = c.outputs[0];
  std::string err;
  std::size_t axis = *normalize_axis(c.attrs.integer("axis"), x.rank(), err);
  ReduceLayout L = reduce_layout(x.shape(), {axis});
  std::uint64_t n = L.count();
  for (std::uint64_t base : L.out_base) {
    auto at = [&](std::uint64_t i) { return x.load_f32(base + L.red_offset[i]); };
    float m = num::canonical_reduce<float>(n, at, num::Maximum{}, -num::inf_f32());
    auto e = [&](std::uint64_t i) { return num::exp_f32(at(i) - m); };
    float s = num::canonical_sum<float>(n, e);
    if constexpr (kLog) {
      float ls = num::log_f32(s);
      for (std::uint64_t i = 0; i < n; ++i) y.store_f32(base + L.red_offset[i], (at(i) - m) - ls);
    } else {
      for (std::uint64_t i = 0; i < n; ++i) y.store_f32(base + L.red_offset[i], e(i) / s);
    }
  }
}

ShapeResult softmax_shape(const ShapeArgs& a) {
  std::string err;
  if (a.inputs[0].shape.empty()) return ShapeResult::fail("needs an operand of rank >= 1, not a scalar");
  if (!normalize_axis(a.attrs.integer("axis"), a.inputs[0].rank(), err)) return ShapeResult::fail(err);
  return ShapeResult::ok({a.inputs[0].shape});
}

OpDef softmax_op(std::string name, std::uint16_t id, std::string doc, ReferenceKernel k) {
  OpDef d(std::move(name), id);
  d.doc(std::move(doc)).type_var("T", kFloat32Like).input("x", "T").output("y", "T")
      .attr("axis", std::int64_t{-1}, "the axis normalised over")
      .shape(softmax_shape).kernel(std::move(k))
      .tolerance_classes(TolClass::exact, TolClass::tight, TolClass::default_);
  return d;
}

}  // namespace

void register_family_softmax(OpRegistry& r) {
  r.add(softmax_op("softmax", 450, "exp(x - max) / sum(exp(x - max)) along axis", softmax_kernel<false>));
  r.add(softmax_op("log_softmax", 451, "(x - max) - log(sum(exp(x - max))) along axis", softmax_kernel<true>));
}

}  // namespace rung::ops
