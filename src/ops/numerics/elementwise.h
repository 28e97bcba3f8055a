// The scalar formulas of the elementwise ops, written once. Each functor has one overload
// per compute type it supports (float for f32/f16/bf16, double for f64, the integer types);
// the reference loop, and later the generated SIMD/CUDA/WASM kernels, call these.
// Rules (docs/semantics.md): IEEE operations round to nearest even; integer arithmetic wraps
// (two's complement); NaN results are canonicalised at the output.
#pragma once

#include <concepts>
#include <cstdint>
#include <type_traits>

#include "ops/numerics/exp_log.h"
#include "ops/numerics/ieee.h"
#include "ops/numerics/integral.h"
#include "ops/numerics/inverse_trig.h"
#include "ops/numerics/special.h"
#include "ops/numerics/trig.h"

namespace rung::num {

template <typename T>
concept Int = std::integral<T> && !std::same_as<T, bool>;
template <typename T>
concept Real = std::same_as<T, float> || std::same_as<T, double>;

// Modular integer arithmetic through uint64 (no signed overflow, no narrow promotion traps).
template <Int T> RUNG_HD T wrap(std::uint64_t v) { return static_cast<T>(v); }
template <Int T> RUNG_HD std::uint64_t u64(T v) { return static_cast<std::uint64_t>(v); }

struct Add {
  template <Real T> RUNG_HD T operator()(T a, T b) const { return a + b; }
  template <Int T> RUNG_HD T operator()(T a, T b) const { return wrap<T>(u64(a) + u64(b)); }
};
struct Sub {
  template <Real T> RUNG_HD T operator()(T a, T b) const { return a - b; }
  template <Int T> RUNG_HD T operator()(T a, T b) const { return wrap<T>(u64(a) - u64(b)); }
};
struct Mul {
  template <Real T> RUNG_HD T operator()(T a, T b) const { return a * b; }
  template <Int T> RUNG_HD T operator()(T a, T b) const { return wrap<T>(u64(a) * u64(b)); }
};
// Integer division truncates toward zero; x / 0 is defined as 0 and MIN / -1 wraps to MIN,
// so no input traps (a tensor program cannot raise per element).
struct Div {
  template <Real T> RUNG_HD T operator()(T a, T b) const { return a / b; }
  template <Int T> RUNG_HD T operator()(T a, T b) const {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<T>)
      if (b == -1) return wrap<T>(0 - u64(a));
    return static_cast<T>(a / b);
  }
};
// a % b: the remainder of truncating division, with the sign of a (C's fmod and `%`, Rust's
// `%`; not Python's floor-mod). Floats: IEEE fmod, which is exact; x % 0 and inf % y are NaN,
// x % inf is x. Integers: x % 0 = x and MIN % -1 = 0, so a == (a / b) * b + a % b for all a, b.
struct Rem {
  RUNG_HD float operator()(float a, float b) const {
#if defined(__CUDA_ARCH__)
    return fmodf(a, b);
#else
    return __builtin_fmodf(a, b);
#endif
  }
  RUNG_HD double operator()(double a, double b) const {
#if defined(__CUDA_ARCH__)
    return fmod(a, b);
#else
    return __builtin_fmod(a, b);
#endif
  }
  template <Int T> RUNG_HD T operator()(T a, T b) const {
    if (b == 0) return a;
    if constexpr (std::is_signed_v<T>)
      if (b == -1) return 0;
    return static_cast<T>(a % b);
  }
};
struct Neg {
  RUNG_HD float operator()(float a) const { return f32_from_bits(bits_of(a) ^ 0x80000000u); }
  RUNG_HD double operator()(double a) const { return f64_from_bits(bits_of(a) ^ 0x8000000000000000ull); }
  template <Int T> RUNG_HD T operator()(T a) const { return wrap<T>(0 - u64(a)); }
};
struct Abs {
  RUNG_HD float operator()(float a) const { return abs_f32(a); }
  RUNG_HD double operator()(double a) const { return abs_f64(a); }
  template <Int T> RUNG_HD T operator()(T a) const {
    if constexpr (std::is_signed_v<T>) return a < 0 ? wrap<T>(0 - u64(a)) : a;
    else return a;
  }
};
struct Square {
  template <Real T> RUNG_HD T operator()(T a) const { return a * a; }
  template <Int T> RUNG_HD T operator()(T a) const { return wrap<T>(u64(a) * u64(a)); }
};

// maximum/minimum: NaN if either operand is NaN; maximum(-0, +0) = +0, minimum(-0, +0) = -0.
struct Maximum {
  template <Real T> RUNG_HD T operator()(T a, T b) const {
    if (is_nan(a) || is_nan(b)) return a + b;  // a NaN (canonicalised at the output)
    if (a == b) return sign_bit(a) ? b : a;    // equal: prefer +0 over -0
    return a > b ? a : b;
  }
  template <Int T> RUNG_HD T operator()(T a, T b) const { return a > b ? a : b; }
};
struct Minimum {
  template <Real T> RUNG_HD T operator()(T a, T b) const {
    if (is_nan(a) || is_nan(b)) return a + b;
    if (a == b) return sign_bit(a) ? a : b;  // equal: prefer -0 over +0
    return a < b ? a : b;
  }
  template <Int T> RUNG_HD T operator()(T a, T b) const { return a < b ? a : b; }
};

struct Sqrt {
  RUNG_HD float operator()(float a) const { return sqrt_f32(a); }
  RUNG_HD double operator()(double a) const { return sqrt_f64(a); }
};
// rsqrt(x) = 1 / sqrt(x): two correctly rounded operations, never a hardware estimate.
struct Rsqrt {
  RUNG_HD float operator()(float a) const { return 1.0f / sqrt_f32(a); }
  RUNG_HD double operator()(double a) const { return 1.0 / sqrt_f64(a); }
};
struct Reciprocal {
  template <Real T> RUNG_HD T operator()(T a) const { return T(1) / a; }
};
// relu(x) = x if x > 0, NaN if x is NaN, +0 otherwise (so relu(-0) = +0).
struct Relu {
  template <Real T> RUNG_HD T operator()(T a) const { return is_nan(a) ? a : a > T(0) ? a : T(0); }
  template <Int T> RUNG_HD T operator()(T a) const { return a > 0 ? a : T(0); }
};

// floor, ceil, round (half to even): exact, the sign of x kept (integral.h).
struct Floor {
  RUNG_HD float operator()(float a) const { return integral_f32(a, IntegralMode::floor); }
  RUNG_HD double operator()(double a) const { return integral_f64(a, IntegralMode::floor); }
};
struct Ceil {
  RUNG_HD float operator()(float a) const { return integral_f32(a, IntegralMode::ceil); }
  RUNG_HD double operator()(double a) const { return integral_f64(a, IntegralMode::ceil); }
};
struct Round {
  RUNG_HD float operator()(float a) const { return integral_f32(a, IntegralMode::round_even); }
  RUNG_HD double operator()(double a) const { return integral_f64(a, IntegralMode::round_even); }
};

// Logical shifts of unsigned integers; a shift by the bit width or more gives 0 (C leaves
// it undefined, hardware takes it modulo the width).
struct ShiftLeft {
  template <Int T> requires(!std::is_signed_v<T>) RUNG_HD T operator()(T a, T b) const {
    return u64(b) >= 8 * sizeof(T) ? T(0) : static_cast<T>(u64(a) << u64(b));
  }
};
struct ShiftRight {
  template <Int T> requires(!std::is_signed_v<T>) RUNG_HD T operator()(T a, T b) const {
    return u64(b) >= 8 * sizeof(T) ? T(0) : static_cast<T>(u64(a) >> u64(b));
  }
};

struct Exp {
  RUNG_HD float operator()(float a) const { return exp_f32(a); }
  RUNG_HD double operator()(double a) const { return exp_f64(a); }
};
struct Log {
  RUNG_HD float operator()(float a) const { return log_f32(a); }
  RUNG_HD double operator()(double a) const { return log_f64(a); }
};
struct Sin {
  RUNG_HD float operator()(float a) const { return sin_f32(a); }
};
struct Cos {
  RUNG_HD float operator()(float a) const { return cos_f32(a); }
};
struct Asin {
  RUNG_HD float operator()(float a) const { return asin_f32(a); }
};
struct Acos {
  RUNG_HD float operator()(float a) const { return acos_f32(a); }
};
struct Atan {
  RUNG_HD float operator()(float a) const { return atan_f32(a); }
};
struct Tanh {
  RUNG_HD float operator()(float a) const { return tanh_f32(a); }
};
struct Sigmoid {
  RUNG_HD float operator()(float a) const { return sigmoid_f32(a); }
};
struct Silu {
  RUNG_HD float operator()(float a) const { return silu_f32(a); }
};
struct Erf {
  RUNG_HD float operator()(float a) const { return erf_f32(a); }
};
struct GeluErf {
  RUNG_HD float operator()(float a) const { return gelu_erf_f32(a); }
};
struct GeluTanh {
  RUNG_HD float operator()(float a) const { return gelu_tanh_f32(a); }
};
struct Pow {
  RUNG_HD float operator()(float a, float b) const { return pow_f32(a, b); }
};

// Comparisons follow IEEE: every comparison with NaN is false except `ne`; -0 == +0.
struct Eq {
  template <typename T> RUNG_HD bool operator()(T a, T b) const { return a == b; }
};
struct Ne {
  template <typename T> RUNG_HD bool operator()(T a, T b) const { return a != b; }
};
struct Lt {
  template <typename T> requires(!std::same_as<T, bool>) RUNG_HD bool operator()(T a, T b) const { return a < b; }
};
struct Le {
  template <typename T> requires(!std::same_as<T, bool>) RUNG_HD bool operator()(T a, T b) const { return a <= b; }
};
struct Gt {
  template <typename T> requires(!std::same_as<T, bool>) RUNG_HD bool operator()(T a, T b) const { return a > b; }
};
struct Ge {
  template <typename T> requires(!std::same_as<T, bool>) RUNG_HD bool operator()(T a, T b) const { return a >= b; }
};

struct LogicalAnd {
  RUNG_HD bool operator()(bool a, bool b) const { return a && b; }
};
struct LogicalOr {
  RUNG_HD bool operator()(bool a, bool b) const { return a || b; }
};
struct LogicalXor {
  RUNG_HD bool operator()(bool a, bool b) const { return a != b; }
};
struct LogicalNot {
  RUNG_HD bool operator()(bool a) const { return !a; }
};

}  // namespace rung::num
