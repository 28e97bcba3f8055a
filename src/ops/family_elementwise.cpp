// Elementwise arithmetic and transcendental ops (ids 100-199). Each op is its scalar
// formula from numerics/elementwise.h plus broadcasting; see docs/semantics.md for the
// definitions and NaN/±0/inf rules.
#include <limits>

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

// clamp(x; min, max) = minimum(maximum(x, min), max) with the bounds rounded to the compute
// type; NaN stays NaN; min > max gives max (the order of the definition).
void clamp_kernel(KernelContext& c) {
  const HostTensor& x = c.inputs[0];
  HostTensor& y = c.outputs[0];
  double lo = c.attrs.real("min"), hi = c.attrs.real("max");
  if (x.dtype() == DType::f64) {
    for (std::uint64_t i = 0; i < x.numel(); ++i)
      y.set_raw<double>(i, num::Minimum{}(num::Maximum{}(x.raw<double>(i), lo), hi));
  } else {
    auto flo = static_cast<float>(lo), fhi = static_cast<float>(hi);
    for (std::uint64_t i = 0; i < x.numel(); ++i) y.store_f32(i, num::Minimum{}(num::Maximum{}(x.load_f32(i), flo), fhi));
  }
}

void gelu_kernel(KernelContext& c) {
  if (c.attrs.string("approximate") == "tanh") unary_kernel<num::GeluTanh>(c);
  else unary_kernel<num::GeluErf>(c);
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
  r.add(binary("remainder", 106, kNumeric,
               "a % b: truncated remainder with a's sign (fmod for floats); integers: x % 0 = x",
               binary_kernel<num::Rem>));
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
  r.add(unary("floor", 140, kFloat, "largest integer <= x (exact; the sign of x kept: floor(-0) = -0)",
               unary_kernel<num::Floor>));
  r.add(unary("ceil", 141, kFloat, "smallest integer >= x (exact; ceil(-0.5) = -0)", unary_kernel<num::Ceil>));
  r.add(unary("round", 142, kFloat, "nearest integer, halves to even (exact; round(-0.5) = -0)", unary_kernel<num::Round>));

  // rung's own transcendentals: bit-exact in debug, within their class elsewhere.
  r.add(unary("exp", 130, kFloat, "e^x (rung's algorithms for f32 and f64; docs/semantics.md)", unary_kernel<num::Exp>)
            .tolerance_classes(TC::exact, TC::tight, TC::default_));
  r.add(unary("log", 131, kFloat, "natural logarithm (rung's algorithms for f32 and f64)", unary_kernel<num::Log>)
            .tolerance_classes(TC::exact, TC::tight, TC::default_));
  r.add(unary("sin", 132, kFloat32Like, "sine (rung's algorithm, exact reduction for every input)", unary_kernel<num::Sin>)
            .tolerance_classes(TC::exact, TC::tight, TC::default_));
  r.add(unary("cos", 133, kFloat32Like, "cosine (rung's algorithm, exact reduction for every input)", unary_kernel<num::Cos>)
            .tolerance_classes(TC::exact, TC::tight, TC::default_));
  r.add(unary("tanh", 134, kFloat32Like, "hyperbolic tangent via expm1", unary_kernel<num::Tanh>)
            .tolerance_classes(TC::exact, TC::tight, TC::default_));
  r.add(unary("sigmoid", 135, kFloat32Like, "1 / (1 + e^-x)", unary_kernel<num::Sigmoid>)
            .tolerance_classes(TC::exact, TC::tight, TC::default_));
  r.add(unary("silu", 136, kFloat32Like, "x / (1 + e^-x)", unary_kernel<num::Silu>)
            .tolerance_classes(TC::exact, TC::tight, TC::default_));
  r.add(unary("erf", 137, kFloat32Like, "error function (series below 2, continued fraction above)", unary_kernel<num::Erf>)
            .tolerance_classes(TC::exact, TC::tight, TC::default_));
  r.add(unary("gelu", 138, kFloat32Like, "0.5 x (1 + erf(x/sqrt 2)), or the tanh approximation", gelu_kernel)
            .choice_attr("approximate", {"none", "tanh"}, "none", "\"tanh\": 0.5 x (1 + tanh(sqrt(2/pi)(x + 0.044715 x^3)))")
            .tolerance_classes(TC::exact, TC::tight, TC::default_));
  r.add(unary("asin", 143, kFloat32Like, "arcsine; NaN outside [-1, 1] (rung's algorithm)", unary_kernel<num::Asin>)
            .tolerance_classes(TC::exact, TC::tight, TC::default_));
  r.add(unary("acos", 144, kFloat32Like, "arccosine; NaN outside [-1, 1] (rung's algorithm)", unary_kernel<num::Acos>)
            .tolerance_classes(TC::exact, TC::tight, TC::default_));
  r.add(unary("atan", 145, kFloat32Like, "arctangent (rung's algorithm)", unary_kernel<num::Atan>)
            .tolerance_classes(TC::exact, TC::tight, TC::default_));
  r.add(binary("pow", 139, kFloat32Like, "x^y with C99/IEEE special cases", binary_kernel<num::Pow>)
            .tolerance_classes(TC::exact, TC::tight, TC::default_));

  r.add(OpDef("clamp", 117)
            .doc("minimum(maximum(x, min), max); NaN stays NaN")
            .type_var("T", kFloat).input("x", "T").output("y", "T")
            .attr("min", -std::numeric_limits<double>::infinity(), "lower bound (rounded to the compute type)")
            .attr("max", std::numeric_limits<double>::infinity(), "upper bound (rounded to the compute type)")
            .shape(rule_same_as_first).kernel(clamp_kernel));
}

}  // namespace rung::ops
