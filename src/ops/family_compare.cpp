// Comparisons, logical ops, bit shifts and select (ids 200-249). Comparisons follow IEEE (NaN compares
// unequal to everything, -0 == +0) and return bool; logical ops take bool.
#include "ops/elementwise_driver.h"
#include "ops/numerics/elementwise.h"
#include "ops/registry.h"
#include "ops/shape_rules.h"

namespace rung::ops {

namespace {

OpDef compare(std::string name, std::uint16_t id, DTypeSet types, std::string doc, ReferenceKernel k) {
  OpDef d(std::move(name), id);
  d.doc(std::move(doc)).type_var("T", types).input("a", "T").input("b", "T").output("y", "bool")
      .shape(rule_broadcast).kernel(std::move(k));
  return d;
}

// where(cond, a, b): a where cond is true, else b; all three broadcast together. The value
// is copied bit for bit (a -0 or a NaN payload passes through, then NaNs are canonicalised).
void where_kernel(KernelContext& c) {
  const HostTensor& cond = c.inputs[0];
  const HostTensor& a = c.inputs[1];
  const HostTensor& b = c.inputs[2];
  HostTensor& y = c.outputs[0];
  std::size_t width = dtype_info(y.dtype()).block_bytes;
  for_each_broadcast<3>(y.shape(), {&cond.shape(), &a.shape(), &b.shape()},
                        [&](std::uint64_t i, const std::array<std::uint64_t, 3>& o) {
                          const HostTensor& src = cond.bytes()[o[0]] ? a : b;
                          std::uint64_t off = cond.bytes()[o[0]] ? o[1] : o[2];
                          std::memcpy(y.bytes().data() + i * width, src.bytes().data() + off * width, width);
                        });
}

void bit_shift_kernel(KernelContext& c) {
  if (c.attrs.string("direction") == "right") binary_kernel<num::ShiftRight>(c);
  else binary_kernel<num::ShiftLeft>(c);
}

}  // namespace

void register_family_compare(OpRegistry& r) {
  r.add(compare("eq", 200, kPlain, "a == b", binary_kernel<num::Eq>));
  r.add(compare("ne", 201, kPlain, "a != b (true when either is NaN)", binary_kernel<num::Ne>));
  r.add(compare("lt", 202, kNumeric, "a < b", binary_kernel<num::Lt>));
  r.add(compare("le", 203, kNumeric, "a <= b", binary_kernel<num::Le>));
  r.add(compare("gt", 204, kNumeric, "a > b", binary_kernel<num::Gt>));
  r.add(compare("ge", 205, kNumeric, "a >= b", binary_kernel<num::Ge>));
  r.add(compare("logical_and", 210, kBool, "a and b", binary_kernel<num::LogicalAnd>));
  r.add(compare("logical_or", 211, kBool, "a or b", binary_kernel<num::LogicalOr>));
  r.add(compare("logical_xor", 212, kBool, "a xor b", binary_kernel<num::LogicalXor>));
  r.add(OpDef("logical_not", 213).doc("not x").type_var("T", kBool).input("x", "T").output("y", "bool")
            .shape(rule_same_as_first).kernel(unary_kernel<num::LogicalNot>));
  r.add(OpDef("bit_shift", 214)
            .doc("x << y or x >> y on unsigned integers, with broadcasting; a shift by the bit width or more gives 0")
            .type_var("T", kUnsignedInt).input("x", "T").input("y", "T").output("z", "T")
            .choice_attr("direction", {"left", "right"}, "left", "which way the bits move")
            .shape(rule_broadcast).kernel(bit_shift_kernel));
  r.add(OpDef("where", 220)
            .doc("a where cond else b, with broadcasting (also called select)")
            .type_var("T", kPlain).input("cond", "bool").input("a", "T").input("b", "T").output("y", "T")
            .shape(rule_broadcast).kernel(where_kernel));
}

}  // namespace rung::ops
