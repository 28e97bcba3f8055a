// Elementwise kernels: the scalar formulas of ops/numerics/elementwise.h (the same source
// the reference loops call), a grid-stride loop, and broadcasting through strides.
#include <type_traits>

#include "backends/cuda/k_common.cuh"
#include "ops/numerics/convert.h"
#include "ops/numerics/elementwise.h"

namespace rung::cuda {
namespace {

template <typename F, typename T>
__global__ void unary_k(const void* x, int xdt, void* y, int ydt, std::uint64_t n) {
  F f{};
  RUNG_GRID_LOOP(i, n) st(y, ydt, i, f(ld<T>(x, xdt, i)));
}

template <typename F, typename T>
__global__ void binary_k(Strided a, Strided b, void* y, int ydt, Dims out, std::uint64_t n) {
  F f{};
  RUNG_GRID_LOOP(i, n) {
    std::uint64_t ia = a.dense ? i : static_cast<std::uint64_t>(offset_of(i, out, a.stride));
    std::uint64_t ib = b.dense ? i : static_cast<std::uint64_t>(offset_of(i, out, b.stride));
    st(y, ydt, i, f(ld<T>(a.data, a.dtype, ia), ld<T>(b.data, b.dtype, ib)));
  }
}

// Dense f32 fast paths: 16-byte loads and stores, four elements per step (the generic
// kernels above move 4 bytes per access and switch on the dtype per element).
template <typename F> __global__ void unary_f32x4_k(const float4* x, float4* y, std::uint64_t n4) {
  F f{};
  RUNG_GRID_LOOP(i, n4) {
    float4 v = x[i];
    y[i] = make_float4(canon(f(v.x)), canon(f(v.y)), canon(f(v.z)), canon(f(v.w)));
  }
}
template <typename F> __global__ void binary_f32x4_k(const float4* a, const float4* b, float4* y, std::uint64_t n4) {
  F f{};
  RUNG_GRID_LOOP(i, n4) {
    float4 u = a[i], v = b[i];
    y[i] = make_float4(canon(f(u.x, v.x)), canon(f(u.y, v.y)), canon(f(u.z, v.z)), canon(f(u.w, v.w)));
  }
}
// F takes float arguments and returns a float (not bool): the f32x4 paths apply. A plain
// `invocable && !same<invoke_result_t...>` would name the result type of formulas with no
// float overload (the unsigned shifts).
template <typename F, typename... A> constexpr bool float_valued() {
  if constexpr (std::is_invocable_v<F, A...>) return !std::is_same_v<std::invoke_result_t<F, A...>, bool>;
  else return false;
}

inline bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

template <typename F> int unary_typed(const void* x, int xdt, void* y, int ydt, std::uint64_t n, cudaStream_t s) {
  if constexpr (float_valued<F, float>()) {
    if (xdt == F32 && ydt == F32 && n >= 4 && aligned16(x) && aligned16(y)) {
      std::uint64_t n4 = n / 4;
      unary_f32x4_k<F><<<blocks_for(n4, 256), 256, 0, s>>>(static_cast<const float4*>(x), static_cast<float4*>(y), n4);
      if (int e = launch_status()) return e;
      if (n % 4 == 0) return 0;
      return unary_typed<F>(static_cast<const float*>(x) + 4 * n4, xdt, static_cast<float*>(y) + 4 * n4, ydt, n % 4, s);
    }
  }
  return with_value_type<true>(xdt, [&](auto tag) -> int {
    using T = decltype(tag);
    if constexpr (std::is_invocable_v<F, T>) {
      unary_k<F, T><<<blocks_for(n, 256), 256, 0, s>>>(x, xdt, y, ydt, n);
      return launch_status();
    } else {
      return static_cast<int>(cudaErrorInvalidValue);
    }
  });
}

template <typename F>
int binary_typed(const Strided& a, const Strided& b, void* y, int ydt, const Dims& out, cudaStream_t s) {
  std::uint64_t n = out.numel();
  if constexpr (float_valued<F, float, float>()) {
    if (a.dense && b.dense && a.dtype == F32 && b.dtype == F32 && ydt == F32 && n >= 4 && aligned16(a.data) &&
        aligned16(b.data) && aligned16(y)) {
      std::uint64_t n4 = n / 4;
      binary_f32x4_k<F><<<blocks_for(n4, 256), 256, 0, s>>>(static_cast<const float4*>(a.data),
                                                            static_cast<const float4*>(b.data), static_cast<float4*>(y), n4);
      if (int e = launch_status()) return e;
      if (n % 4 == 0) return 0;
      Strided ta = a, tb = b;
      ta.data = static_cast<const float*>(a.data) + 4 * n4;
      tb.data = static_cast<const float*>(b.data) + 4 * n4;
      Dims tail;
      tail.rank = 1;
      tail.ext[0] = n % 4;
      return binary_typed<F>(ta, tb, static_cast<float*>(y) + 4 * n4, ydt, tail, s);
    }
  }
  return with_value_type<true>(a.dtype, [&](auto tag) -> int {
    using T = decltype(tag);
    if constexpr (std::is_invocable_v<F, T, T>) {
      binary_k<F, T><<<blocks_for(n, 256), 256, 0, s>>>(a, b, y, ydt, out, n);
      return launch_status();
    } else {
      return static_cast<int>(cudaErrorInvalidValue);
    }
  });
}

__global__ void clamp_k(const void* x, int dt, void* y, std::uint64_t n, double lo, double hi) {
  if (dt == F64) {
    RUNG_GRID_LOOP(i, n) st(y, dt, i, num::Minimum{}(num::Maximum{}(ld<double>(x, dt, i), lo), hi));
  } else {
    float flo = static_cast<float>(lo), fhi = static_cast<float>(hi);
    RUNG_GRID_LOOP(i, n) st(y, dt, i, num::Minimum{}(num::Maximum{}(ld<float>(x, dt, i), flo), fhi));
  }
}

__device__ inline void copy_elem(void* dst, std::uint64_t di, const void* src, std::uint64_t si, int bytes) {
  switch (bytes) {
    case 8: static_cast<std::uint64_t*>(dst)[di] = static_cast<const std::uint64_t*>(src)[si]; break;
    case 4: static_cast<std::uint32_t*>(dst)[di] = static_cast<const std::uint32_t*>(src)[si]; break;
    case 2: static_cast<std::uint16_t*>(dst)[di] = static_cast<const std::uint16_t*>(src)[si]; break;
    default: static_cast<std::uint8_t*>(dst)[di] = static_cast<const std::uint8_t*>(src)[si]; break;
  }
}

__global__ void where_k(Strided c, Strided a, Strided b, void* y, int bytes, Dims out, std::uint64_t n) {
  RUNG_GRID_LOOP(i, n) {
    std::uint64_t ic = c.dense ? i : static_cast<std::uint64_t>(offset_of(i, out, c.stride));
    bool take_a = static_cast<const std::uint8_t*>(c.data)[ic] != 0;
    const Strided& src = take_a ? a : b;
    std::uint64_t is = src.dense ? i : static_cast<std::uint64_t>(offset_of(i, out, src.stride));
    copy_elem(y, i, src.data, is, bytes);
  }
}

__device__ inline bool is_float_dt(int dt) { return dt == F32 || dt == F16 || dt == BF16 || dt == F64; }
__device__ inline bool is_signed_dt(int dt) { return dt == I64 || dt == I32 || dt == I16 || dt == I8; }
__device__ inline int precision_of(int dt) { return dt == F64 ? 53 : dt == F32 ? 24 : dt == F16 ? 11 : 8; }

__device__ inline std::uint64_t ld_bits(const void* p, int dt, std::uint64_t i) {  // integer/bool source
  switch (dt) {
    case I64: return static_cast<std::uint64_t>(static_cast<const std::int64_t*>(p)[i]);
    case I32: return static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<const std::int32_t*>(p)[i]));
    case I16: return static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<const std::int16_t*>(p)[i]));
    case I8: return static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<const std::int8_t*>(p)[i]));
    case U64: return static_cast<const std::uint64_t*>(p)[i];
    case U32: return static_cast<const std::uint32_t*>(p)[i];
    case U16: return static_cast<const std::uint16_t*>(p)[i];
    default: return static_cast<const std::uint8_t*>(p)[i];  // u8, bool
  }
}
__device__ inline void st_int(void* p, int dt, std::uint64_t i, std::uint64_t bits) {
  switch (dtype_bytes(dt)) {
    case 8: static_cast<std::uint64_t*>(p)[i] = bits; break;
    case 4: static_cast<std::uint32_t*>(p)[i] = static_cast<std::uint32_t>(bits); break;
    case 2: static_cast<std::uint16_t*>(p)[i] = static_cast<std::uint16_t>(bits); break;
    default: static_cast<std::uint8_t*>(p)[i] = static_cast<std::uint8_t>(bits); break;
  }
}

// The same case analysis as the reference cast kernel (family_cast.cpp).
__global__ void cast_k(const void* x, int from, void* y, int to, std::uint64_t n) {
  bool to_bool = to == BOOL, to_float = is_float_dt(to);
  RUNG_GRID_LOOP(i, n) {
    if (is_float_dt(from)) {
      double v = ld_f64(x, from, i);
      if (to_bool) st_int(y, to, i, (v != 0.0 || num::is_nan(v)) ? 1 : 0);
      else if (to_float) st_f64(y, to, i, v);
      else st_int(y, to, i, num::double_to_int_saturating(v, dtype_bytes(to) * 8, is_signed_dt(to)));
      continue;
    }
    std::uint64_t bits = ld_bits(x, from, i);
    bool negative = is_signed_dt(from) && static_cast<std::int64_t>(bits) < 0;
    std::uint64_t mag = negative ? ~bits + 1 : bits;
    if (to_bool) st_int(y, to, i, bits != 0 ? 1 : 0);
    else if (to_float) st_f64(y, to, i, num::int_to_double_rounded(negative, mag, precision_of(to)));
    else st_int(y, to, i, bits);
  }
}

struct StridePair {
  std::int64_t v[2 * kMaxRank];
};
__global__ void copy_strided_k2(const void* src, std::int64_t sb, Dims it, void* dst, std::int64_t db, int bytes,
                                std::uint64_t n, StridePair sp) {
  RUNG_GRID_LOOP(i, n) {
    std::int64_t so = sb + offset_of(i, it, sp.v), dof = db + offset_of(i, it, sp.v + kMaxRank);
    copy_elem(dst, static_cast<std::uint64_t>(dof), src, static_cast<std::uint64_t>(so), bytes);
  }
}

__global__ void fill_k(void* dst, std::uint64_t n, int bytes, std::uint64_t pattern) {
  RUNG_GRID_LOOP(i, n) copy_elem(dst, i, &pattern, 0, bytes);
}

}  // namespace

int launch_unary(Ew op, const void* x, int xdt, void* y, int ydt, std::uint64_t n, Stream stream) {
  if (n == 0) return 0;
  auto s = static_cast<cudaStream_t>(stream);
  switch (op) {
    case Ew::neg: return unary_typed<num::Neg>(x, xdt, y, ydt, n, s);
    case Ew::abs: return unary_typed<num::Abs>(x, xdt, y, ydt, n, s);
    case Ew::square: return unary_typed<num::Square>(x, xdt, y, ydt, n, s);
    case Ew::sqrt: return unary_typed<num::Sqrt>(x, xdt, y, ydt, n, s);
    case Ew::rsqrt: return unary_typed<num::Rsqrt>(x, xdt, y, ydt, n, s);
    case Ew::reciprocal: return unary_typed<num::Reciprocal>(x, xdt, y, ydt, n, s);
    case Ew::relu: return unary_typed<num::Relu>(x, xdt, y, ydt, n, s);
    case Ew::exp: return unary_typed<num::Exp>(x, xdt, y, ydt, n, s);
    case Ew::log: return unary_typed<num::Log>(x, xdt, y, ydt, n, s);
    case Ew::sin: return unary_typed<num::Sin>(x, xdt, y, ydt, n, s);
    case Ew::cos: return unary_typed<num::Cos>(x, xdt, y, ydt, n, s);
    case Ew::tanh: return unary_typed<num::Tanh>(x, xdt, y, ydt, n, s);
    case Ew::sigmoid: return unary_typed<num::Sigmoid>(x, xdt, y, ydt, n, s);
    case Ew::silu: return unary_typed<num::Silu>(x, xdt, y, ydt, n, s);
    case Ew::erf: return unary_typed<num::Erf>(x, xdt, y, ydt, n, s);
    case Ew::gelu: return unary_typed<num::GeluErf>(x, xdt, y, ydt, n, s);
    case Ew::gelu_tanh: return unary_typed<num::GeluTanh>(x, xdt, y, ydt, n, s);
    case Ew::floor: return unary_typed<num::Floor>(x, xdt, y, ydt, n, s);
    case Ew::ceil: return unary_typed<num::Ceil>(x, xdt, y, ydt, n, s);
    case Ew::round: return unary_typed<num::Round>(x, xdt, y, ydt, n, s);
    case Ew::asin: return unary_typed<num::Asin>(x, xdt, y, ydt, n, s);
    case Ew::acos: return unary_typed<num::Acos>(x, xdt, y, ydt, n, s);
    case Ew::atan: return unary_typed<num::Atan>(x, xdt, y, ydt, n, s);
    case Ew::logical_not: return unary_typed<num::LogicalNot>(x, xdt, y, ydt, n, s);
    default: return static_cast<int>(cudaErrorInvalidValue);
  }
}

int launch_binary(Ew op, const Strided& a, const Strided& b, void* y, int ydt, const Dims& out, Stream stream) {
  if (out.numel() == 0) return 0;
  auto s = static_cast<cudaStream_t>(stream);
  switch (op) {
    case Ew::add: return binary_typed<num::Add>(a, b, y, ydt, out, s);
    case Ew::sub: return binary_typed<num::Sub>(a, b, y, ydt, out, s);
    case Ew::mul: return binary_typed<num::Mul>(a, b, y, ydt, out, s);
    case Ew::div: return binary_typed<num::Div>(a, b, y, ydt, out, s);
    case Ew::maximum: return binary_typed<num::Maximum>(a, b, y, ydt, out, s);
    case Ew::minimum: return binary_typed<num::Minimum>(a, b, y, ydt, out, s);
    case Ew::pow: return binary_typed<num::Pow>(a, b, y, ydt, out, s);
    case Ew::remainder: return binary_typed<num::Rem>(a, b, y, ydt, out, s);
    case Ew::shift_left: return binary_typed<num::ShiftLeft>(a, b, y, ydt, out, s);
    case Ew::shift_right: return binary_typed<num::ShiftRight>(a, b, y, ydt, out, s);
    case Ew::eq: return binary_typed<num::Eq>(a, b, y, ydt, out, s);
    case Ew::ne: return binary_typed<num::Ne>(a, b, y, ydt, out, s);
    case Ew::lt: return binary_typed<num::Lt>(a, b, y, ydt, out, s);
    case Ew::le: return binary_typed<num::Le>(a, b, y, ydt, out, s);
    case Ew::gt: return binary_typed<num::Gt>(a, b, y, ydt, out, s);
    case Ew::ge: return binary_typed<num::Ge>(a, b, y, ydt, out, s);
    case Ew::logical_and: return binary_typed<num::LogicalAnd>(a, b, y, ydt, out, s);
    case Ew::logical_or: return binary_typed<num::LogicalOr>(a, b, y, ydt, out, s);
    case Ew::logical_xor: return binary_typed<num::LogicalXor>(a, b, y, ydt, out, s);
    default: return static_cast<int>(cudaErrorInvalidValue);
  }
}

int launch_clamp(const void* x, int dtype, void* y, std::uint64_t n, double lo, double hi, Stream s) {
  if (n == 0) return 0;
  clamp_k<<<blocks_for(n, 256), 256, 0, static_cast<cudaStream_t>(s)>>>(x, dtype, y, n, lo, hi);
  return launch_status();
}

int launch_where(const Strided& c, const Strided& a, const Strided& b, void* y, int elem_bytes, const Dims& out,
                 Stream s) {
  std::uint64_t n = out.numel();
  if (n == 0) return 0;
  where_k<<<blocks_for(n, 256), 256, 0, static_cast<cudaStream_t>(s)>>>(c, a, b, y, elem_bytes, out, n);
  return launch_status();
}

int launch_cast(const void* x, int from, void* y, int to, std::uint64_t n, Stream s) {
  if (n == 0) return 0;
  cast_k<<<blocks_for(n, 256), 256, 0, static_cast<cudaStream_t>(s)>>>(x, from, y, to, n);
  return launch_status();
}

int launch_copy_strided(const void* src, std::int64_t src_base, const std::int64_t* src_stride, void* dst,
                        std::int64_t dst_base, const std::int64_t* dst_stride, const Dims& it, int elem_bytes, Stream s) {
  std::uint64_t n = it.numel();
  if (n == 0) return 0;
  StridePair sp{};
  for (int d = 0; d < it.rank; ++d) {
    sp.v[d] = src_stride[d];
    sp.v[kMaxRank + d] = dst_stride[d];
  }
  copy_strided_k2<<<blocks_for(n, 256), 256, 0, static_cast<cudaStream_t>(s)>>>(src, src_base, it, dst, dst_base,
                                                                                 elem_bytes, n, sp);
  return launch_status();
}

int launch_fill(void* dst, std::uint64_t n, int elem_bytes, std::uint64_t pattern, Stream s) {
  if (n == 0) return 0;
  fill_k<<<blocks_for(n, 256), 256, 0, static_cast<cudaStream_t>(s)>>>(dst, n, elem_bytes, pattern);
  return launch_status();
}

}  // namespace rung::cuda
