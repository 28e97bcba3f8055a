// Elementwise ONNX ops: 1:1 onto rung's elementwise and compare ops, and the activations
// that decompose onto them, each spelled as the ONNX reference computes it (the same order
// of roundings), so an exact tier reproduces the reference's arithmetic.
#include <cmath>
#include <limits>

#include "onnx/handlers.h"

namespace rung::onnx_import {
namespace {

using V = std::optional<Value>;

bool unary(NodeCtx& c, const char* op) { return need(c, 1) && out0(c, c.op(op, {c.in(0)})); }
bool binary(NodeCtx& c, const char* op) { return need(c, 2) && out0(c, c.op(op, {c.in(0), c.in(1)})); }

// Chains a variadic op left to right: ((x0 op x1) op x2) ...
V chain(NodeCtx& c, const char* op) {
  if (!need(c, 1)) return std::nullopt;
  V acc = c.in(0);
  for (std::size_t i = 1; i < c.input_count() && acc; ++i) {
    if (!c.has(i)) {
      c.fail("I0005", "input " + std::to_string(i) + " is empty");
      return std::nullopt;
    }
    acc = c.op(op, {*acc, c.in(i)});
  }
  return acc;
}

Value k(NodeCtx& c, const Value& like, double v) { return c.scalar(like.type.dtype, v); }

// where(cond(x), then, else) with the pieces computed by the caller.
V select(NodeCtx& c, const V& cond, const V& a, const V& b) {
  if (!cond || !a || !b) return std::nullopt;
  return c.op("where", {*cond, *a, *b});
}

bool leaky_relu(NodeCtx& c) {  // x < 0 ? alpha x : x
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  double alpha = c.attr_float("alpha", 0.01f);
  return out0(c, select(c, c.op("lt", {x, k(c, x, 0)}), c.op("mul", {x, k(c, x, alpha)}), x));
}

bool prelu(NodeCtx& c) {
  if (!need(c, 2)) return false;
  const Value& x = c.in(0);
  return out0(c, select(c, c.op("lt", {x, k(c, x, 0)}), c.op("mul", {x, c.in(1)}), x));
}

bool elu(NodeCtx& c) {  // x < 0 ? (exp(x) - 1) alpha : x
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  double alpha = c.attr_float("alpha", 1.0f);
  V e = c.op("exp", {x});
  V em1 = e ? c.op("sub", {*e, k(c, x, 1)}) : V{};
  V neg = em1 ? c.op("mul", {*em1, k(c, x, alpha)}) : V{};
  return out0(c, select(c, c.op("lt", {x, k(c, x, 0)}), neg, x));
}

bool selu(NodeCtx& c) {  // x > 0 ? gamma x : (alpha exp(x) - alpha) gamma
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  double alpha = c.attr_float("alpha", 1.67326319217681884765625f), gamma = c.attr_float("gamma", 1.05070102214813232421875f);
  V e = c.op("exp", {x});
  V ae = e ? c.op("mul", {*e, k(c, x, alpha)}) : V{};
  V d = ae ? c.op("sub", {*ae, k(c, x, alpha)}) : V{};
  V neg = d ? c.op("mul", {*d, k(c, x, gamma)}) : V{};
  return out0(c, select(c, c.op("gt", {x, k(c, x, 0)}), c.op("mul", {x, k(c, x, gamma)}), neg));
}

bool celu(NodeCtx& c) {  // max(0, x) + min(0, alpha (exp(x / alpha) - 1))
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  double alpha = c.attr_float("alpha", 1.0f);
  V q = c.op("div", {x, k(c, x, alpha)});
  V e = q ? c.op("exp", {*q}) : V{};
  V em1 = e ? c.op("sub", {*e, k(c, x, 1)}) : V{};
  V s = em1 ? c.op("mul", {k(c, x, alpha), *em1}) : V{};
  V lo = s ? c.op("minimum", {k(c, x, 0), *s}) : V{};
  V hi = c.op("maximum", {k(c, x, 0), x});
  return lo && hi && out0(c, c.op("add", {*hi, *lo}));
}

// clip(alpha x + beta, 0, 1), times x for HardSwish.
V hard_sigmoid_of(NodeCtx& c, const Value& x, double alpha, double beta) {
  V ax = c.op("mul", {x, k(c, x, alpha)});
  V s = ax ? c.op("add", {*ax, k(c, x, beta)}) : V{};
  V lo = s ? c.op("maximum", {*s, k(c, x, 0)}) : V{};
  return lo ? c.op("minimum", {*lo, k(c, x, 1)}) : V{};
}

bool hard_sigmoid(NodeCtx& c) {
  if (!need(c, 1)) return false;
  double alpha = c.attr_float("alpha", 0.2f), beta = c.attr_float("beta", 0.5f);
  return out0(c, hard_sigmoid_of(c, c.in(0), alpha, beta));
}

bool hard_swish(NodeCtx& c) {
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  V h = hard_sigmoid_of(c, x, 1.0 / 6.0, 0.5);
  return h && out0(c, c.op("mul", {x, *h}));
}

bool softplus(NodeCtx& c) {  // log(exp(x) + 1)
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  V e = c.op("exp", {x});
  V s = e ? c.op("add", {*e, k(c, x, 1)}) : V{};
  return s && out0(c, c.op("log", {*s}));
}

bool softsign(NodeCtx& c) {  // x / (1 + |x|)
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  V a = c.op("abs", {x});
  V d = a ? c.op("add", {k(c, x, 1), *a}) : V{};
  return d && out0(c, c.op("div", {x, *d}));
}

bool thresholded_relu(NodeCtx& c) {  // x > alpha ? x : 0
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  double alpha = c.attr_float("alpha", 1.0f);
  return out0(c, select(c, c.op("gt", {x, k(c, x, alpha)}), x, k(c, x, 0)));
}

bool shrink(NodeCtx& c) {  // x < -lambd ? x + bias : x > lambd ? x - bias : 0
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  double bias = c.attr_float("bias", 0.0f), lambd = c.attr_float("lambd", 0.5f);
  V hi = select(c, c.op("gt", {x, k(c, x, lambd)}), c.op("sub", {x, k(c, x, bias)}), k(c, x, 0));
  return out0(c, select(c, c.op("lt", {x, k(c, x, -lambd)}), c.op("add", {x, k(c, x, bias)}), hi));
}

bool sign(NodeCtx& c) {  // 1, -1, or x itself (0, -0, NaN)
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  V neg = select(c, c.op("lt", {x, k(c, x, 0)}), k(c, x, -1), x);
  return out0(c, select(c, c.op("gt", {x, k(c, x, 0)}), k(c, x, 1), neg));
}

bool is_nan(NodeCtx& c) { return need(c, 1) && out0(c, c.op("ne", {c.in(0), c.in(0)})); }

bool is_inf(NodeCtx& c) {
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  bool pos = c.attr_int("detect_positive", 1) != 0, neg = c.attr_int("detect_negative", 1) != 0;
  double inf = std::numeric_limits<double>::infinity();
  if (!dtype_info(x.type.dtype).is_float) return c.fail("I0005", "IsInf of " + x.type.to_string() + " (floats only)");
  V p = pos ? c.op("eq", {x, k(c, x, inf)}) : V{};
  V n = neg ? c.op("eq", {x, k(c, x, -inf)}) : V{};
  if (pos && neg) return p && n && out0(c, c.op("logical_or", {*p, *n}));
  if (pos || neg) return out0(c, pos ? p : n);
  V nan = c.op("ne", {x, x}), num = c.op("eq", {x, x});  // never both: all false
  return nan && num && out0(c, c.op("logical_and", {*nan, *num}));
}

bool mod(NodeCtx& c) {
  if (!need(c, 2)) return false;
  const Value &a = c.in(0), &b = c.in(1);
  bool fmod = c.attr_int("fmod", 0) != 0;
  V r = c.op("remainder", {a, b});
  if (fmod || !r) return out0(c, r);
  if (dtype_info(a.type.dtype).is_float) return c.fail("I0005", "fmod = 0 on floats (ONNX requires fmod = 1 there)");
  // Floored: the truncated remainder moves by b where its sign differs from b's.
  V nz = c.op("ne", {*r, k(c, *r, 0)});
  V rn = c.op("lt", {*r, k(c, *r, 0)});
  V bn = c.op("lt", {b, k(c, b, 0)});
  V differ = rn && bn ? c.op("ne", {*rn, *bn}) : V{};
  V fix = nz && differ ? c.op("logical_and", {*nz, *differ}) : V{};
  return out0(c, select(c, fix, c.op("add", {*r, b}), *r));
}

bool pow_h(NodeCtx& c) {
  if (!need(c, 2)) return false;
  Value x = c.in(0), y = c.in(1);
  if (x.type.dtype != y.type.dtype) {
    // An exponent of another type is converted when that is exact (|y| <= 2^24 integers).
    auto vals = y.known ? c.known_reals(y, "the exponent") : std::nullopt;
    bool exact = vals.has_value() && !dtype_info(y.type.dtype).is_float;
    if (exact)
      for (double v : *vals) exact = exact && std::fabs(v) <= 16777216.0;
    if (!exact)
      return c.fail("I0005", "Pow with base " + x.type.to_string() + " and exponent " + y.type.to_string() +
                                 ": rung's pow takes one dtype (a known integer exponent up to 2^24 is converted)");
    auto cy = cast_to(c, y, x.type.dtype);
    if (!cy) return false;
    y = *cy;
  }
  return out0(c, c.op("pow", {x, y}));
}

bool clip6(NodeCtx& c) {
  if (!need(c, 1)) return false;
  V y = c.in(0);
  if (c.has_attr("min")) y = c.op("maximum", {*y, k(c, *y, c.attr_float("min", 0))});
  if (y && c.has_attr("max")) y = c.op("minimum", {*y, k(c, *y, c.attr_float("max", 0))});
  return out0(c, y);
}

bool clip11(NodeCtx& c) {  // minimum(maximum(x, min), max): min > max gives max, as ONNX says
  if (!need(c, 1)) return false;
  V y = c.in(0);
  if (c.has(1)) y = c.op("maximum", {*y, c.in(1)});
  if (y && c.has(2)) y = c.op("minimum", {*y, c.in(2)});
  return out0(c, y);
}

bool mean_h(NodeCtx& c) {
  V s = chain(c, "add");
  return s && out0(c, c.op("div", {*s, k(c, *s, static_cast<double>(c.input_count()))}));
}

}  // namespace

void add_elementwise_handlers(std::vector<Handler>& h) {
  auto u = [&](const char* onnx, int since, HandlerFn fn, const char* how) { h.push_back({onnx, since, kMaxOpset, fn, how}); };
  u("Add", 7, [](NodeCtx& c) { return binary(c, "add"); }, "add");
  u("Sub", 7, [](NodeCtx& c) { return binary(c, "sub"); }, "sub");
  u("Mul", 7, [](NodeCtx& c) { return binary(c, "mul"); }, "mul");
  u("Div", 7, [](NodeCtx& c) { return binary(c, "div"); }, "div");
  u("Pow", 7, pow_h, "pow (a known integer exponent cast to the base's dtype)");
  u("Neg", 6, [](NodeCtx& c) { return unary(c, "neg"); }, "neg");
  u("Abs", 6, [](NodeCtx& c) { return unary(c, "abs"); }, "abs");
  u("Sqrt", 6, [](NodeCtx& c) { return unary(c, "sqrt"); }, "sqrt");
  u("Reciprocal", 6, [](NodeCtx& c) { return unary(c, "reciprocal"); }, "reciprocal");
  u("Relu", 6, [](NodeCtx& c) { return unary(c, "relu"); }, "relu");
  u("Exp", 6, [](NodeCtx& c) { return unary(c, "exp"); }, "exp");
  u("Log", 6, [](NodeCtx& c) { return unary(c, "log"); }, "log");
  u("Sigmoid", 6, [](NodeCtx& c) { return unary(c, "sigmoid"); }, "sigmoid");
  u("Tanh", 6, [](NodeCtx& c) { return unary(c, "tanh"); }, "tanh");
  u("Sin", 7, [](NodeCtx& c) { return unary(c, "sin"); }, "sin");
  u("Cos", 7, [](NodeCtx& c) { return unary(c, "cos"); }, "cos");
  u("Erf", 9, [](NodeCtx& c) { return unary(c, "erf"); }, "erf");
  u("Equal", 7, [](NodeCtx& c) { return binary(c, "eq"); }, "eq");
  u("Less", 7, [](NodeCtx& c) { return binary(c, "lt"); }, "lt");
  u("Greater", 7, [](NodeCtx& c) { return binary(c, "gt"); }, "gt");
  u("LessOrEqual", 12, [](NodeCtx& c) { return binary(c, "le"); }, "le");
  u("GreaterOrEqual", 12, [](NodeCtx& c) { return binary(c, "ge"); }, "ge");
  u("And", 7, [](NodeCtx& c) { return binary(c, "logical_and"); }, "logical_and");
  u("Or", 7, [](NodeCtx& c) { return binary(c, "logical_or"); }, "logical_or");
  u("Xor", 7, [](NodeCtx& c) { return binary(c, "logical_xor"); }, "logical_xor");
  u("Not", 1, [](NodeCtx& c) { return unary(c, "logical_not"); }, "logical_not");
  u("Where", 9, [](NodeCtx& c) { return need(c, 3) && out0(c, c.op("where", {c.in(0), c.in(1), c.in(2)})); }, "where");
  u("Max", 8, [](NodeCtx& c) { return out0(c, chain(c, "maximum")); }, "maximum, chained");
  u("Min", 8, [](NodeCtx& c) { return out0(c, chain(c, "minimum")); }, "minimum, chained");
  u("Sum", 8, [](NodeCtx& c) { return out0(c, chain(c, "add")); }, "add, chained");
  u("Mean", 8, mean_h, "add chained, div by the count");
  u("Mod", 10, mod, "remainder (fmod = 1); remainder, lt, ne, where for the floored integer form");
  h.push_back({"Clip", 6, 10, clip6, "maximum, minimum"});
  u("Clip", 11, clip11, "maximum, minimum");
  u("LeakyRelu", 6, leaky_relu, "lt, mul, where");
  u("PRelu", 7, prelu, "lt, mul, where");
  u("Elu", 6, elu, "exp, sub, mul, lt, where");
  u("Selu", 6, selu, "exp, mul, sub, gt, where");
  u("Celu", 12, celu, "div, exp, sub, mul, minimum, maximum, add");
  u("HardSigmoid", 6, hard_sigmoid, "mul, add, maximum, minimum");
  u("HardSwish", 14, hard_swish, "mul, add, maximum, minimum");
  u("Softplus", 1, softplus, "exp, add, log");
  u("Softsign", 1, softsign, "abs, add, div");
  u("ThresholdedRelu", 10, thresholded_relu, "gt, where");
  u("Shrink", 9, shrink, "lt, gt, add, sub, where");
  u("Sign", 9, sign, "gt, lt, where");
  u("IsNaN", 9, is_nan, "ne(x, x)");
  u("IsInf", 10, is_inf, "eq with +-inf, logical_or");
}

}  // namespace rung::onnx_import
