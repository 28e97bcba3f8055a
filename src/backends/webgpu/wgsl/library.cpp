// The WGSL functions kernels share. WGSL's own min/max/exp/log/sin... leave NaN handling and
// accuracy to the device (exp: 3 + 2|x| ulp, sin: absolute 2^-11), so rung brings its own:
// NaN/±0 rules of docs/semantics.md §2 through bit tests (never `x != x`, which a compiler may
// fold), and f32 transcendentals with Cody–Waite range reduction and minimax polynomials
// (about 1 ulp; the binary64 scheme of the exact path needs f64, which WGSL lacks).
#include <cmath>
#include <map>

#include "backends/webgpu/wgsl/module.h"

namespace rung::webgpu {
namespace {

std::string erf_series_coefficients() {
  // c_n = 2^n / (1*3*...*(2n+1)), Horner from c_28 (docs/semantics.md §8, erf).
  std::string s = "const ERF_C = array<f32, 29>(";
  double c = 1;
  for (int n = 0; n <= 28; ++n) {
    if (n > 0) c = c * 2.0 / (2.0 * n + 1.0);
    s += (n ? ", " : "") + f32_lit(c);
  }
  return s + ");\n";
}

std::map<std::string, LibraryFunction> make_library() {
  std::map<std::string, LibraryFunction> L;
  L["is_nan"] = {{}, R"(// NaN test on the bits (a compiler may assume x == x).
fn is_nan(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }
)"};
  L["canon"] = {{"is_nan"}, R"(// Every output NaN is the canonical quiet NaN 0x7fc00000.
fn canon(x: f32) -> f32 { return select(x, bitcast<f32>(0x7fc00000u), is_nan(x)); }
)"};
  L["fit_f32"] = {{"canon"}, "fn fit_f32(x: f32) -> f32 { return canon(x); }\n"};
  L["round_f16"] = {{}, R"(// Round an f32 to the nearest binary16 value (ties to even, overflow to inf, subnormals
// kept), in integer arithmetic so no device conversion mode is involved.
fn round_f16(x: f32) -> f32 {
  let b = bitcast<u32>(x);
  let sign = b & 0x80000000u;
  let a = b & 0x7fffffffu;
  if (a >= 0x7f800000u) { return x; }
  if (a < 0x38800000u) {  // below 2^-14: a multiple of 2^-24
    if (a < 0x00800000u) { return bitcast<f32>(sign); }
    let e = i32(a >> 23u) - 127;
    let s = u32(-e - 1);  // value = m * 2^(e-23); quantum 2^-24
    if (s >= 25u) { return bitcast<f32>(sign); }
    let m = (a & 0x7fffffu) | 0x800000u;
    var q = m >> s;
    let rem = m & ((1u << s) - 1u);
    let half = 1u << (s - 1u);
    if (rem > half || (rem == half && (q & 1u) == 1u)) { q = q + 1u; }
    return bitcast<f32>(sign | bitcast<u32>(f32(q) * 5.9604644775390625e-8f));
  }
  var q = a >> 13u;
  let rem = a & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (q & 1u) == 1u)) { q = q + 1u; }
  var r = q << 13u;
  if (r >= 0x47800000u) { r = 0x7f800000u; }
  return bitcast<f32>(sign | r);
}
)"};
  L["round_bf16"] = {{}, R"(// Round an f32 to the nearest bfloat16 value (ties to even), in integer arithmetic.
fn round_bf16(x: f32) -> f32 {
  let b = bitcast<u32>(x);
  if ((b & 0x7fffffffu) > 0x7f800000u) { return x; }
  var q = b >> 16u;
  let rem = b & 0xffffu;
  if (rem > 0x8000u || (rem == 0x8000u && (q & 1u) == 1u)) { q = q + 1u; }
  return bitcast<f32>(q << 16u);
}
)"};
  L["fit_f16"] = {{"canon", "round_f16"}, "fn fit_f16(x: f32) -> f32 { return canon(round_f16(x)); }\n"};
  L["fit_bf16"] = {{"canon", "round_bf16"}, "fn fit_bf16(x: f32) -> f32 { return canon(round_bf16(x)); }\n"};
  L["fit_i32"] = {{}, "fn fit_i32(x: i32) -> i32 { return x; }\n"};
  L["fit_i8"] = {{}, "fn fit_i8(x: i32) -> i32 { return (x << 24u) >> 24u; }  // wrap to 8 bits\n"};
  L["fit_i16"] = {{}, "fn fit_i16(x: i32) -> i32 { return (x << 16u) >> 16u; }  // wrap to 16 bits\n"};
  L["fit_u32"] = {{}, "fn fit_u32(x: u32) -> u32 { return x; }\n"};
  L["fit_u8"] = {{}, "fn fit_u8(x: u32) -> u32 { return x & 0xffu; }\n"};
  L["fit_u16"] = {{}, "fn fit_u16(x: u32) -> u32 { return x & 0xffffu; }\n"};
  L["fit_bool"] = {{}, "fn fit_bool(x: u32) -> u32 { return select(0u, 1u, x != 0u); }\n"};
  L["fmax"] = {{"is_nan"}, R"(// maximum: NaN if either is NaN; maximum(-0, +0) = +0 in either order.
fn fmax(a: f32, b: f32) -> f32 {
  if (is_nan(a) || is_nan(b)) { return bitcast<f32>(0x7fc00000u); }
  if (a == b) { return bitcast<f32>(bitcast<u32>(a) & bitcast<u32>(b)); }
  return select(b, a, a > b);
}
)"};
  L["fmin"] = {{"is_nan"}, R"(// minimum: NaN if either is NaN; minimum(-0, +0) = -0 in either order.
fn fmin(a: f32, b: f32) -> f32 {
  if (is_nan(a) || is_nan(b)) { return bitcast<f32>(0x7fc00000u); }
  if (a == b) { return bitcast<f32>(bitcast<u32>(a) | bitcast<u32>(b)); }
  return select(b, a, a < b);
}
)"};
  L["pow2i"] = {{}, R"(// 2^k for k in [-126, 127] as an exact f32.
fn pow2i(k: i32) -> f32 { return bitcast<f32>(u32(k + 127) << 23u); }
)"};
  L["exp_r"] = {{"is_nan", "pow2i"}, R"(// exp: k = rne(x log2 e), r = x - k ln2 (ln2 in two parts, k*hi exact), degree-7
// polynomial, scaled by 2^k in two exact steps (keeps subnormal results).
// e^x = p 2^k (p in [0.7, 1.42], k an integer as f32), for |x| < 104: callers that must not
// round or flush e^x itself (silu, pow near the overflow) scale p themselves.
fn exp_pk(x: f32) -> vec2f {
  let k = round(x * 1.44269504f);
  let r = (x - k * 0.693359375f) - k * -2.12194440e-4f;
  let p = ((((((1.9875691500e-4f * r + 1.3981999507e-3f) * r + 8.3334519073e-3f) * r + 4.1665795894e-2f) * r +
            1.6666665459e-1f) * r + 5.0000001201e-1f) * r) * r + r + 1.0f;
  return vec2f(p, k);
}
// p 2^k in two exact steps (keeps subnormal results where the device does).
fn scale_pk(p: f32, k: f32) -> f32 {
  let ki = i32(k);
  let k1 = ki / 2;
  return p * pow2i(k1) * pow2i(ki - k1);
}
fn exp_r(x: f32) -> f32 {
  if (is_nan(x)) { return x; }
  if (x > 88.7228394f) { return bitcast<f32>(0x7f800000u); }
  if (x < -103.972084f) { return 0.0f; }
  let pk = exp_pk(x);
  return scale_pk(pk.x, pk.y);
}
)"};
  L["log_r"] = {{"is_nan"}, R"(// log: x = m 2^e with m in [sqrt(1/2), sqrt(2)), log(1 + f) by a degree-9 polynomial,
// e ln2 added in two parts.
fn log_r(x0: f32) -> f32 {
  if (is_nan(x0) || x0 < 0.0f) { return bitcast<f32>(0x7fc00000u); }
  if (x0 == 0.0f) { return bitcast<f32>(0xff800000u); }
  if (bitcast<u32>(x0) == 0x7f800000u) { return x0; }
  var b = bitcast<u32>(x0);
  var e = 0;
  if (b < 0x00800000u) { b = bitcast<u32>(x0 * 8388608.0f); e = -23; }  // subnormal: scale by 2^23
  e = e + i32(b >> 23u) - 126;
  var x = bitcast<f32>((b & 0x007fffffu) | 0x3f000000u);  // in [0.5, 1)
  if (x < 0.707106781f) { e = e - 1; x = x + x - 1.0f; } else { x = x - 1.0f; }
  let z = x * x;
  var y = ((((((((7.0376836292e-2f * x - 1.1514610310e-1f) * x + 1.1676998740e-1f) * x - 1.2420140846e-1f) * x +
              1.4249322787e-1f) * x - 1.6668057665e-1f) * x + 2.0000714765e-1f) * x - 2.4999993993e-1f) * x +
           3.3333331174e-1f) * x * z;
  let fe = f32(e);
  y = y + -2.12194440e-4f * fe;
  y = y + -0.5f * z;
  return (x + y) + 0.693359375f * fe;
}
)"};
  L["sincos_r"] = {{"is_nan", "df"}, R"(// sin and cos: below 8192 reduction by pi/4 octants with pi/4 in three parts; from 8192 on
// Payne-Hanek in u32 arithmetic as the reference does it (x = M 2^E, the 128 bits of 2/pi
// that matter for E give x 2/pi mod 4: quadrant and a 96-bit fraction f, r = f pi/2 carried
// as hi + lo). Minimax polynomials on [-pi/4, pi/4].
fn sincos_poly(z: f32, use_cos: bool) -> f32 {
  let zz = z * z;
  if (use_cos) {
    return ((2.443315711809948e-5f * zz - 1.388731625493765e-3f) * zz + 4.166664568298827e-2f) * zz * zz - 0.5f * zz + 1.0f;
  }
  return ((-1.9515295891e-4f * zz + 8.3321608736e-3f) * zz - 1.6666654611e-1f) * zz * z + z;
}
// 32 bits of 2/pi from fraction bit `pos` (1-based; bits before the point are 0).
fn two_over_pi_bits(pos: i32) -> u32 {
  var T = array<u32, 10>(0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u, 0x3c439041u, 0xfe5163abu,
                         0xdebbc561u, 0xb7246e3au, 0u);
  if (pos < 1) {
    let sh = u32(1 - pos);
    if (sh >= 32u) { return 0u; }
    return T[0] >> sh;
  }
  let i = u32(pos - 1) / 32u;
  let sh = u32(pos - 1) % 32u;
  if (sh == 0u) { return T[i]; }
  return (T[i] << sh) | (T[i + 1u] >> (32u - sh));
}
// a * b as (lo, hi) 32-bit words, from 16-bit limbs.
fn mul_wide(a: u32, b: u32) -> vec2<u32> {
  let a0 = a & 0xffffu; let a1 = a >> 16u; let b0 = b & 0xffffu; let b1 = b >> 16u;
  let p00 = a0 * b0; let p01 = a0 * b1; let p10 = a1 * b0; let p11 = a1 * b1;
  let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
  return vec2<u32>((p00 & 0xffffu) | (mid << 16u), p11 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u));
}
// |x| >= 8192 (finite): the quadrant and r (hi, lo) with x = (4n + quadrant) pi/2 + r, |r| <= pi/4.
fn reduce_ph(a: f32) -> vec3f {
  let b = bitcast<u32>(a);
  let E = i32(b >> 23u) - 127 - 23;
  let M = (b & 0x7fffffu) | 0x800000u;
  var p = array<u32, 4>(0u, 0u, 0u, 0u);
  var carry = 0u;
  for (var j = 3; j >= 0; j = j - 1) {
    let t = mul_wide(M, two_over_pi_bits(E - 1 + 32 * j));
    let lo = t.x + carry;
    p[j] = lo;
    carry = t.y + select(0u, 1u, lo < t.x);
  }
  var q = p[0] >> 30u;
  var w0 = (p[0] << 2u) | (p[1] >> 30u);
  var w1 = (p[1] << 2u) | (p[2] >> 30u);
  var w2 = (p[2] << 2u) | (p[3] >> 30u);
  let negative = (w0 >> 31u) != 0u;  // f >= 1/2: f - 1 and the next quadrant
  if (negative) {
    w2 = ~w2 + 1u;
    w1 = ~w1 + select(0u, 1u, w2 == 0u);
    w0 = ~w0 + select(0u, 1u, w2 == 0u && w1 == 0u);
    q = (q + 1u) & 3u;
  }
  // Normalize the 96-bit fraction: f = (w0 w1 w2) 2^-96, top 48 bits as hi + lo.
  var scale = 1.0f;
  if (w0 == 0u) { w0 = w1; w1 = w2; w2 = 0u; scale = 2.3283064365386963e-10f; }
  if (w0 == 0u) { w0 = w1; w1 = 0u; scale = scale * 2.3283064365386963e-10f; }
  let lz = countLeadingZeros(w0);
  if (lz > 0u && lz < 32u) { w0 = (w0 << lz) | (w1 >> (32u - lz)); w1 = w1 << lz; }
  let unit = scale * bitcast<f32>(u32(127 - 32 - i32(lz)) << 23u);  // 2^(-32 - lz), times the word shifts
  let fh = f32(w0 >> 8u) * (unit * 256.0f);
  let fl = f32(((w0 & 0xffu) << 16u) | (w1 >> 16u)) * (unit * 1.52587890625e-5f);
  let f = two_sum(fh, fl);
  let r = two_prod(f.x, 1.57079637f);
  let rl = r.y + (f.x * -4.37113883e-8f + f.y * 1.57079637f);
  let z = two_sum(r.x, rl);
  return vec3f(select(z.x, -z.x, negative), select(z.y, -z.y, negative), f32(q));
}
fn sincos_r(x: f32, want_cos: bool) -> f32 {
  if (is_nan(x) || (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u) { return bitcast<f32>(0x7fc00000u); }
  let a = abs(x);
  if (a >= 8192.0f) {
    let red = reduce_ph(a);
    let q = u32(red.z);
    let z = red.x + red.y;
    // sin: q0 sin, q1 cos, q2 -sin, q3 -cos; cos: q0 cos, q1 -sin, q2 -cos, q3 sin.
    let qq = select(q, (q + 1u) & 3u, want_cos);
    var r = sincos_poly(z, (qq & 1u) == 1u);
    if (qq >= 2u) { r = -r; }
    if (!want_cos && x < 0.0f) { r = -r; }
    return r;
  }
  var j = u32(a * 1.27323954473516f);
  var y = f32(j);
  if ((j & 1u) == 1u) { j = j + 1u; y = y + 1.0f; }
  j = j & 7u;
  let z = ((a - y * 0.78515625f) - y * 2.4187564849853515625e-4f) - y * 3.77489497744594108e-8f;
  var neg = false;
  if (want_cos) {
    if (j > 3u) { j = j - 4u; neg = !neg; }
    if (j > 1u) { neg = !neg; }
    let r = sincos_poly(z, j == 0u || j == 3u);
    return select(r, -r, neg);
  }
  if (j > 3u) { j = j - 4u; neg = true; }
  var r = sincos_poly(z, j == 1u || j == 2u);
  if (neg) { r = -r; }
  return select(r, -r, x < 0.0f || bitcast<u32>(x) == 0x80000000u);
}
)"};
  L["integral_r"] = {{}, R"(// floor (mode 0), ceil (1) and round half to even (2) on the bits, exact like the
// reference: the result keeps x's sign, |x| >= 2^23, inf and NaN pass through, and
// subnormals count as the nonzero values they are (a device may flush them in arithmetic).
fn integral_r(x: f32, mode: u32) -> f32 {
  let b = bitcast<u32>(x);
  let s = b & 0x80000000u;
  let e = i32((b >> 23u) & 0xffu) - 127;
  if (e >= 23) { return x; }
  if (e < 0) {  // |x| < 1: the result is ±0 or ±1
    let nonzero = (b & 0x7fffffffu) != 0u;
    var one = false;
    if (mode == 0u) { one = s != 0u && nonzero; }
    if (mode == 1u) { one = s == 0u && nonzero; }
    if (mode == 2u) { one = e == -1 && (b & 0x7fffffu) != 0u; }  // above 1/2 (exactly 1/2 goes to even 0)
    return bitcast<f32>(s | select(0u, 0x3f800000u, one));
  }
  let frac = 0x7fffffu >> u32(e);
  let f = b & frac;
  if (f == 0u) { return x; }
  var up = false;  // one unit more in magnitude than the truncation
  if (mode == 0u) { up = s != 0u; }
  if (mode == 1u) { up = s == 0u; }
  if (mode == 2u) {
    let half = (frac + 1u) >> 1u;
    up = f > half || (f == half && ((b >> (23u - u32(e))) & 1u) == 1u);
  }
  return bitcast<f32>(select(b & ~frac, (b & ~frac) + frac + 1u, up));  // a carry moves into the exponent
}
)"};
  L["atan_r"] = {{"is_nan", "div_cr", "sqrt_cr", "df"}, R"(// atan, asin, acos as the reference builds them (atan_ratio: the
// angle of (d, n), n, d >= 0, through atan of a ratio in [0, 1], reduced above tan(pi/8) by
// atan(u) = pi/4 + atan((u - 1)/(u + 1))), in f32: the series through t^19, pi/4, pi/2 and pi
// as hi + lo, correctly rounded quotients and roots, 1 - a^2 from the exact a^2 (hi + lo).
fn atan_s(t: f32) -> f32 {
  let z = t * t;
  var p = -5.263157934e-02f;
  p = p * z + 5.882352963e-02f;
  p = p * z + -6.666667014e-02f;
  p = p * z + 7.692307979e-02f;
  p = p * z + -9.090909362e-02f;
  p = p * z + 1.111111119e-01f;
  p = p * z + -1.428571492e-01f;
  p = p * z + 2.000000030e-01f;
  p = p * z + -3.333333433e-01f;
  return t + (t * z) * p;
}
fn atan_unit_r(u: f32) -> f32 {
  if (u <= 4.142135680e-01f) { return atan_s(u); }
  return 7.853981853e-01f + (atan_s(div_cr(u - 1.0f, u + 1.0f)) + -2.185569414e-08f);
}
fn atan_ratio_r(n: f32, d: f32) -> f32 {
  if (n <= d) { return atan_unit_r(div_cr(n, d)); }
  return (1.570796371f - atan_unit_r(div_cr(d, n))) + -4.371138829e-08f;
}
fn negative_r(x: f32) -> bool { return (bitcast<u32>(x) & 0x80000000u) != 0u; }
fn atan_r(x: f32) -> f32 {
  if (is_nan(x)) { return x; }
  let a = abs(x);
  var r = 1.570796371f;  // ±inf
  if (bitcast<u32>(a) != 0x7f800000u) { r = atan_ratio_r(a, 1.0f); }
  return select(r, -r, negative_r(x));
}
fn cos_of_sin_r(a: f32) -> f32 {  // sqrt(1 - a^2), 0 <= a <= 1
  let sq = two_prod(a, a);
  return sqrt_cr((1.0f - sq.x) - sq.y);
}
fn asin_r(x: f32) -> f32 {
  let a = abs(x);
  if (is_nan(x) || a > 1.0f) { return bitcast<f32>(0x7fc00000u); }
  let r = atan_ratio_r(a, cos_of_sin_r(a));
  return select(r, -r, negative_r(x));
}
fn acos_r(x: f32) -> f32 {
  let a = abs(x);
  if (is_nan(x) || a > 1.0f) { return bitcast<f32>(0x7fc00000u); }
  let r = atan_ratio_r(cos_of_sin_r(a), a);
  return select(r, (3.141592741f - r) + -8.742277657e-08f, x < 0.0f);
}
)"};
  L["tanh_r"] = {{"is_nan", "exp_r"}, R"(// tanh: odd polynomial below 0.625, 1 - 2/(e^2|x| + 1) above, ±1 from |x| >= 10.
fn tanh_r(x: f32) -> f32 {
  if (is_nan(x)) { return x; }
  let a = abs(x);
  var r: f32;
  if (a >= 10.0f) { r = 1.0f; }
  else if (a > 0.625f) { r = 1.0f - 2.0f / (exp_r(2.0f * a) + 1.0f); }
  else {
    let z = x * x;
    return ((((-5.70498872745e-3f * z + 2.06390887954e-2f) * z - 5.37397155531e-2f) * z + 1.33314422036e-1f) * z -
            3.33332819422e-1f) * z * x + x;
  }
  return select(r, -r, x < 0.0f);
}
)"};
  L["sigmoid_r"] = {{"is_nan", "exp_r"}, R"(// sigmoid: 1/(1 + e^-x) for x >= 0, e^x/(1 + e^x) below (no overflow, tiny results kept).
fn sigmoid_r(x: f32) -> f32 {
  if (is_nan(x)) { return x; }
  if (x > 40.0f) { return 1.0f; }
  if (x >= 0.0f) { return 1.0f / (1.0f + exp_r(-x)); }
  let e = exp_r(x);
  return e / (1.0f + e);
}
)"};
  L["silu_r"] = {{"is_nan", "exp_r", "div_cr"}, R"(// silu: x / (1 + e^-x); x e^x where e^-x overflows, with e^x
// taken 2^64 times larger and the product scaled back on the bits (exp_down): e^x alone is
// subnormal below -87.3, which a flushing device reads as 0, while x e^x stays normal down to
// about -91.9 (silu(-90.2) = -6e-38). The limit -0 for x < -120.
fn silu_r(x: f32) -> f32 {
  if (is_nan(x)) { return x; }
  if (x > 100.0f) { return x; }
  if (x < -120.0f) { return -0.0f; }
  if (x < -80.0f) {
    let pk = exp_pk(x);
    let e64 = scale_pk(pk.x, pk.y + 64.0f);  // e^x 2^64: normal for x in [-120, -80]
    return exp_down(x * e64, 64u);
  }
  return x / (1.0f + exp_r(-x));
}
)"};
  L["sq_split"] = {{}, R"(// x*x as hi + lo (Dekker's split into 12-bit halves: every partial product is exact).
fn sq_split(x: f32) -> vec2f {
  let hi = x * x;
  let xh = bitcast<f32>(bitcast<u32>(x) & 0xfffff000u);
  let xl = x - xh;
  let lo = ((xh * xh - hi) + 2.0f * xh * xl) + xl * xl;
  return vec2f(hi, lo);
}
)"};
  L["erf_r"] = {{"is_nan", "exp_r", "sq_split"}, erf_series_coefficients() + R"(// e^(-x^2) with x^2 carried as hi + lo.
fn exp_neg_sq(z: f32) -> f32 {
  let s = sq_split(z);
  return exp_r(-s.x) * (1.0f - s.y);
}
// erf for z = |x| < 2: the all-positive series (2/sqrt(pi)) z e^-z^2 sum c_n z^2n.
fn erf_sum(z2: f32) -> f32 {
  var s = ERF_C[28];
  for (var n = 27; n >= 0; n = n - 1) { s = s * z2 + ERF_C[n]; }
  return s;
}
fn erf_series(z: f32) -> f32 { return 1.12837917f * z * exp_neg_sq(z) * erf_sum(z * z); }
// erfc for z >= 2: Laplace's continued fraction, 50 terms bottom-up.
fn erfc_cf(z: f32) -> f32 {
  if (z > 10.5f) { return 0.0f; }
  var t = z;
  for (var n = 50; n >= 1; n = n - 1) { t = z + (f32(n) * 0.5f) / t; }
  return exp_neg_sq(z) * 0.564189584f / t;
}
fn erf_r(x: f32) -> f32 {
  if (is_nan(x)) { return x; }
  let z = abs(x);
  var r: f32;
  if (z >= 4.0f) { r = 1.0f; } else if (z < 2.0f) { r = erf_series(z); } else { r = 1.0f - erfc_cf(z); }
  return select(r, -r, x < 0.0f || bitcast<u32>(x) == 0x80000000u);
}
// erfc(z) for z >= 0.
fn erfc_pos(z: f32) -> f32 {
  if (z < 2.0f) { return 1.0f - erf_series(z); }
  return erfc_cf(z);
}
)"};
  L["gelu_r"] = {{"is_nan", "erf_r", "erfc_cf100", "df"}, R"(// gelu (erf form): 0.5 x (1 + erf(x/sqrt2)) for x >= 0, 0.5 x erfc(|x|/sqrt2) below
// (erfc without cancellation from z = 0.8 on: the continued fraction, 100 terms).
fn gelu_r(x: f32) -> f32 {
  if (is_nan(x)) { return x; }
  if (x < -15.0f) { return -0.0f; }
  let z = abs(x) * 0.707106781f;
  if (x >= 0.0f) { return 0.5f * x * (1.0f + erf_r(z)); }
  let x2 = two_prod(x, x);
  let z2 = vec2f(x2.x * 0.5f, x2.y * 0.5f);  // z^2 = x^2 / 2 exactly, as hi + lo
  if (z >= 0.8f) { return 0.5f * x * erfc_cf100(z, z2); }
  return 0.5f * x * (1.0f - 1.12837917f * z * exp_r(-z2.x) * (1.0f - z2.y) * erf_sum(z2.x));
}
)"};
  L["df"] = {{"fma_x"}, R"(// Double-f32 arithmetic (value = x + y, |y| <= ulp(x)/2): exact two-product and two-sum.
fn two_prod(a: f32, b: f32) -> vec2f {
  let p = a * b;
  return vec2f(p, fma(a, b, -p));  // exact (fma_x where the device's fma is not fused)
}
fn two_sum(a: f32, b: f32) -> vec2f {
  let s = a + b;
  let bb = s - a;
  return vec2f(s, (a - (s - bb)) + (b - bb));
}
fn df_mul(a: vec2f, b: vec2f) -> vec2f {
  let p = two_prod(a.x, b.x);
  return two_sum(p.x, p.y + (a.x * b.y + a.y * b.x));
}
fn df_add(a: vec2f, b: vec2f) -> vec2f {
  let s = two_sum(a.x, b.x);
  return two_sum(s.x, s.y + (a.y + b.y));
}
)"};
  L["gelu_tanh_r"] = {{"is_nan", "exp_r", "df"}, R"(// gelu (tanh form): x / (1 + e^(-2u)), u = sqrt(2/pi) (x + 0.044715 x^3), with u carried
// in double-f32 (the exponential amplifies u's absolute error).
fn gelu_tanh_r(x: f32) -> f32 {
  if (is_nan(x)) { return x; }
  if (x > 10.0f) { return x; }
  if (x < -20.0f) { return -0.0f; }
  let x2 = two_prod(x, x);
  let x3 = df_mul(x2, vec2f(x, 0.0f));
  let inner = df_add(vec2f(x, 0.0f), df_mul(vec2f(0.0447149985f, 1.54614443e-9f), x3));
  let u = df_mul(vec2f(0.797884583f, -2.26703403e-8f), inner);
  let e = exp_r(-2.0f * u.x) * (1.0f - 2.0f * u.y);
  return x / (1.0f + e);
}
)"};
  L["erfc_cf100"] = {{"erf_r", "df"}, R"(// erfc(z) for z >= 0.8: Laplace's continued fraction with 100 terms (relative error
// below 1e-9 from z = 0.8 on), e^-z^2 with z^2 as hi + lo.
fn erfc_cf100(z: f32, z2: vec2f) -> f32 {
  if (z > 10.5f) { return 0.0f; }
  var t = z;
  for (var n = 100; n >= 1; n = n - 1) { t = z + (f32(n) * 0.5f) / t; }
  return exp_r(-z2.x) * (1.0f - z2.y) * 0.564189584f / t;
}
)"};
  L["erfc_nr"] = {{"erf_r"}, R"(// erfc(z) for z >= 0.5 without cancellation: t e^(-z^2 - 1.26551223 + t P(t)), t = 1/(1 + z/2)
// (Numerical Recipes' Chebyshev fit, relative error < 1.2e-7), e^-z^2 with z^2 as hi + lo.
fn erfc_nr(z: f32) -> f32 {
  let t = 1.0f / (1.0f + 0.5f * z);
  let p = -1.26551223f + t * (1.00002368f + t * (0.37409196f + t * (0.09678418f + t * (-0.18628806f + t * (0.27886807f +
          t * (-1.13520398f + t * (1.48851587f + t * (-0.82215223f + t * 0.17087277f))))))));
  return t * exp_neg_sq(z) * exp_r(p);
}
)"};
  L["log_df"] = {{"df"}, R"(// log(x) in double-f32 (hi + lo, relative error ~2^-40) for finite x > 0: x = m 2^k with
// m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s), s = (m - 1)/(m + 1) carried as hi + lo,
// k ln2 with ln2 in two parts (k * LN2_HI exact).
fn log_df(x0: f32) -> vec2f {
  var b = bitcast<u32>(x0);
  var k = 0;
  if (b < 0x00800000u) { b = bitcast<u32>(x0 * 16777216.0f); k = -24; }  // subnormal: scale by 2^24
  k = k + i32(b >> 23u) - 127;
  var m = bitcast<f32>((b & 0x007fffffu) | 0x3f800000u);  // in [1, 2)
  if (m > 1.41421354f) { m = m * 0.5f; k = k + 1; }
  let f = m - 1.0f;                     // exact (Sterbenz)
  let d = two_sum(m, 1.0f);             // m + 1
  let sh = f / d.x;
  let p = two_prod(sh, d.x);
  let sl = (((f - p.x) - p.y) - sh * d.y) / d.x;  // f - sh (m + 1), divided: s's low part
  let z = sh * sh;
  let tail = sh * z * (0.666666667f + z * (0.4f + z * (0.285714286f + z * (0.222222222f + z * (0.181818182f +
             z * (0.153846154f + z * 0.133333333f))))));
  let lm = two_sum(2.0f * sh, 2.0f * sl + tail);
  let fk = f32(k);
  let kl = two_sum(fk * 0.693145751953125f, lm.x);
  return two_sum(kl.x, (kl.y + lm.y) + fk * 1.42860677e-6f);
}
)"};
  L["pow_r"] = {{"is_nan", "exp_r", "log_df", "df"}, R"(// pow with the C99 Annex F special cases; otherwise e^(y log|x|), negative for x < 0 and
// odd integer y. The reference forms t = y log|x| in binary64: here t is carried in
// double-f32 (an f32 t would carry |t| 2^-24 of absolute error into e^t: tens of ulps), and
// e^(hi + lo) = e^hi + e^hi lo.
fn is_int_f(y: f32) -> bool { return abs(y) >= 16777216.0f || trunc(y) == y; }
fn is_odd_int_f(y: f32) -> bool { return abs(y) < 16777216.0f && trunc(y) == y && (i32(abs(y)) & 1) == 1; }
fn pow_r(x: f32, y: f32) -> f32 {
  let inf = bitcast<f32>(0x7f800000u);
  if (y == 0.0f || x == 1.0f) { return 1.0f; }
  if (is_nan(x) || is_nan(y)) { return bitcast<f32>(0x7fc00000u); }
  let ax = abs(x);
  let yinf = abs(y) == inf;
  if (yinf) {
    if (ax == 1.0f) { return 1.0f; }
    if ((ax < 1.0f) == (y < 0.0f)) { return inf; }
    return 0.0f;
  }
  let odd = is_odd_int_f(y);
  let neg_sign = (bitcast<u32>(x) & 0x80000000u) != 0u;
  if (ax == 0.0f || ax == inf) {
    let big = (ax == inf) == (y > 0.0f);
    let r = select(0.0f, inf, big);
    return select(r, -r, neg_sign && odd);
  }
  if (x < 0.0f && !is_int_f(y)) { return bitcast<f32>(0x7fc00000u); }
  let l = log_df(ax);
  let t0 = y * l.x;  // far outside the range: decided before y * l could overflow in df_mul
  var r: f32;
  if (t0 > 90.0f) { r = inf; } else if (t0 < -105.0f) { r = 0.0f; } else {
    let t = df_mul(vec2f(y, 0.0f), l);
    if (t.x > 89.0f) { r = inf; } else if (t.x < -104.0f) { r = 0.0f; } else {
      // e^(t.x + t.y) = p (1 + t.y) 2^k: the low part goes in before the scaling, so a
      // result just below the overflow (pow(FLT_MAX, 1)) is not inf + inf * (negative) = NaN.
      let pk = exp_pk(t.x);
      r = scale_pk(pk.x + pk.x * t.y, pk.y);
    }
  }
  return select(r, -r, x < 0.0f && odd);
}
)"};
  L["idiv"] = {{}, R"(// Integer division truncating toward zero; x / 0 = 0; MIN / -1 wraps to MIN.
fn idiv(a: i32, b: i32) -> i32 {
  if (b == 0) { return 0; }
  if (b == -1) { return 0 - a; }
  return a / b;
}
fn udiv(a: u32, b: u32) -> u32 { return select(a / max(b, 1u), 0u, b == 0u); }
)"};
  L["irem"] = {{}, R"(// The remainder of idiv/udiv, with a's sign: x % 0 = x; MIN % -1 = 0.
fn irem(a: i32, b: i32) -> i32 {
  if (b == 0) { return a; }
  if (b == -1) { return 0; }
  return a - (a / b) * b;
}
fn urem(a: u32, b: u32) -> u32 { return select(a - (a / max(b, 1u)) * b, a, b == 0u); }
)"};
  L["fmod_r"] = {{}, R"(// IEEE fmod on the bits (exact; no float arithmetic, so nothing is flushed or
// contracted): long division of the significands, one bit per exponent step.
fn fmod_norm(a: u32) -> vec2<i32> {  // |x| bits -> (significand with its leading 1 at bit 23, exponent)
  var e = i32(a >> 23u);
  var m = a & 0x7fffffu;
  if (e == 0) {
    e = 1;
    loop { if ((m >> 23u) != 0u) { break; } m = m << 1u; e = e - 1; }
  } else {
    m = m | 0x800000u;
  }
  return vec2<i32>(i32(m), e);
}
fn fmod_r(x: f32, y: f32) -> f32 {
  let sx = bitcast<u32>(x) & 0x80000000u;
  let ax = bitcast<u32>(x) & 0x7fffffffu;
  let ay = bitcast<u32>(y) & 0x7fffffffu;
  if (ay == 0u || ax >= 0x7f800000u || ay > 0x7f800000u) { return bitcast<f32>(0x7fc00000u); }
  if (ax < ay) { return x; }
  if (ax == ay) { return bitcast<f32>(sx); }
  let nx = fmod_norm(ax);
  let ny = fmod_norm(ay);
  var mx = u32(nx.x);
  let my = u32(ny.x);
  var ex = nx.y;
  loop {
    if (ex <= ny.y) { break; }
    if (mx >= my) { mx = mx - my; if (mx == 0u) { return bitcast<f32>(sx); } }
    mx = mx << 1u;
    ex = ex - 1;
  }
  if (mx >= my) { mx = mx - my; if (mx == 0u) { return bitcast<f32>(sx); } }
  loop { if ((mx >> 23u) != 0u) { break; } mx = mx << 1u; ex = ex - 1; }
  var bits: u32;
  if (ex > 0) { bits = (mx & 0x7fffffu) | (u32(ex) << 23u); } else { bits = mx >> u32(1 - ex); }
  return bitcast<f32>(bits | sx);
}
)"};
  L["f2i"] = {{"is_nan"}, R"(// float -> int: truncation toward zero, saturating at [lo, hi]; NaN -> 0.
fn f2i(x: f32, lo: f32, hi: f32, ilo: i32, ihi: i32) -> i32 {
  if (is_nan(x)) { return 0; }
  if (x <= lo) { return ilo; }
  if (x >= hi) { return ihi; }
  return i32(trunc(x));
}
fn f2u(x: f32, hi: f32, uhi: u32) -> u32 {
  if (is_nan(x) || x <= 0.0f) { return 0u; }
  if (x >= hi) { return uhi; }
  return u32(trunc(x));
}
)"};
  L["rmul"] = {{}, R"(// A product the reference rounds on its own before an add. WGSL gives no way to forbid
// contraction: a driver that fuses a*b + c into an fma (NVIDIA 580 on the H200 does, even
// through bit operations) differs here by an ulp (bench/RESULTS.md); SwiftShader does not fuse.
// inf * 0 and NaN operands are decided on the bits: a compiler may fold 0 * x to 0 (WGSL lets
// it assume no inf/NaN), where the reference gives NaN for x = inf or NaN.
fn rmul(a: f32, b: f32) -> f32 {
  let ua = bitcast<u32>(a);
  let ub = bitcast<u32>(b);
  let fa = (ua & 0x7f800000u) == 0x7f800000u;
  let fb = (ub & 0x7f800000u) == 0x7f800000u;
  if (fa || fb) {
    let nan = (ua & 0x7fffffffu) > 0x7f800000u || (ub & 0x7fffffffu) > 0x7f800000u;
    let inf_zero = (fa && (ub & 0x7fffffffu) == 0u) || (fb && (ua & 0x7fffffffu) == 0u);
    if (nan || inf_zero) { return bitcast<f32>(0x7fc00000u); }
    return bitcast<f32>(((ua ^ ub) & 0x80000000u) | 0x7f800000u);
  }
  return a * b;
}
)"};
  L["div_cr"] = {{"is_nan"}, R"(// Correctly rounded division (WGSL allows 2.5 ulp): the device's quotient, then of it and
// its two neighbours the one with the smallest exact residual |a - q b| (an fma); a binary
// quotient is never a rounding midpoint, so the smallest residual is the rounded one.
fn f32_next(x: f32, up: bool) -> f32 {
  let b = bitcast<u32>(x);
  if (x == 0.0f) { return select(bitcast<f32>(0x80000001u), bitcast<f32>(1u), up); }
  return bitcast<f32>(select(b - 1u, b + 1u, (x > 0.0f) == up));
}
// v * 2^-k on the exponent bits (k < 128); zero of v's sign when that leaves the normal range.
fn exp_down(v: f32, k: u32) -> f32 {
  let u = bitcast<u32>(v);
  let e = (u >> 23u) & 0xffu;
  if (e <= k) { return bitcast<f32>(u & 0x80000000u); }
  return bitcast<f32>(u - (k << 23u));
}
fn div_cr(a: f32, b: f32) -> f32 {
  let abits = bitcast<u32>(a) & 0x7fffffffu;
  let bbits = bitcast<u32>(b) & 0x7fffffffu;
  let sign = (bitcast<u32>(a) ^ bitcast<u32>(b)) & 0x80000000u;
  if (is_nan(a) || is_nan(b) || (abits == 0u && bbits == 0u) || (abits == 0x7f800000u && bbits == 0x7f800000u)) {
    return bitcast<f32>(0x7fc00000u);
  }
  if (bbits == 0u || abits == 0x7f800000u) { return bitcast<f32>(sign | 0x7f800000u); }
  if (abits == 0u || bbits == 0x7f800000u) { return bitcast<f32>(sign); }
  // A device may divide as a * (1/b): from |b| >= 2^64 on both are scaled by 2^-64 (near
  // 2^126, 1/b underflows: a quotient of huge operands became 0); from |a| >= 2^125,
  // a * (1/b) can overflow where a / b does not, so a is scaled by 1/4 and the quotient
  // back. Scaling is done on the exponent bits, so no compiler can cancel it algebraically.
  var x = a;
  var y = b;
  var back = 1.0f;
  if (bbits >= 0x5f800000u) { x = exp_down(a, 64u); y = exp_down(b, 64u); }
  else if (abits >= 0x7e000000u) { x = exp_down(a, 2u); back = 4.0f; }
  let q = x / y;
  let qb = bitcast<u32>(q) & 0x7fffffffu;
  if (qb >= 0x7f800000u || qb < 0x00800000u) { return q * back; }  // overflow / subnormal range: the device's answer
  var best = q;
  var rbest = abs(fma(-q, y, x));
  let qu = f32_next(q, true);
  let ru = abs(fma(-qu, y, x));
  if (ru < rbest) { best = qu; rbest = ru; }
  let qd = f32_next(q, false);
  let rd = abs(fma(-qd, y, x));
  if (rd < rbest) { best = qd; }
  return best * back;
}
)"};
  L["sqrt_cr"] = {{"is_nan", "div_cr"}, R"(// Correctly rounded square root (WGSL's may not be): the device's root, then of it and its
// neighbours the one with the smallest exact residual |x - s^2|.
fn sqrt_cr(x: f32) -> f32 {
  if (is_nan(x) || x < 0.0f) { return bitcast<f32>(0x7fc00000u); }
  if (x == 0.0f || bitcast<u32>(x) == 0x7f800000u) { return x; }
  let s = sqrt(x);
  var best = s;
  var rbest = abs(fma(-s, s, x));
  let su = f32_next(s, true);
  let ru = abs(fma(-su, su, x));
  if (ru < rbest) { best = su; rbest = ru; }
  let sd = f32_next(s, false);
  let rd = abs(fma(-sd, sd, x));
  if (rd < rbest) { best = sd; }
  return best;
}
)"};
  L["fma_x"] = {{}, R"(// fma from exact steps, for devices whose fma rounds the product: Dekker's two-product
// (a and b split into 12-bit halves) and Knuth's two-sum, then one final addition. Equal to
// the fused result except in rare double-rounding cases (within 1 ulp). Special values are
// decided on the bits (WGSL lets a compiler assume there are no inf/NaN): a non-finite a or
// b gives the IEEE a*b + c; a non-finite c with finite a, b is c itself (the exact product
// is finite, though a*b rounded may overflow); a product that overflows only when rounded
// is computed with the larger factor and c scaled by 2^-64.
fn split12(a: f32) -> vec2f {
  let c = 4097.0f * a;
  let hi = c - (c - a);
  return vec2f(hi, a - hi);
}
fn nonfinite_x(v: f32) -> bool { return (bitcast<u32>(v) & 0x7f800000u) == 0x7f800000u; }
fn fma_core(a: f32, b: f32, c: f32) -> f32 {
  let p = a * b;
  let sa = split12(a);
  let sb = split12(b);
  let pe = ((sa.x * sb.x - p) + sa.x * sb.y + sa.y * sb.x) + sa.y * sb.y;
  let s = p + c;
  let bb = s - p;
  let se = (p - (s - bb)) + (c - bb);
  let r = s + (pe + se);
  // Exact zeros, an overflowing sum, or a split that overflowed (|a| or |b| above ~2^115:
  // 4097 a is inf, its halves NaN): the plain operations' answer, within 1 ulp.
  if (p == 0.0f || nonfinite_x(s) || nonfinite_x(r)) { return s; }
  return r;
}
fn fma_x(a: f32, b: f32, c: f32) -> f32 {
  if (nonfinite_x(a) || nonfinite_x(b)) { return a * b + c; }
  if (nonfinite_x(c)) { return c; }
  if (nonfinite_x(a * b)) {
    let big_a = abs(a) >= abs(b);
    let a2 = select(a, a * 5.42101086e-20f, big_a);
    let b2 = select(b * 5.42101086e-20f, b, big_a);
    return fma_core(a2, b2, c * 5.42101086e-20f) * 1.84467441e19f;
  }
  return fma_core(a, b, c);
}
)"};
  return L;
}

}  // namespace

static const std::map<std::string, LibraryFunction>& library() {
  static const std::map<std::string, LibraryFunction> lib = make_library();
  return lib;
}

const LibraryFunction* library_function(const std::string& name) {
  auto it = library().find(name);
  return it == library().end() ? nullptr : &it->second;
}

std::string library_text() {
  std::string s;
  for (const auto& [name, f] : library()) s += "// " + name + "\n" + f.text;
  return s;
}

}  // namespace rung::webgpu
