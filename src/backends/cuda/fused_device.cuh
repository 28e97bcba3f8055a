// Device helpers for the generated fused-elementwise kernels (fused_codegen.cpp writes the
// code that calls them; NVRTC compiles it at run time with this header and the numerics
// headers embedded). Values live in registers in their op's compute type (float for
// f32/f16/bf16, double for f64, the integer type, bool); a node whose dtype is f16/bf16 is
// rounded to it right away (`round_to`), so every later node sees exactly the value the
// unfused graph stores and reloads. Storage types: what one element occupies in memory.
#pragma once

#include "ops/numerics/convert.h"
#include "ops/numerics/elementwise.h"
#include "ops/numerics/half.h"

namespace rung::fused {

// rung DType codes (ir/graph/dtype.h).
enum : int { F32 = 1, F16 = 2, BF16 = 3, F64 = 4, I64 = 5, I32 = 6, I16 = 7, I8 = 8, U64 = 9, U32 = 10, U16 = 11,
             U8 = 12, BOOL = 13 };

template <int D> struct Types;
template <> struct Types<F32> { using S = float; using C = float; };
template <> struct Types<F16> { using S = unsigned short; using C = float; };
template <> struct Types<BF16> { using S = unsigned short; using C = float; };
template <> struct Types<F64> { using S = double; using C = double; };
template <> struct Types<I64> { using S = long long; using C = long long; };
template <> struct Types<I32> { using S = int; using C = int; };
template <> struct Types<I16> { using S = short; using C = short; };
template <> struct Types<I8> { using S = signed char; using C = signed char; };
template <> struct Types<U64> { using S = unsigned long long; using C = unsigned long long; };
template <> struct Types<U32> { using S = unsigned int; using C = unsigned int; };
template <> struct Types<U16> { using S = unsigned short; using C = unsigned short; };
template <> struct Types<U8> { using S = unsigned char; using C = unsigned char; };
template <> struct Types<BOOL> { using S = unsigned char; using C = bool; };
template <int D> using S = typename Types<D>::S;
template <int D> using C = typename Types<D>::C;

// A storage value from its bit pattern (the generator writes constants this way).
template <int D> __device__ __forceinline__ S<D> from_raw(unsigned long long bits) {
  S<D> s;
  ::memcpy(&s, &bits, sizeof(S<D>));  // little-endian: the low bytes
  return s;
}

// Storage -> compute (exact).
template <int D> __device__ __forceinline__ C<D> widen(S<D> s) {
  if constexpr (D == F16) return num::f32_from_f16(s);
  else if constexpr (D == BF16) return num::f32_from_bf16(s);
  else if constexpr (D == BOOL) return s != 0;
  else return s;
}

// Compute -> storage: one RNE rounding for f16/bf16, canonical NaNs for every float
// (docs/semantics.md: outputs are canonicalised).
template <int D> __device__ __forceinline__ S<D> narrow(C<D> v) {
  if constexpr (D == F16) return num::f16_from_f32(v);
  else if constexpr (D == BF16) return num::bf16_from_f32(v);
  else if constexpr (D == F32) return num::is_nan(v) ? num::nan_f32() : v;
  else if constexpr (D == F64) return num::is_nan(v) ? num::nan_f64() : v;
  else if constexpr (D == BOOL) return v ? 1 : 0;
  else return v;
}

// A node's value as the unfused graph would store and reload it.
template <int D> __device__ __forceinline__ C<D> round_to(C<D> v) {
  if constexpr (D == F16 || D == BF16) return widen<D>(narrow<D>(v));
  else return v;
}

__device__ __forceinline__ constexpr bool is_float_dt(int d) { return d == F32 || d == F16 || d == BF16 || d == F64; }
__device__ __forceinline__ constexpr bool is_signed_dt(int d) { return d == I64 || d == I32 || d == I16 || d == I8; }
__device__ __forceinline__ constexpr int precision_of(int d) { return d == F64 ? 53 : d == F32 ? 24 : d == F16 ? 11 : 8; }
__device__ __forceinline__ constexpr int bits_of_dt(int d) {
  return (d == I64 || d == U64) ? 64 : (d == I32 || d == U32) ? 32 : (d == I16 || d == U16) ? 16 : 8;
}

// A float given exactly as a double, rounded once to float dtype To (in its compute type).
template <int To> __device__ __forceinline__ C<To> from_double(double d) {
  if constexpr (To == F64) return d;
  else if constexpr (To == F32) return static_cast<float>(d);
  else if constexpr (To == F16) return num::f32_from_f16(num::f16_from_f64(d));
  else return num::f32_from_bf16(num::bf16_from_f64(d));
}

// cast: the case analysis of the reference kernel (ops/family_cast.cpp).
template <int From, int To> __device__ __forceinline__ C<To> cast_value(C<From> v) {
  if constexpr (is_float_dt(From)) {
    double d = static_cast<double>(v);
    if constexpr (To == BOOL) return d != 0.0 || num::is_nan(d);
    else if constexpr (is_float_dt(To)) return from_double<To>(d);
    else return static_cast<C<To>>(num::double_to_int_saturating(d, bits_of_dt(To), is_signed_dt(To)));
  } else {
    unsigned long long bits;
    bool negative = false;
    if constexpr (is_signed_dt(From)) {
      long long s = v;
      negative = s < 0;
      bits = static_cast<unsigned long long>(s);
    } else {
      bits = static_cast<unsigned long long>(v);
    }
    unsigned long long mag = negative ? ~bits + 1 : bits;
    if constexpr (To == BOOL) return bits != 0;
    else if constexpr (is_float_dt(To)) return from_double<To>(num::int_to_double_rounded(negative, mag, precision_of(To)));
    else return static_cast<C<To>>(bits);  // wraps to the target width
  }
}

// clamp(x; lo, hi) = minimum(maximum(x, lo), hi), the bounds rounded to the compute type.
template <typename T> __device__ __forceinline__ T clamp_value(T x, double lo, double hi) {
  return num::Minimum{}(num::Maximum{}(x, static_cast<T>(lo)), static_cast<T>(hi));
}

// Four consecutive elements, aligned so that the copy is one (or two) vector accesses.
template <typename T> struct alignas(sizeof(T) * 4 > 16 ? 16 : sizeof(T) * 4) Quad { T v[4]; };

}  // namespace rung::fused
