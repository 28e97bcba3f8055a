// Elementwise arithmetic, transcendentals, comparisons, logical ops, where and cast.
// SIMD (Highway): + - * / maximum minimum and neg abs square sqrt rsqrt reciprocal relu
// floor ceil round on f32/f64 (f16/bf16 rows are widened to f32, computed, and rounded
// once, as the reference does). Scalar over threads: integer dtypes, rung's transcendentals (the exact scalar
// formulas of src/ops/numerics, called per element; exp alone is vectorised, repeating
// num::exp_f32's binary64 sequence lane for lane), comparisons, bit shifts, where and cast.
#include <cstring>

#include "backends/cpu/cpu_kernel.h"
#include "ops/float_precision.h"
#include "backends/cpu/rows.h"
#include "backends/cpu/simd.h"
#include "ops/elementwise_driver.h"
#include "ops/numerics/convert.h"
#include "ops/numerics/elementwise.h"

namespace rung::cpu {

namespace {

using ops::HostTensor;

template <typename F> struct SimdOf { static constexpr bool has = false; };
#define RUNG_SIMD_BIN(F, OP) \
  template <> struct SimdOf<num::F> { static constexpr bool has = true; static constexpr simd::BinOp bin = simd::BinOp::OP; };
RUNG_SIMD_BIN(Add, add)
RUNG_SIMD_BIN(Sub, sub)
RUNG_SIMD_BIN(Mul, mul)
RUNG_SIMD_BIN(Div, div)
RUNG_SIMD_BIN(Maximum, maximum)
RUNG_SIMD_BIN(Minimum, minimum)
#undef RUNG_SIMD_BIN
#define RUNG_SIMD_UN(F, OP) \
  template <> struct SimdOf<num::F> { static constexpr bool has = true; static constexpr simd::UnOp un = simd::UnOp::OP; };
RUNG_SIMD_UN(Neg, neg)
RUNG_SIMD_UN(Abs, abs)
RUNG_SIMD_UN(Square, square)
RUNG_SIMD_UN(Sqrt, sqrt)
RUNG_SIMD_UN(Rsqrt, rsqrt)
RUNG_SIMD_UN(Reciprocal, reciprocal)
RUNG_SIMD_UN(Relu, relu)
RUNG_SIMD_UN(Floor, floor)
RUNG_SIMD_UN(Ceil, ceil)
RUNG_SIMD_UN(Round, round)
#undef RUNG_SIMD_UN

// y = F(a, b) with broadcasting; Out is F's result type (T, or bool for comparisons).
template <typename F, typename T> void binary_typed(CpuContext& c) {
  const HostTensor& a = c.k.inputs[0];
  const HostTensor& b = c.k.inputs[1];
  HostTensor& y = c.k.outputs[0];
  using Out = decltype(F{}(T{}, T{}));
  Rows<2> R = plan_rows<2>(y.shape(), {&a.shape(), &b.shape()});
  c.pool.parallel_for(R.rows, row_grain(R.len, kElemGrain), [&](std::uint64_t r0, std::uint64_t r1) {
    RowBuf<T> ba, bb;
    RowBuf<Out> by;
    const std::uint64_t L = R.len;
    for (std::uint64_t r = r0; r < r1; ++r) {
      std::uint64_t oa = R.offset(0, r), ob = R.offset(1, r), oy = r * L;
      const T* pa = load_row<T>(a, oa, R.contiguous[0] ? L : 1, ba);
      const T* pb = load_row<T>(b, ob, R.contiguous[1] ? L : 1, bb);
      Out* py = out_row<Out>(y, oy, L, by);
      bool sa = !R.contiguous[0], sb = !R.contiguous[1];
      if constexpr (SimdOf<F>::has && std::is_same_v<T, float> && std::is_same_v<Out, float>) {
        simd::binary_f32(SimdOf<F>::bin, pa, sa, pb, sb, py, L);
      } else if constexpr (SimdOf<F>::has && std::is_same_v<T, double> && std::is_same_v<Out, double>) {
        simd::binary_f64(SimdOf<F>::bin, pa, sa, pb, sb, py, L);
      } else {
        F f{};
        for (std::uint64_t i = 0; i < L; ++i) py[i] = f(pa[sa ? 0 : i], pb[sb ? 0 : i]);
      }
      store_row<Out>(y, oy, L, py);
    }
  });
}

template <typename F> void binary_kernel(CpuContext& c) {
  ops::visit_compute_type(c.k.inputs[0].dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_invocable_v<F, T, T>) binary_typed<F, T>(c);
    else RUNG_UNREACHABLE("dtype admitted by the signature but not implemented by the formula");
  });
}

template <typename F, typename T> void unary_typed(CpuContext& c, const F& f) {
  const HostTensor& x = c.k.inputs[0];
  HostTensor& y = c.k.outputs[0];
  using Out = decltype(f(T{}));
  std::uint64_t n = x.numel();
  c.pool.parallel_for(n, kElemGrain, [&](std::uint64_t i0, std::uint64_t i1) {
    RowBuf<T> bx;
    RowBuf<Out> by;
    std::uint64_t L = i1 - i0;
    const T* px = load_row<T>(x, i0, L, bx);
    Out* py = out_row<Out>(y, i0, L, by);
    if constexpr (std::is_same_v<F, num::Exp> && std::is_same_v<T, float>) {
      simd::exp_f32(px, py, L);
    } else if constexpr (SimdOf<F>::has && std::is_same_v<T, float> && std::is_same_v<Out, float>) {
      simd::unary_f32(SimdOf<F>::un, px, py, L);
    } else if constexpr (SimdOf<F>::has && std::is_same_v<T, double> && std::is_same_v<Out, double>) {
      simd::unary_f64(SimdOf<F>::un, px, py, L);
    } else {
      for (std::uint64_t i = 0; i < L; ++i) py[i] = f(px[i]);
    }
    store_row<Out>(y, i0, L, py);
  });
}

template <typename F> void unary_kernel(CpuContext& c) {
  ops::visit_compute_type(c.k.inputs[0].dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_invocable_v<F, T>) unary_typed<F, T>(c, F{});
    else RUNG_UNREACHABLE("dtype admitted by the signature but not implemented by the formula");
  });
}

void gelu_kernel(CpuContext& c) {
  if (c.k.attrs.string("approximate") == "tanh") unary_kernel<num::GeluTanh>(c);
  else unary_kernel<num::GeluErf>(c);
}

void bit_shift_kernel(CpuContext& c) {
  if (c.k.attrs.string("direction") == "right") binary_kernel<num::ShiftRight>(c);
  else binary_kernel<num::ShiftLeft>(c);
}

void clamp_kernel(CpuContext& c) {
  double lo = c.k.attrs.real("min"), hi = c.k.attrs.real("max");
  if (c.k.inputs[0].dtype() == DType::f64) {
    auto f = [lo, hi](double v) { return num::Minimum{}(num::Maximum{}(v, lo), hi); };
    unary_typed<decltype(f), double>(c, f);
  } else {
    auto flo = static_cast<float>(lo), fhi = static_cast<float>(hi);
    auto f = [flo, fhi](float v) { return num::Minimum{}(num::Maximum{}(v, flo), fhi); };
    unary_typed<decltype(f), float>(c, f);
  }
}

// where: a bit copy of the chosen operand's element.
void where_kernel(CpuContext& c) {
  const HostTensor &cond = c.k.inputs[0], &a = c.k.inputs[1], &b = c.k.inputs[2];
  HostTensor& y = c.k.outputs[0];
  std::size_t w = dtype_info(y.dtype()).block_bytes;
  Rows<3> R = plan_rows<3>(y.shape(), {&cond.shape(), &a.shape(), &b.shape()});
  c.pool.parallel_for(R.rows, row_grain(R.len, kElemGrain), [&](std::uint64_t r0, std::uint64_t r1) {
    for (std::uint64_t r = r0; r < r1; ++r) {
      std::uint64_t oc = R.offset(0, r), oa = R.offset(1, r), ob = R.offset(2, r), oy = r * R.len;
      std::uint64_t sc = R.contiguous[0], sa = R.contiguous[1], sb = R.contiguous[2];
      const std::uint8_t* pc = cond.bytes().data() + oc;
      const std::uint8_t* pa = a.bytes().data() + oa * w;
      const std::uint8_t* pb = b.bytes().data() + ob * w;
      std::uint8_t* py = y.bytes().data() + oy * w;
      for (std::uint64_t i = 0; i < R.len; ++i)
        std::memcpy(py + i * w, pc[i * sc] ? pa + i * sa * w : pb + i * sb * w, w);
    }
  });
}

using ops::precision_of;
// cast: the reference's conversion rules (numerics/convert.h) per element, over threads.
void cast_kernel(CpuContext& c) {
  const HostTensor& x = c.k.inputs[0];
  HostTensor& y = c.k.outputs[0];
  const DTypeInfo& from = dtype_info(x.dtype());
  const DTypeInfo& to = dtype_info(y.dtype());
  bool from_bool = x.dtype() == DType::boolean, to_bool = y.dtype() == DType::boolean;
  int to_bits = static_cast<int>(to.block_bytes) * 8, to_prec = precision_of(y.dtype());
  if (x.dtype() == DType::f32 && y.dtype() == DType::f32) {
    std::memcpy(y.bytes().data(), x.bytes().data(), x.bytes().size());
    return;
  }
  c.pool.parallel_for(x.numel(), kElemGrain, [&](std::uint64_t i0, std::uint64_t i1) {
    for (std::uint64_t i = i0; i < i1; ++i) {
      if (from.is_float) {
        double v = x.load_f64(i);
        if (to_bool) y.store_bool(i, v != 0.0 || num::is_nan(v));
        else if (to.is_float) y.store_f64(i, v);
        else y.store_int(i, num::double_to_int_saturating(v, to_bits, to.is_signed));
        continue;
      }
      bool negative = false;
      std::uint64_t bits;
      if (from_bool || !from.is_signed) {
        bits = x.load_u64(i);
      } else {
        std::int64_t s = x.load_i64(i);
        negative = s < 0;
        bits = static_cast<std::uint64_t>(s);
      }
      std::uint64_t mag = negative ? ~bits + 1 : bits;
      if (to_bool) y.store_bool(i, bits != 0);
      else if (to.is_float) y.store_f64(i, num::int_to_double_rounded(negative, mag, to_prec));
      else y.store_int(i, bits);
    }
  });
}

}  // namespace

void register_elementwise_kernels(ops::OpRegistry& r) {
  const Impl S = Impl::simd, C = Impl::scalar;
  const Outputs W = Outputs::overwritten;  // every kernel here writes each output element
  add_kernel(r, "add", binary_kernel<num::Add>, S, W);
  add_kernel(r, "sub", binary_kernel<num::Sub>, S, W);
  add_kernel(r, "mul", binary_kernel<num::Mul>, S, W);
  add_kernel(r, "div", binary_kernel<num::Div>, S, W);
  add_kernel(r, "remainder", binary_kernel<num::Rem>, C, W);
  add_kernel(r, "maximum", binary_kernel<num::Maximum>, S, W);
  add_kernel(r, "minimum", binary_kernel<num::Minimum>, S, W);
  add_kernel(r, "neg", unary_kernel<num::Neg>, S, W);
  add_kernel(r, "abs", unary_kernel<num::Abs>, S, W);
  add_kernel(r, "square", unary_kernel<num::Square>, S, W);
  add_kernel(r, "sqrt", unary_kernel<num::Sqrt>, S, W);
  add_kernel(r, "rsqrt", unary_kernel<num::Rsqrt>, S, W);
  add_kernel(r, "reciprocal", unary_kernel<num::Reciprocal>, S, W);
  add_kernel(r, "relu", unary_kernel<num::Relu>, S, W);
  add_kernel(r, "floor", unary_kernel<num::Floor>, S, W);
  add_kernel(r, "ceil", unary_kernel<num::Ceil>, S, W);
  add_kernel(r, "round", unary_kernel<num::Round>, S, W);
  add_kernel(r, "asin", unary_kernel<num::Asin>, C, W);
  add_kernel(r, "acos", unary_kernel<num::Acos>, C, W);
  add_kernel(r, "atan", unary_kernel<num::Atan>, C, W);
  add_kernel(r, "bit_shift", bit_shift_kernel, C, W);
  add_kernel(r, "clamp", clamp_kernel, C, W);
  add_kernel(r, "exp", unary_kernel<num::Exp>, S, W);
  add_kernel(r, "log", unary_kernel<num::Log>, C, W);
  add_kernel(r, "sin", unary_kernel<num::Sin>, C, W);
  add_kernel(r, "cos", unary_kernel<num::Cos>, C, W);
  add_kernel(r, "tanh", unary_kernel<num::Tanh>, C, W);
  add_kernel(r, "sigmoid", unary_kernel<num::Sigmoid>, C, W);
  add_kernel(r, "silu", unary_kernel<num::Silu>, C, W);
  add_kernel(r, "erf", unary_kernel<num::Erf>, C, W);
  add_kernel(r, "gelu", gelu_kernel, C, W);
  add_kernel(r, "pow", binary_kernel<num::Pow>, C, W);
  add_kernel(r, "eq", binary_kernel<num::Eq>, C, W);
  add_kernel(r, "ne", binary_kernel<num::Ne>, C, W);
  add_kernel(r, "lt", binary_kernel<num::Lt>, C, W);
  add_kernel(r, "le", binary_kernel<num::Le>, C, W);
  add_kernel(r, "gt", binary_kernel<num::Gt>, C, W);
  add_kernel(r, "ge", binary_kernel<num::Ge>, C, W);
  add_kernel(r, "logical_and", binary_kernel<num::LogicalAnd>, C, W);
  add_kernel(r, "logical_or", binary_kernel<num::LogicalOr>, C, W);
  add_kernel(r, "logical_xor", binary_kernel<num::LogicalXor>, C, W);
  add_kernel(r, "logical_not", unary_kernel<num::LogicalNot>, C, W);
  add_kernel(r, "where", where_kernel, C, W);
  add_kernel(r, "cast", cast_kernel, C, W);
}

}  // namespace rung::cpu
