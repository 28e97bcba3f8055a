// Sinh, Cosh, Tan, Asinh, Acosh and Atanh from exp, log, sqrt, tanh, sin and cos, written so
// that no step cancels: the textbook forms lose all precision near 0 ((e^x - e^-x) / 2 and
// log(1 + u) when the result is tiny) or overflow early. Computed in f32 (an f16 or bf16
// input is widened and the result rounded once); f64 is refused: the formulas (their
// thresholds and the tanh, sin and cos they use, which have f32-like kernels only) are f32's.
#include <cmath>

#include "onnx/handlers.h"

namespace rung::onnx_import {
namespace {

using V = std::optional<Value>;

// Emitters that pass a failure (nullopt) on, so a formula reads as one expression.
struct F {
  NodeCtx& c;
  V k(double v) { return c.scalar(DType::f32, v); }
  V u(const char* op, const V& a) { return a ? c.op(op, {*a}) : V{}; }
  V b(const char* op, const V& a, const V& x) { return a && x ? c.op(op, {*a, *x}) : V{}; }
  V where(const V& cond, const V& a, const V& x) { return cond && a && x ? c.op("where", {*cond, *a, *x}) : V{}; }
  // -r where x < 0, else r: the odd functions from their value at |x|.
  V odd(const V& x, const V& r) { return where(b("lt", x, k(0)), u("neg", r), r); }
  // log(1 + u) for u > -1. w = 1 + u rounds, but log(w) * (u / (w - 1)) cancels that rounding
  // (w - 1 is exact for w in [0.5, 2]), so the result keeps u's relative precision; past
  // u = 1 log(w) has no cancellation left to fix.
  V log1p(const V& x) {
    V w = b("add", k(1), x);
    V lw = u("log", w);
    V fixed = b("mul", lw, b("div", x, b("sub", w, k(1))));
    return where(b("eq", w, k(1)), x, where(b("gt", x, k(1)), lw, fixed));
  }
  // e^a / 2 for a up to 89.4 (where e^a itself overflows from 88.7): e^(a/2) * (e^(a/2) / 2).
  V half_exp(const V& a) {
    V h = u("exp", b("mul", a, k(0.5)));
    return b("mul", h, b("mul", h, k(0.5)));
  }
};

V sinh_of(F f, const V& x) {
  // |x| < 1: 2t / (1 - t^2) with t = tanh(x / 2), which keeps x's relative precision;
  // 1 <= |x| < 20: (e^x - e^-x) / 2 cancels at most a factor coth(1) = 1.3; beyond, e^-x is
  // below an ulp of e^x.
  V a = f.u("abs", x);
  V t = f.u("tanh", f.b("mul", x, f.k(0.5)));
  V small = f.b("div", f.b("add", t, t), f.b("sub", f.k(1), f.b("mul", t, t)));
  V mid = f.b("mul", f.b("sub", f.u("exp", x), f.u("exp", f.u("neg", x))), f.k(0.5));
  V big = f.odd(x, f.half_exp(a));
  return f.where(f.b("lt", a, f.k(1)), small, f.where(f.b("lt", a, f.k(20)), mid, big));
}

V cosh_of(F f, const V& x) {  // (e^x + e^-x) / 2, no cancellation; e^|x| / 2 beyond 20
  V a = f.u("abs", x);
  V mid = f.b("mul", f.b("add", f.u("exp", a), f.u("exp", f.u("neg", a))), f.k(0.5));
  return f.where(f.b("lt", a, f.k(20)), mid, f.half_exp(a));
}

V tan_of(F f, const V& x) { return f.b("div", f.u("sin", x), f.u("cos", x)); }

constexpr double kBig = 268435456.0;  // 2^28: past it x^2 + 1 = x^2 and x^2 may overflow
constexpr double kLn2 = 0.69314718055994530942;

V asinh_of(F f, const V& x) {
  // asinh|x| = log1p(|x| + x^2 / (1 + sqrt(x^2 + 1))) (the sum is |x| + sqrt(x^2 + 1) - 1
  // without the subtraction); log|x| + ln 2 for huge |x|; odd.
  V a = f.u("abs", x);
  V a2 = f.b("mul", a, a);
  V s = f.u("sqrt", f.b("add", a2, f.k(1)));
  V r = f.log1p(f.b("add", a, f.b("div", a2, f.b("add", f.k(1), s))));
  V huge = f.b("add", f.u("log", a), f.k(kLn2));
  return f.odd(x, f.where(f.b("gt", a, f.k(kBig)), huge, r));
}

V acosh_of(F f, const V& x) {
  // log1p(d + sqrt(d (x + 1))) with d = x - 1 (exact near 1), so x^2 - 1 never cancels; NaN
  // below 1 (the sqrt of a negative); log x + ln 2 for huge x.
  V d = f.b("sub", x, f.k(1));
  V r = f.log1p(f.b("add", d, f.u("sqrt", f.b("mul", d, f.b("add", x, f.k(1))))));
  V huge = f.b("add", f.u("log", x), f.k(kLn2));
  return f.where(f.b("gt", x, f.k(kBig)), huge, r);
}

V atanh_of(F f, const V& x) {  // log1p(2|x| / (1 - |x|)) / 2, odd; 1 - |x| is exact near 1
  V a = f.u("abs", x);
  V r = f.b("mul", f.log1p(f.b("div", f.b("add", a, a), f.b("sub", f.k(1), a))), f.k(0.5));
  return f.odd(x, r);
}

bool trig(NodeCtx& c, V (*fn)(F, const V&)) {
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  DType dt = x.type.dtype;
  if (dt == DType::f64)
    return c.fail("I0005", c.node().op_type() + " of " + x.type.to_string() + ": these formulas are written for f32 (rung's tanh, sin and cos have no f64 kernels)");
  if (dt != DType::f32 && dt != DType::f16 && dt != DType::bf16)
    return c.fail("I0005", c.node().op_type() + " of " + x.type.to_string() + " (floats only)");
  V wide = cast_to(c, x, DType::f32);
  V y = wide ? fn(F{c}, wide) : V{};
  return y && out0(c, cast_to(c, *y, dt));
}

}  // namespace

void add_trig_handlers(std::vector<Handler>& h) {
  h.push_back({"Sinh", 9, kMaxOpset, [](NodeCtx& c) { return trig(c, sinh_of); },
               "tanh-based below |x| = 1, exp, sub, mul beyond (in f32)"});
  h.push_back({"Cosh", 9, kMaxOpset, [](NodeCtx& c) { return trig(c, cosh_of); }, "exp, add, mul (in f32)"});
  h.push_back({"Tan", 7, kMaxOpset, [](NodeCtx& c) { return trig(c, tan_of); }, "sin, cos, div (in f32)"});
  h.push_back({"Asinh", 9, kMaxOpset, [](NodeCtx& c) { return trig(c, asinh_of); }, "sqrt, div, add, log1p from log, where (in f32)"});
  h.push_back({"Acosh", 9, kMaxOpset, [](NodeCtx& c) { return trig(c, acosh_of); }, "sub, mul, sqrt, log1p from log, where (in f32)"});
  h.push_back({"Atanh", 9, kMaxOpset, [](NodeCtx& c) { return trig(c, atanh_of); }, "div, log1p from log, mul, where (in f32)"});
}

}  // namespace rung::onnx_import
