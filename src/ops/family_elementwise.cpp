// Elementwise arithmetic and transcendental ops (ids 100-199). Each op is its scalar
// formula from numerics/elementwise.h plus broadcasting; see docs/semantics.md for the
// definitions and NaN/±0/inf rules.
#include "ops/elementwise_driver.h"
#include "ops/numerics/elementwise.h"
#include "ops/registry.h"
#include "ops/shape_rules.h"

namespace rung::ops {

namespace {

using TC = TolClass;

OpDef unary(std::string name, std::uint16_t id, DTypeSet types, std::string doc, ReferenceKernel k) {
  OpDef d(std::move(name), id);
  d.doc(std::move(doc)).type_var("T", types).input("x", "T").output("y", "T").shape(rule_same_as_first).kernel(std::move(k));
  return d;
}

OpDef binary(std::string name, std::uint16_t id, DTypeSet types, std::string doc, ReferenceKernel k) {
  OpDef d(std::move(name), id);
  d.doc(std::move(doc)).type_var("T", types).input("a", "T").input("b", "T").output("y", "T").shape(rule_broadcast)
      .kernel(std::move(k));
  return d;
}

}  // namespace

void register_family_elementwise(OpRegistry& r) {
  // IEEE-exact operations: every backend must give the same bits in every tier.
  r.add(binary("add", 100, kNumeric, "a + b with broadcasting", binary_kernel<num::Add>));
  r.add(binary("sub", 101, kNumeric, "a - b with broadcasting", binary_kernel<num::Sub>));
  r.add(binary("mul", 102, kNumeric, "a * b with broadcasting", binary_kernel<num::Mul>));
  r.add(binary("div", 103, kNumeric, "a / b; integers truncate toward zero and x/0 = 0", binary_kernel<num::Div>));
  r.add(binary("maximum", 104, kNumeric, "elementwise max; NaN if either is NaN; max(-0,+0) = +0",
               binary_kernel<num::Maximum>));
  r.add(binary("minimum", 105, kNumeric, "elementwise min; NaN if either is NaN; min(-0,+0) = -0",
               binary_kernel<num::Minimum>));
  r.add(unary("neg", 110, kFloat | kInt, "-x (flips the sign bit; integers wrap)", unary_kernel<num::Neg>));
  r.add(unary("abs", 111, kFloat | kInt, "|x| (clears the sign bit; abs(INT_MIN) wraps)", unary_kernel<num::Abs>));
  r.add(unary("square", 112, kNumeric, "x * x", unary_kernel<num::Square>));
  r.add(unary("sqrt", 113, kFloat, "correctly rounded square root", unary_kernel<num::Sqrt>));
  r.add(unary("rsqrt", 114, kFloat, "1 / sqrt(x): two correctly rounded operations", unary_kernel<num::Rsqrt>));
  r.add(unary("reciprocal", 115, kFloat, "1 / x", unary_kernel<num::Reciprocal>));
  r.add(unary("relu", 116, kFloat | kSignedInt, "x if x > 0 else +0; NaN stays NaN", unary_kernel<num::Relu>));

  // rung's own transcendentals: bit-exact in debug, within their class elsewhere.
  r.add(unary("exp", 130, kFloat32Like, "e^x (rung's algorithm; docs/semantics.md)", unary_kernel<num::Exp>)
            .tolerance_classes(TC::exact, TC::tight, TC::default_));
  r.add(unary("log", 131, kFloat32Like, "natural logarithm (rung's algorithm)", unary_kernel<num::Log>)
            .tolerance_classes(TC::exact, TC::tight, TC::default_));
}

}  // namespace rung::ops
