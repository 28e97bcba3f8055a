// Elementwise ONNX ops: 1:1 onto rung's elementwise and compare ops, and the activations
// that decompose onto them, each spelled as the ONNX reference computes it (the same order
// of roundings), so an exact tier reproduces the reference's arithmetic.
#include <algorithm>
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

// x^e for an integer base x (i32 / i64) and an integer exponent e of any integer dtype, in
// the base's two's complement arithmetic: binary exponentiation over the bits of e, each
// product wrapping as rung's integer mul does (numpy's integer power wraps the same way).
// `bits` is the number of magnitude bits of e to walk (its dtype's, or fewer when e is known).
// A negative exponent has no integer power; rung defines x^e = trunc(1 / x^|e|) there: 1 for
// x = 1, +-1 for x = -1 (by the parity of e), and 0 otherwise, 0^e included (as rung's x / 0
// is 0 for integers; ONNX Runtime's double pow gives inf and an undefined cast).
V integer_power(NodeCtx& c, const Value& x, const Value& e, int bits) {
  DType xt = x.type.dtype;
  bool is_signed = dtype_info(e.type.dtype).is_signed;
  V neg = is_signed ? c.op("lt", {e, k(c, e, 0)}) : V{};
  if (is_signed && !neg) return std::nullopt;
  V rest = is_signed ? c.op("where", {*neg, k(c, e, 0), e}) : V{e};  // walk |e| only where e >= 0
  V r = c.scalar(xt, 1), b = x;
  bits = std::max(bits, 1);  // one step at least: it gives r the broadcast shape of x and e
  for (int i = 0; i < bits && r && rest && b; ++i) {
    V bit = c.op("remainder", {*rest, k(c, e, 2)});
    V odd = bit ? c.op("ne", {*bit, k(c, e, 0)}) : V{};
    V rb = c.op("mul", {*r, *b});
    r = odd && rb ? c.op("where", {*odd, *rb, *r}) : V{};
    if (i + 1 < bits) {
      b = c.op("mul", {*b, *b});
      rest = c.op("div", {*rest, k(c, e, 2)});
    }
  }
  if (!is_signed || !r) return r;
  // e < 0: 1 where x == 1, +-1 where x == -1, else 0.
  V rem = c.op("remainder", {e, k(c, e, 2)});
  V odd_e = rem ? c.op("ne", {*rem, k(c, e, 0)}) : V{};
  V m1 = odd_e ? c.op("where", {*odd_e, c.scalar(xt, -1), c.scalar(xt, 1)}) : V{};
  V is_m1 = c.op("eq", {x, c.scalar(xt, -1)}), is_1 = c.op("eq", {x, c.scalar(xt, 1)});
  V inv = is_m1 && m1 ? c.op("where", {*is_m1, *m1, c.scalar(xt, 0)}) : V{};
  inv = inv && is_1 ? c.op("where", {*is_1, c.scalar(xt, 1), *inv}) : V{};
  return inv ? c.op("where", {*neg, *inv, *r}) : V{};
}

// The magnitude bits an integer exponent needs: its dtype's, or the widest known |value|'s.
int exponent_bits(NodeCtx& c, const Value& e) {
  const auto& info = dtype_info(e.type.dtype);
  int bits = static_cast<int>(info.block_bytes) * 8 - (info.is_signed ? 1 : 0);
  if (!e.known) return bits;
  auto vals = c.known_reals(e, "the exponent");
  if (!vals || vals->size() != e.known->numel()) return bits;
  double top = 0;
  for (double v : *vals) top = std::max(top, std::fabs(v));
  int need = 0;
  while (need < bits && std::ldexp(1.0, need) <= top) ++need;
  return need;
}

// Pow. Same float dtypes: rung's pow. A float base with an exponent of another type: the
// exponent is converted to f32 where that is exact (f16, bf16, 8- and 16-bit integers always;
// wider integers when known at import with |e| <= 2^24, else I0012 asks to bind it), an
// f16/bf16 base widened to f32 for the pow and rounded once back (what pow on f16 does itself). An integer base (i32 / i64) with an
// integer exponent: integer_power above; with a float exponent: only a known, integral one
// (I0012 to bind it, I0005 when a value is not an integer), then the same integer power.
bool pow_h(NodeCtx& c) {
  if (!need(c, 2)) return false;
  Value x = c.in(0), y = c.in(1);
  DType xt = x.type.dtype, yt = y.type.dtype;
  const auto &xi = dtype_info(xt), &yi = dtype_info(yt);
  auto refuse = [&](const std::string& why) {
    return c.fail("I0005", "Pow with base " + x.type.to_string() + " and exponent " + y.type.to_string() + ": " + why);
  };
  if (xt == DType::boolean || yt == DType::boolean) return refuse("bool operands");
  if (xi.is_float && xt == yt) return out0(c, c.op("pow", {x, y}));
  if (xi.is_float) {
    if (xt == DType::f64) return refuse("rung's pow has no f64 kernel");
    if (yt == DType::f64) return refuse("an f64 exponent has no exact f32 form");
    bool narrow = yi.is_float || yi.block_bytes <= 2;  // f16 / bf16 / f32, |e| <= 65535: exact in f32
    if (!narrow) {
      if (!y.known) return c.not_known(y, "the exponent (a " + std::string(dtype_name(yt)) +
                                              " exponent of a float base is converted to f32 only when known to lie within +-2^24)");
      auto vals = c.known_reals(y, "the exponent");
      if (!vals) return false;
      if (vals->size() != y.known->numel()) return refuse("the exponent is too large to inspect at import");
      for (double v : *vals)
        if (!(std::fabs(v) <= 16777216.0)) return refuse("an exponent of magnitude above 2^24 has no exact f32 form");
    }
    V xf = cast_to(c, x, DType::f32), yf = cast_to(c, y, DType::f32);
    V p = xf && yf ? c.op("pow", {*xf, *yf}) : V{};
    return out0(c, p ? cast_to(c, *p, xt) : V{});
  }
  if (xt != DType::i32 && xt != DType::i64) return refuse("an integer base must be int32 or int64 (ONNX's Pow)");
  if (yi.is_float) {
    if (!y.known) return c.not_known(y, "the float exponent of an integer base (exact only for known integral values)");
    auto vals = c.known_reals(y, "the exponent");
    if (!vals) return false;
    if (vals->size() != y.known->numel()) return refuse("the exponent is too large to inspect at import");
    ops::HostTensor e(DType::i64, y.known->shape());
    for (std::size_t i = 0; i < vals->size(); ++i) {
      double v = (*vals)[i];
      if (!(std::fabs(v) <= 9.0e18) || std::trunc(v) != v)
        return refuse("the exponent " + std::to_string(v) + " is not an integer; an integer power of it is not exact");
      e.store_int(i, static_cast<std::uint64_t>(static_cast<std::int64_t>(v)));
    }
    y = c.constant(std::move(e));
  }
  return out0(c, integer_power(c, x, y, exponent_bits(c, y)));
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
  u("Pow", 7, pow_h, "pow (an integer exponent cast to f32 where exact); integer bases: remainder, div, mul, where (binary exponentiation)");
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
