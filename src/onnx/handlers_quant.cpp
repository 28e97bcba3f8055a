// Affine 8-bit quantization (QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear) and the
// integer products (MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv), composed of rung's
// elementwise ops, casts, matmul and conv. (The registry's quantize / dequantize are the q8_0 /
// q4_0 block formats, a different thing.)
//
// Quantizing is y = cast(clamp(round(x / scale) + zp, qmin, qmax)): one f32 division, round
// half to even, + zp (exact: an integer-valued f32 plus one of [-128, 255]; past 2^24 the clamp
// decides whatever the rounding), so the final cast to u8 / i8 is of an integer in range.
//
// Integer products: the operands minus their zero points are integers in [-255, 255], so one
// product has magnitude at most 65025 and a sum of K of them at most K * 65025. Every partial
// sum of the fma chain (in any order) is then an integer below that bound, exact in f32 while
// K * 65025 < 2^24 (K <= 258) and in f64 while < 2^53; the int32 result cannot overflow while
// K * 65025 <= 2^31 - 1 (K <= 33025). So the handlers multiply in f32 up to K = 258, in f64 up
// to 33025, and refuse a longer reduction (I0005): within the bound the result is the exact
// integer ONNX defines.
//
// The QLinear forms requantize as the ONNX reference does: the accumulator (an integer, exact
// in f64) times the f32 scale fl(fl(a_scale * b_scale) / y_scale), in binary64, plus y_zp,
// rounded half to even, clamped. QLinearConv's int32 bias is added to the accumulator with
// int32 wrap-around (through i64, exact), as an int32 accumulator would.
#include <algorithm>
#include <cmath>

#include "onnx/handlers.h"

namespace rung::onnx_import {
namespace {

using V = std::optional<Value>;
using Ints = std::vector<std::int64_t>;

constexpr std::uint64_t kMaxExactF32 = 258;  // 258 * 65025 < 2^24
constexpr std::uint64_t kMaxExactI32 = 33025;  // 33025 * 65025 <= 2^31 - 1 (and < 2^53)

bool is_q8(DType t) { return t == DType::u8 || t == DType::i8; }
double qmin(DType t) { return t == DType::i8 ? -128.0 : 0.0; }
double qmax(DType t) { return t == DType::i8 ? 127.0 : 255.0; }

// The compute type for a reduction of length K (see the top), or nullopt after I0005.
std::optional<DType> accumulate_type(NodeCtx& c, std::uint64_t k) {
  if (k <= kMaxExactF32) return DType::f32;
  if (k <= kMaxExactI32) return DType::f64;
  c.fail("I0005", "a reduction over " + std::to_string(k) + " products: the exact int32 result is only guaranteed up to " +
                      std::to_string(kMaxExactI32) + " (|a - a_zp| * |b - b_zp| <= 65025 each)");
  return std::nullopt;
}

// A scale or zero point: a scalar (or a 1-element 1-D tensor, taken as one) stays rank 0; a 1-D
// [n] is per-axis and is reshaped to rank `rank` with n at `axis` and 1 elsewhere. `n` must be
// the dim it runs along, `along` (I0005 otherwise).
V per_axis(NodeCtx& c, const Value& v, std::size_t rank, std::size_t axis, const Dim& along, const std::string& what) {
  if (v.rank() == 0) return v;
  if (v.rank() != 1) {
    c.fail("I0005", what + " must be a scalar or 1-D, got " + v.type.to_string());
    return std::nullopt;
  }
  const Dim& n = v.type.shape[0];
  if (n.is_static() && n.extent() == 1) return reshape_to(c, v, {});
  if (n != along) {
    c.fail("I0005", what + " " + v.type.to_string() + " must have one element or " + along.to_string() + " (axis " +
                        std::to_string(axis) + ")");
    return std::nullopt;
  }
  Shape s(rank, Dim::fixed(1));
  s[axis] = n;
  return reshape_to(c, v, s);
}

// A per-tensor operand: a scalar or a 1-element tensor, as rank 0.
V scalar_of(NodeCtx& c, const Value& v, const std::string& what) {
  auto n = v.type.element_count();
  if (v.rank() > 1 || !n || *n != 1) {
    c.fail("I0005", what + " must be a scalar (per-tensor), got " + v.type.to_string());
    return std::nullopt;
  }
  return reshape_to(c, v, {});
}

bool check_scale(NodeCtx& c, const Value& s, const std::string& what) {
  if (s.type.dtype == DType::f32) return true;
  return c.fail("I0005", what + " must be float32, got " + s.type.to_string());
}

// round(v), + zp (f-typed, optional), clamped to qt's range, cast to qt.
V saturate(NodeCtx& c, const Value& v, const V& zp, DType qt) {
  V r = c.op("round", {v});
  if (r && zp) r = c.op("add", {*r, *zp});
  if (r) r = c.op("clamp", {*r}, {{"min", AttrValue(qmin(qt))}, {"max", AttrValue(qmax(qt))}});
  return r ? cast_to(c, *r, qt) : V{};
}

// q - zp in `ct` (zp already shaped; none: q itself).
V centered(NodeCtx& c, const Value& q, const V& zp, DType ct) {
  V qf = cast_to(c, q, ct);
  if (!qf || !zp) return qf;
  V zf = cast_to(c, *zp, ct);
  return zf ? c.op("sub", {*qf, *zf}) : V{};
}

// ---- QuantizeLinear / DequantizeLinear ---------------------------------------------------

// The axis a scale / zero point runs along (opset 13; before, both are per tensor). It is
// resolved against x only for a per-axis operand: per tensor, ONNX ignores it.
std::int64_t quant_axis(NodeCtx& c) { return c.opset() >= 13 ? c.attr_int("axis", 1) : 1; }

bool per_tensor(const Value& v) {
  auto n = v.type.element_count();
  return v.rank() <= 1 && n && *n == 1;
}

V shaped(NodeCtx& c, const Value& v, const Value& x, std::int64_t axis, const std::string& what) {
  if (x.rank() == 0 || c.opset() < 13 || per_tensor(v)) return scalar_of(c, v, what);
  auto ax = c.axis(axis, x.rank(), "axis");
  if (!ax) return std::nullopt;
  auto a = static_cast<std::size_t>(*ax);
  return per_axis(c, v, x.rank(), a, x.type.shape[a], what);
}

bool quantize_linear(NodeCtx& c) {
  if (!need(c, 2)) return false;
  const Value &x = c.in(0), &scale = c.in(1);
  if (x.type.dtype != DType::f32)
    return c.fail("I0005", "QuantizeLinear of " + x.type.to_string() +
                               " (float32 only: for int32 x ONNX Runtime divides after an f32 conversion, numpy in f64)");
  if (!check_scale(c, scale, "y_scale")) return false;
  DType qt = c.has(2) ? c.in(2).type.dtype : DType::u8;
  if (!is_q8(qt)) return c.fail("I0005", "y_zero_point must be uint8 or int8, got " + c.in(2).type.to_string());
  std::int64_t axis = quant_axis(c);
  if (c.attr_error()) return false;
  V s = shaped(c, scale, x, axis, "y_scale");
  V zp = c.has(2) && s ? shaped(c, c.in(2), x, axis, "y_zero_point") : V{};
  if (!s || (c.has(2) && !zp)) return false;
  V zf = zp ? cast_to(c, *zp, DType::f32) : V{};
  if (zp && !zf) return false;
  V q = c.op("div", {x, *s});
  return out0(c, q ? saturate(c, *q, zf, qt) : V{});
}

bool dequantize_linear(NodeCtx& c) {  // (f32(x) - f32(zp)) * scale
  if (!need(c, 2)) return false;
  const Value &x = c.in(0), &scale = c.in(1);
  DType xt = x.type.dtype;
  if (!is_q8(xt) && xt != DType::i32) return c.fail("I0005", "DequantizeLinear of " + x.type.to_string() + " (uint8, int8 or int32)");
  if (!check_scale(c, scale, "x_scale")) return false;
  if (c.has(2) && c.in(2).type.dtype != xt)
    return c.fail("I0005", "x_zero_point " + c.in(2).type.to_string() + " must have x's type " + std::string(dtype_name(xt)));
  std::int64_t axis = quant_axis(c);
  if (c.attr_error()) return false;
  V s = shaped(c, scale, x, axis, "x_scale");
  V zp = c.has(2) && s ? shaped(c, c.in(2), x, axis, "x_zero_point") : V{};
  if (!s || (c.has(2) && !zp)) return false;
  V d = centered(c, x, zp, DType::f32);
  return out0(c, d ? c.op("mul", {*d, *s}) : V{});
}

// ONNX's function body, op for op (its _expanded test must give the same bits):
// scale = (max(max(x), 0) - min(min(x), 0)) / 255, zp = cast(round(clip(0 - min / scale, 0, 255))),
// y = QuantizeLinear(x, scale, zp).
bool dynamic_quantize_linear(NodeCtx& c) {
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  if (x.type.dtype != DType::f32) return c.fail("I0005", "DynamicQuantizeLinear of " + x.type.to_string() + " (float32 only)");
  Ints all;
  for (std::size_t i = 0; i < x.rank(); ++i) all.push_back(static_cast<std::int64_t>(i));
  AttrMap red{{"axes", AttrValue(all)}, {"keepdims", AttrValue(false)}};
  Value zero = c.scalar(DType::f32, 0), top = c.scalar(DType::f32, 255);
  V mn = c.op("min", {x}, red), mx = c.op("max", {x}, red);
  V lo = mn ? c.op("minimum", {*mn, zero}) : V{};
  V hi = mx ? c.op("maximum", {*mx, zero}) : V{};
  V range = lo && hi ? c.op("sub", {*hi, *lo}) : V{};
  V scale = range ? c.op("div", {*range, top}) : V{};
  V ms = scale ? c.op("div", {*lo, *scale}) : V{};
  V z0 = ms ? c.op("sub", {zero, *ms}) : V{};
  V zc = z0 ? c.op("maximum", {*z0, zero}) : V{};
  if (zc) zc = c.op("minimum", {*zc, top});
  V zr = zc ? c.op("round", {*zc}) : V{};
  V zp = zr ? cast_to(c, *zr, DType::u8) : V{};
  V zf = zp ? cast_to(c, *zp, DType::f32) : V{};
  V q = scale ? c.op("div", {x, *scale}) : V{};
  V y = q && zf ? saturate(c, *q, zf, DType::u8) : V{};
  if (!y) return false;
  c.set(0, *y);
  c.set(1, *scale);
  c.set(2, *zp);
  return true;
}

// ---- integer matmul ----------------------------------------------------------------------

bool check_q8(NodeCtx& c, const Value& q, const std::string& what) {
  if (is_q8(q.type.dtype)) return true;
  return c.fail("I0005", what + " must be uint8 or int8, got " + q.type.to_string());
}

bool check_zp(NodeCtx& c, const Value& zp, const Value& q, const std::string& what) {
  if (zp.type.dtype == q.type.dtype) return true;
  return c.fail("I0005", what + " " + zp.type.to_string() + " must have its operand's type " + std::string(dtype_name(q.type.dtype)));
}

// An N-D zero point or scale of q's rank with q's dims but a 1 at `one`: it broadcasts as it is.
bool full_rank_form(const Value& v, const Value& q, std::size_t one) {
  if (v.rank() != q.rank() || q.rank() < 2) return false;
  for (std::size_t i = 0; i < q.rank(); ++i)
    if (!(i == one ? v.type.shape[i] == Dim::fixed(1) : v.type.shape[i] == q.type.shape[i])) return false;
  return true;
}

// A's zero point (or scale): per-tensor, 1-D [M] per row of A [..., M, K] (as [M, 1]), or
// [..., M, 1].
V row_zp(NodeCtx& c, const Value& zp, const Value& a, const std::string& what) {
  if (a.rank() < 2) return scalar_of(c, zp, what);
  if (full_rank_form(zp, a, a.rank() - 1)) return zp;
  return per_axis(c, zp, 2, 0, a.type.shape[a.rank() - 2], what);
}

// B's zero point (or scale): per-tensor, 1-D [N] per column of B [..., K, N], or [..., 1, N].
V col_zp(NodeCtx& c, const Value& zp, const Value& b, const std::string& what) {
  if (b.rank() < 2) return scalar_of(c, zp, what);
  if (full_rank_form(zp, b, b.rank() - 2)) return zp;
  return per_axis(c, zp, 1, 0, b.type.shape[b.rank() - 1], what);
}

// The reduction length K of A [..., K] (static).
std::optional<std::uint64_t> inner_extent(NodeCtx& c, const Value& a) {
  if (a.rank() == 0) {
    c.fail("I0005", "a matrix product of a scalar");
    return std::nullopt;
  }
  const Dim& k = a.type.shape[a.rank() - 1];
  if (!k.is_static()) {
    c.fail("I0012", "the reduction dim of " + a.type.to_string() + " must be static (it decides the exact accumulation type)");
    return std::nullopt;
  }
  return k.extent();
}

// (a - a_zp) @ (b - b_zp), exact, in the compute type; `ct` gets it.
V integer_matmul(NodeCtx& c, const Value& a, const V& azp, const Value& b, const V& bzp, DType& ct) {
  auto k = inner_extent(c, a);
  if (!k) return std::nullopt;
  auto t = accumulate_type(c, *k);
  if (!t) return std::nullopt;
  ct = *t;
  V af = centered(c, a, azp, ct), bf = centered(c, b, bzp, ct);
  return af && bf ? matmul_of(c, *af, *bf) : V{};
}

bool matmul_integer(NodeCtx& c) {
  if (!need(c, 2)) return false;
  const Value &a = c.in(0), &b = c.in(1);
  if (!check_q8(c, a, "A") || !check_q8(c, b, "B")) return false;
  V azp, bzp;
  if (c.has(2) && (!check_zp(c, c.in(2), a, "a_zero_point") || !(azp = row_zp(c, c.in(2), a, "a_zero_point")))) return false;
  if (c.has(3) && (!check_zp(c, c.in(3), b, "b_zero_point") || !(bzp = col_zp(c, c.in(3), b, "b_zero_point")))) return false;
  DType ct = DType::f32;
  V y = integer_matmul(c, a, azp, b, bzp, ct);
  return out0(c, y ? cast_to(c, *y, DType::i32) : V{});
}

// acc (exact integers in f32 / f64) * scale (f32) + y_zp in binary64, rounded, clamped, cast.
V requantize(NodeCtx& c, const Value& acc, const Value& scale, const Value& yzp) {
  DType qt = yzp.type.dtype;
  V a = cast_to(c, acc, DType::f64), s = cast_to(c, scale, DType::f64), z = cast_to(c, yzp, DType::f64);
  V p = a && s ? c.op("mul", {*a, *s}) : V{};
  V sum = p && z ? c.op("add", {*p, *z}) : V{};  // the reference adds y_zp before rounding
  return sum ? saturate(c, *sum, std::nullopt, qt) : V{};
}

// fl(fl(sa * sb) / sy), the f32 scale the ONNX reference multiplies by.
V combined_scale(NodeCtx& c, const Value& sa, const Value& sb, const Value& sy) {
  V m = c.op("mul", {sa, sb});
  return m ? c.op("div", {*m, sy}) : V{};
}

bool qlinear_matmul(NodeCtx& c) {
  if (!need(c, 8)) return false;
  const Value &a = c.in(0), &b = c.in(3);
  if (!check_q8(c, a, "a") || !check_q8(c, b, "b") || !check_q8(c, c.in(7), "y_zero_point")) return false;
  if (!check_zp(c, c.in(2), a, "a_zero_point") || !check_zp(c, c.in(5), b, "b_zero_point")) return false;
  if (!check_scale(c, c.in(1), "a_scale") || !check_scale(c, c.in(4), "b_scale") || !check_scale(c, c.in(6), "y_scale")) return false;
  V azp = row_zp(c, c.in(2), a, "a_zero_point"), bzp = col_zp(c, c.in(5), b, "b_zero_point");
  V sa = row_zp(c, c.in(1), a, "a_scale"), sb = col_zp(c, c.in(4), b, "b_scale");
  V sy = scalar_of(c, c.in(6), "y_scale"), yzp = scalar_of(c, c.in(7), "y_zero_point");
  if (!azp || !bzp || !sa || !sb || !sy || !yzp) return false;
  DType ct = DType::f32;
  V acc = integer_matmul(c, a, azp, b, bzp, ct);
  V s = combined_scale(c, *sa, *sb, *sy);
  return out0(c, acc && s ? requantize(c, *acc, *s, *yzp) : V{});
}

// ---- integer convolution -----------------------------------------------------------------

// The reduction length of w [M, C/group, k...]: the product of its dims after the first.
std::optional<std::uint64_t> conv_reduction(NodeCtx& c, const Value& w) {
  if (w.rank() < 3) {
    c.fail("I0005", "the weights must be [M, C/group, k...], got " + w.type.to_string());
    return std::nullopt;
  }
  std::uint64_t k = 1;
  for (std::size_t i = 1; i < w.rank(); ++i) {
    const Dim& d = w.type.shape[i];
    if (!d.is_static()) {
      c.fail("I0012", "the weights' dims must be static, got " + w.type.to_string());
      return std::nullopt;
    }
    if (d.extent() == 0) return 0;
    if (d.extent() > kMaxExactI32 || k * d.extent() > kMaxExactI32) {  // k <= 33025 here: no overflow
      c.fail("I0005", "the weights " + w.type.to_string() + " reduce over more than " + std::to_string(kMaxExactI32) +
                          " products: the exact int32 result is only guaranteed up to there (|x - x_zp| * |w - w_zp| <= 65025 each)");
      return std::nullopt;
    }
    k *= d.extent();
  }
  return k;
}

// conv(x - x_zp, w - w_zp), exact, in the compute type. x_zp is per-tensor; w_zp per-tensor or
// [M] per output channel.
V integer_conv(NodeCtx& c, const Value& x, const V& xzp_in, const Value& w, const V& wzp_in) {
  if (!check_q8(c, x, "x") || !check_q8(c, w, "w")) return std::nullopt;
  auto k = conv_reduction(c, w);
  if (!k) return std::nullopt;
  auto ct = accumulate_type(c, *k);
  if (!ct) return std::nullopt;
  V xzp, wzp;
  if (xzp_in && (!check_zp(c, *xzp_in, x, "x_zero_point") || !(xzp = scalar_of(c, *xzp_in, "x_zero_point")))) return std::nullopt;
  if (wzp_in && (!check_zp(c, *wzp_in, w, "w_zero_point") ||
                 !(wzp = per_axis(c, *wzp_in, w.rank(), 0, w.type.shape[0], "w_zero_point"))))
    return std::nullopt;
  V xf = centered(c, x, xzp, *ct), wf = centered(c, w, wzp, *ct);
  return xf && wf ? conv_of(c, {*xf, *wf}) : V{};
}

bool conv_integer(NodeCtx& c) {
  if (!need(c, 2)) return false;
  V xzp = c.has(2) ? V{c.in(2)} : V{}, wzp = c.has(3) ? V{c.in(3)} : V{};
  V y = integer_conv(c, c.in(0), xzp, c.in(1), wzp);
  return out0(c, y ? cast_to(c, *y, DType::i32) : V{});
}

bool qlinear_conv(NodeCtx& c) {
  if (!need(c, 8)) return false;
  const Value &x = c.in(0), &w = c.in(3);
  if (!check_q8(c, c.in(7), "y_zero_point")) return false;
  if (!check_scale(c, c.in(1), "x_scale") || !check_scale(c, c.in(4), "w_scale") || !check_scale(c, c.in(6), "y_scale")) return false;
  V acc = integer_conv(c, x, c.in(2), w, c.in(5));
  if (!acc) return false;
  // Per output channel operands against acc [N, M, spatial...]: [M] -> [M, 1, ...].
  std::size_t r = acc->rank();
  V sx = scalar_of(c, c.in(1), "x_scale"), sy = scalar_of(c, c.in(6), "y_scale"), yzp = scalar_of(c, c.in(7), "y_zero_point");
  V sw = per_axis(c, c.in(4), r - 1, 0, w.type.shape[0], "w_scale");
  if (!sx || !sy || !yzp || !sw) return false;
  V a = cast_to(c, *acc, DType::f64);
  if (a && c.has(8)) {
    const Value& bias = c.in(8);
    if (bias.type.dtype != DType::i32 || bias.rank() != 1 || bias.type.shape[0] != w.type.shape[0])
      return c.fail("I0005", "B must be int32[" + w.type.shape[0].to_string() + "], got " + bias.type.to_string());
    Shape bs(r - 1, Dim::fixed(1));
    bs[0] = bias.type.shape[0];
    V b = reshape_to(c, bias, bs);
    V bf = b ? cast_to(c, *b, DType::f64) : V{};
    V sum = bf ? c.op("add", {*a, *bf}) : V{};                 // exact: |sum| < 2^32
    V wide = sum ? cast_to(c, *sum, DType::i64) : V{};          // exact
    V wrapped = wide ? cast_to(c, *wide, DType::i32) : V{};     // int32 wrap-around
    a = wrapped ? cast_to(c, *wrapped, DType::f64) : V{};
  }
  V s = combined_scale(c, *sx, *sw, *sy);
  return out0(c, a && s ? requantize(c, *a, *s, *yzp) : V{});
}

}  // namespace

void add_quant_handlers(std::vector<Handler>& h) {
  h.push_back({"QuantizeLinear", 10, kMaxOpset, quantize_linear, "div, round, add, clamp, cast (per tensor; per axis from opset 13)"});
  h.push_back({"DequantizeLinear", 10, kMaxOpset, dequantize_linear, "cast, sub, mul (per tensor; per axis from opset 13)"});
  h.push_back({"DynamicQuantizeLinear", 11, kMaxOpset, dynamic_quantize_linear, "min, max, minimum, maximum, sub, div, round, clamp, cast"});
  h.push_back({"MatMulInteger", 10, kMaxOpset, matmul_integer, "cast, sub, matmul (exact in f32 / f64 up to K = 33025), cast to int32"});
  h.push_back({"ConvInteger", 10, kMaxOpset, conv_integer, "cast, sub, conv (exact in f32 / f64 up to C/group * k = 33025), cast to int32"});
  h.push_back({"QLinearMatMul", 10, kMaxOpset, qlinear_matmul, "MatMulInteger's exact product, then mul, add, round, clamp, cast in f64"});
  h.push_back({"QLinearConv", 10, kMaxOpset, qlinear_conv, "ConvInteger's exact product (+ int32 bias, wrapping), then mul, add, round, clamp, cast in f64"});
}

}  // namespace rung::onnx_import
