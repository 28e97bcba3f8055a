// Highway kernels for elementwise arithmetic and canonical-tree reduction chunks (see
// simd.h). Only IEEE-exact operations are vectorised here (+ - * /, sqrt, min/max with
// rung's NaN and signed-zero rules); transcendentals call rung's scalar formulas.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/simd_elementwise.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "backends/cpu/simd.h"
#include "ops/numerics/elementwise.h"

HWY_BEFORE_NAMESPACE();
namespace rung::cpu::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// maximum/minimum exactly as num::Maximum/Minimum: NaN if either is NaN; for equal values
// max picks the one without the sign bit (+0 over -0), min the one with it. For equal
// operands the bitwise AND (max) / OR (min) is that choice.
template <class D, class V> HWY_INLINE V Max(D d, V a, V b) {
  auto nan = hn::Or(hn::IsNaN(a), hn::IsNaN(b));
  V r = hn::IfThenElse(hn::Gt(a, b), a, b);
  r = hn::IfThenElse(hn::Eq(a, b), hn::And(a, b), r);
  (void)d;
  return hn::IfThenElse(nan, hn::Add(a, b), r);
}
template <class D, class V> HWY_INLINE V Min(D d, V a, V b) {
  auto nan = hn::Or(hn::IsNaN(a), hn::IsNaN(b));
  V r = hn::IfThenElse(hn::Lt(a, b), a, b);
  r = hn::IfThenElse(hn::Eq(a, b), hn::Or(a, b), r);
  (void)d;
  return hn::IfThenElse(nan, hn::Add(a, b), r);
}

template <class D, class V> HWY_INLINE V Bin(D d, BinOp op, V a, V b) {
  switch (op) {
    case BinOp::add: return hn::Add(a, b);
    case BinOp::sub: return hn::Sub(a, b);
    case BinOp::mul: return hn::Mul(a, b);
    case BinOp::div: return hn::Div(a, b);
    case BinOp::maximum: return Max(d, a, b);
    case BinOp::minimum: return Min(d, a, b);
  }
  return a;
}

template <typename T> T BinScalar(BinOp op, T a, T b) {
  switch (op) {
    case BinOp::add: return num::Add{}(a, b);
    case BinOp::sub: return num::Sub{}(a, b);
    case BinOp::mul: return num::Mul{}(a, b);
    case BinOp::div: return num::Div{}(a, b);
    case BinOp::maximum: return num::Maximum{}(a, b);
    case BinOp::minimum: return num::Minimum{}(a, b);
  }
  return a;
}

template <typename T>
void BinaryT(BinOp op, const T* a, bool as, const T* b, bool bs, T* y, size_t n) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  if (n == 0) return;
  size_t i = 0;
  auto va0 = hn::Set(d, a[0]);
  auto vb0 = hn::Set(d, b[0]);
  for (; i + N <= n; i += N) {
    auto va = as ? va0 : hn::LoadU(d, a + i);
    auto vb = bs ? vb0 : hn::LoadU(d, b + i);
    hn::StoreU(Bin(d, op, va, vb), d, y + i);
  }
  for (; i < n; ++i) y[i] = BinScalar<T>(op, a[as ? 0 : i], b[bs ? 0 : i]);
}

void BinaryF32(BinOp op, const float* a, bool as, const float* b, bool bs, float* y, size_t n) { BinaryT(op, a, as, b, bs, y, n); }
// Targets without f64 vectors (HWY_HAVE_FLOAT64 0: WASM, WASM_EMU256 in Highway 1.0.3) run the
// f64 routines lane by lane with the scalar formulas the vector tails use: the same bits.
void BinaryF64(BinOp op, const double* a, bool as, const double* b, bool bs, double* y, size_t n) {
#if HWY_HAVE_FLOAT64
  BinaryT(op, a, as, b, bs, y, n);
#else
  for (size_t i = 0; i < n; ++i) y[i] = BinScalar<double>(op, a[as ? 0 : i], b[bs ? 0 : i]);
#endif
}

template <class D, class V> HWY_INLINE V Un(D d, UnOp op, V x) {
  using T = hn::TFromD<D>;
  switch (op) {
    case UnOp::neg: return hn::Neg(x);
    case UnOp::abs: return hn::Abs(x);
    case UnOp::square: return hn::Mul(x, x);
    case UnOp::sqrt: return hn::Sqrt(x);
    case UnOp::rsqrt: return hn::Div(hn::Set(d, T(1)), hn::Sqrt(x));
    case UnOp::reciprocal: return hn::Div(hn::Set(d, T(1)), x);
    case UnOp::relu: return hn::IfThenElse(hn::IsNaN(x), x, hn::IfThenElseZero(hn::Gt(x, hn::Zero(d)), x));
    // The result's sign is x's (num::integral_f64); targets that emulate rounding through
    // integer conversion would turn ceil(-0.5) into +0 without the CopySign.
    case UnOp::floor: return hn::CopySign(hn::Floor(x), x);
    case UnOp::ceil: return hn::CopySign(hn::Ceil(x), x);
    case UnOp::round: return hn::CopySign(hn::Round(x), x);
  }
  return x;
}

template <typename T> T UnScalar(UnOp op, T x) {
  switch (op) {
    case UnOp::neg: return num::Neg{}(x);
    case UnOp::abs: return num::Abs{}(x);
    case UnOp::square: return num::Square{}(x);
    case UnOp::sqrt: return num::Sqrt{}(x);
    case UnOp::rsqrt: return num::Rsqrt{}(x);
    case UnOp::reciprocal: return num::Reciprocal{}(x);
    case UnOp::relu: return num::Relu{}(x);
    case UnOp::floor: return num::Floor{}(x);
    case UnOp::ceil: return num::Ceil{}(x);
    case UnOp::round: return num::Round{}(x);
  }
  return x;
}

template <typename T> void UnaryT(UnOp op, const T* x, T* y, size_t n) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(Un(d, op, hn::LoadU(d, x + i)), d, y + i);
  for (; i < n; ++i) y[i] = UnScalar<T>(op, x[i]);
}

void UnaryF32(UnOp op, const float* x, float* y, size_t n) { UnaryT(op, x, y, n); }
void UnaryF64(UnOp op, const double* x, double* y, size_t n) {
#if HWY_HAVE_FLOAT64
  UnaryT(op, x, y, n);
#else
  for (size_t i = 0; i < n; ++i) y[i] = UnScalar<double>(op, x[i]);
#endif
}

// ---- exp: num::exp_f32, lane for lane the same binary64 operation sequence (no fma: the
// build forbids contraction), then one RNE rounding to f32; specials selected afterwards.

#if HWY_HAVE_FLOAT64
HWY_INLINE hn::Vec<hn::ScalableTag<double>> ExpApproxF64(hn::Vec<hn::ScalableTag<double>> x) {
  const hn::ScalableTag<double> d;
  const hn::RebindToSigned<decltype(d)> di;
  const hn::RebindToUnsigned<decltype(d)> du;
  using namespace num::exp_log_const;
  const auto shifter = hn::Set(d, 6755399441055744.0);  // round_even_f64: + and - 1.5 * 2^52
  auto k = hn::Sub(hn::Add(hn::Mul(x, hn::Set(d, kLog2e)), shifter), shifter);
  auto r = hn::Sub(hn::Sub(x, hn::Mul(k, hn::Set(d, kLn2Hi))), hn::Mul(k, hn::Set(d, kLn2Lo)));
  auto p = hn::Set(d, 0x1.ae64567f544e4p-26);
  p = hn::Add(hn::Mul(p, r), hn::Set(d, 0x1.27e4fb7789f5cp-22));
  p = hn::Add(hn::Mul(p, r), hn::Set(d, 0x1.71de3a556c734p-19));
  p = hn::Add(hn::Mul(p, r), hn::Set(d, 0x1.a01a01a01a01ap-16));
  p = hn::Add(hn::Mul(p, r), hn::Set(d, 0x1.a01a01a01a01ap-13));
  p = hn::Add(hn::Mul(p, r), hn::Set(d, 0x1.6c16c16c16c17p-10));
  p = hn::Add(hn::Mul(p, r), hn::Set(d, 0x1.1111111111111p-7));
  p = hn::Add(hn::Mul(p, r), hn::Set(d, 0x1.5555555555555p-5));
  p = hn::Add(hn::Mul(p, r), hn::Set(d, 0x1.5555555555555p-3));
  p = hn::Add(hn::Mul(p, r), hn::Set(d, 0.5));
  p = hn::Add(hn::Mul(p, r), hn::Set(d, 1.0));
  p = hn::Add(hn::Mul(p, r), hn::Set(d, 1.0));
  // ki / 2 truncating toward zero (C division), then 2^k1 and 2^(ki - k1) from their bits.
  auto ki = hn::ConvertTo(di, k);
  auto k1 = hn::ShiftRight<1>(hn::Add(ki, hn::BitCast(di, hn::ShiftRight<63>(hn::BitCast(du, ki)))));
  auto bias = hn::Set(di, 1023);
  auto s1 = hn::BitCast(d, hn::ShiftLeft<52>(hn::Add(k1, bias)));
  auto s2 = hn::BitCast(d, hn::ShiftLeft<52>(hn::Add(hn::Sub(ki, k1), bias)));
  return hn::Mul(hn::Mul(p, s1), s2);
}
#endif  // HWY_HAVE_FLOAT64

void ExpF32(const float* x, float* y, size_t n) {
#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128 || !HWY_HAVE_FLOAT64
  // These targets' f64 -> f32 demotion clamps to the largest float instead of rounding to
  // inf (or they have no f64 vectors: WASM), so the scalar formula runs instead.
  for (size_t i = 0; i < n; ++i) y[i] = num::exp_f32(x[i]);
#else
  const hn::ScalableTag<double> d;
  const hn::Rebind<float, decltype(d)> df;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    auto xf = hn::LoadU(df, x + i);
    auto e = hn::DemoteTo(df, ExpApproxF64(hn::PromoteTo(d, xf)));
    e = hn::IfThenZeroElse(hn::Lt(xf, hn::Set(df, -110.0f)), e);
    e = hn::IfThenElse(hn::Gt(xf, hn::Set(df, 100.0f)), hn::Set(df, num::inf_f32()), e);
    e = hn::IfThenElse(hn::IsNaN(xf), hn::Set(df, num::nan_f32()), e);
    hn::StoreU(e, df, y + i);
  }
  for (; i < n; ++i) y[i] = num::exp_f32(x[i]);
#endif
}

// ---- canonical-tree chunks

template <typename T> T Identity(RedOp op) {
  switch (op) {
    case RedOp::sum: return T(0);
    case RedOp::max: return -std::numeric_limits<T>::infinity();
    case RedOp::min: return std::numeric_limits<T>::infinity();
  }
  return T(0);
}

template <class D, class V> HWY_INLINE V Red(D d, RedOp op, V acc, V x) {
  switch (op) {
    case RedOp::sum: return hn::Add(acc, x);
    case RedOp::max: return Max(d, acc, x);
    case RedOp::min: return Min(d, acc, x);
  }
  return acc;
}

template <typename T> T RedScalar(RedOp op, T a, T b) {
  switch (op) {
    case RedOp::sum: return a + b;
    case RedOp::max: return num::Maximum{}(a, b);
    case RedOp::min: return num::Minimum{}(a, b);
  }
  return a;
}

// The 32 canonical lanes live in 32 / N vectors (N = lanes per vector, at most 32 here);
// lane l of the tree is lane l % N of vector l / N.
template <typename T> T ChunkT(RedOp op, const T* x, size_t n) {
  const hn::ScalableTag<T> d;
  constexpr size_t kLanes = 32;
  const size_t N = hn::Lanes(d);
  HWY_ALIGN T lanes[kLanes];
  T id = Identity<T>(op);
  if (N <= kLanes && kLanes % N == 0 && N >= 4) {
    const size_t nv = kLanes / N;
    size_t i = 0;
#if HWY_HAVE_SCALABLE
    // SVE vectors are sizeless and cannot be array elements: the canonical lanes stay in
    // memory and each block updates them a vector at a time (the same operations).
    for (size_t l = 0; l < kLanes; ++l) lanes[l] = id;
    for (; i + kLanes <= n; i += kLanes)
      for (size_t v = 0; v < nv; ++v)
        hn::Store(Red(d, op, hn::Load(d, lanes + v * N), hn::LoadU(d, x + i + v * N)), d, lanes + v * N);
#else
    using V = hn::Vec<decltype(d)>;
    V acc[kLanes / 4];
    for (size_t v = 0; v < nv; ++v) acc[v] = hn::Set(d, id);
    for (; i + kLanes <= n; i += kLanes)
      for (size_t v = 0; v < nv; ++v) acc[v] = Red(d, op, acc[v], hn::LoadU(d, x + i + v * N));
    for (size_t v = 0; v < nv; ++v) hn::Store(acc[v], d, lanes + v * N);
#endif
    for (size_t l = 0; i + l < n; ++l) lanes[l] = RedScalar(op, lanes[l], x[i + l]);
  } else {
    for (size_t l = 0; l < kLanes; ++l) lanes[l] = id;
    for (size_t i = 0; i < n; ++i) lanes[i % kLanes] = RedScalar(op, lanes[i % kLanes], x[i]);
  }
  for (size_t s = kLanes / 2; s >= 1; s /= 2)
    for (size_t l = 0; l < s; ++l) lanes[l] = RedScalar(op, lanes[l], lanes[l + s]);
  return lanes[0];
}

float ChunkF32(RedOp op, const float* x, size_t n) { return ChunkT(op, x, n); }
double ChunkF64(RedOp op, const double* x, size_t n) {
#if HWY_HAVE_FLOAT64
  return ChunkT(op, x, n);
#else  // the same 32-lane tree, lane l taking elements l, l + 32, ... in order (ChunkT's tail)
  constexpr size_t kLanes = 32;
  double lanes[kLanes];
  for (size_t l = 0; l < kLanes; ++l) lanes[l] = Identity<double>(op);
  for (size_t i = 0; i < n; ++i) lanes[i % kLanes] = RedScalar(op, lanes[i % kLanes], x[i]);
  for (size_t s = kLanes / 2; s >= 1; s /= 2)
    for (size_t l = 0; l < s; ++l) lanes[l] = RedScalar(op, lanes[l], lanes[l + s]);
  return lanes[0];
#endif
}

// w outputs side by side: acc[l][j] is lane l of output j's tree, kept in a row of memory
// (32 rows of w values) and updated one vector of outputs at a time.
void ColumnChunkF32(RedOp op, const float* x, size_t stride, size_t n, size_t w, float* out) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  constexpr size_t kLanes = 32;
  float id = Identity<float>(op);
  std::vector<float> acc(kLanes * w, id);
  for (size_t r = 0; r < n; ++r) {
    float* a = acc.data() + (r % kLanes) * w;
    const float* row = x + r * stride;
    size_t j = 0;
    for (; j + N <= w; j += N) hn::StoreU(Red(d, op, hn::LoadU(d, a + j), hn::LoadU(d, row + j)), d, a + j);
    for (; j < w; ++j) a[j] = RedScalar(op, a[j], row[j]);
  }
  for (size_t s = kLanes / 2; s >= 1; s /= 2)
    for (size_t l = 0; l < s; ++l) {
      float* a = acc.data() + l * w;
      const float* b = acc.data() + (l + s) * w;
      size_t j = 0;
      for (; j + N <= w; j += N) hn::StoreU(Red(d, op, hn::LoadU(d, a + j), hn::LoadU(d, b + j)), d, a + j);
      for (; j < w; ++j) a[j] = RedScalar(op, a[j], b[j]);
    }
  for (size_t j = 0; j < w; ++j) out[j] = acc[j];
}

// NaN lanes become the canonical NaN; vectors without a NaN are only read.
template <typename T, typename U> void CanonicalizeT(T* p, size_t n, U canonical_bits) {
  const hn::ScalableTag<T> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  const size_t N = hn::Lanes(d);
  const auto canon = hn::BitCast(d, hn::Set(du, canonical_bits));
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto v = hn::LoadU(d, p + i);
    const auto nan = hn::IsNaN(v);
    if (!hn::AllFalse(d, nan)) hn::StoreU(hn::IfThenElse(nan, canon, v), d, p + i);
  }
  for (; i < n; ++i)
    if (p[i] != p[i]) std::memcpy(p + i, &canonical_bits, sizeof(T));
}
void CanonicalizeF32(float* p, size_t n, uint32_t bits) { CanonicalizeT(p, n, bits); }
void CanonicalizeF64(double* p, size_t n, uint64_t bits) {
#if HWY_HAVE_FLOAT64
  CanonicalizeT(p, n, bits);
#else
  for (size_t i = 0; i < n; ++i)
    if (p[i] != p[i]) std::memcpy(p + i, &bits, sizeof(double));
#endif
}

// Aligned vectors go out with non-temporal stores: the destination is not read first (no
// read-for-ownership) and the copy does not evict the working set from the cache.
void StreamCopy(uint8_t* dst, const uint8_t* src, size_t bytes) {
  const hn::ScalableTag<uint8_t> d;
  const size_t N = hn::Lanes(d);
  size_t head = std::min(bytes, (N - reinterpret_cast<uintptr_t>(dst) % N) % N);
  std::memcpy(dst, src, head);
  size_t i = head;
  for (; i + N <= bytes; i += N) hn::Stream(hn::LoadU(d, src + i), d, dst + i);
  std::memcpy(dst + i, src + i, bytes - i);
  hwy::FlushStream();
}

}  // namespace HWY_NAMESPACE
}  // namespace rung::cpu::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace rung::cpu::simd {

HWY_EXPORT(BinaryF32);
HWY_EXPORT(BinaryF64);
HWY_EXPORT(UnaryF32);
HWY_EXPORT(UnaryF64);
HWY_EXPORT(ExpF32);
HWY_EXPORT(ChunkF32);
HWY_EXPORT(ChunkF64);
HWY_EXPORT(ColumnChunkF32);
HWY_EXPORT(StreamCopy);
HWY_EXPORT(CanonicalizeF32);
HWY_EXPORT(CanonicalizeF64);

void binary_f32(BinOp op, const float* a, bool as, const float* b, bool bs, float* y, std::size_t n) {
  HWY_DYNAMIC_DISPATCH(BinaryF32)(op, a, as, b, bs, y, n);
}
void binary_f64(BinOp op, const double* a, bool as, const double* b, bool bs, double* y, std::size_t n) {
  HWY_DYNAMIC_DISPATCH(BinaryF64)(op, a, as, b, bs, y, n);
}
void unary_f32(UnOp op, const float* x, float* y, std::size_t n) { HWY_DYNAMIC_DISPATCH(UnaryF32)(op, x, y, n); }
void unary_f64(UnOp op, const double* x, double* y, std::size_t n) { HWY_DYNAMIC_DISPATCH(UnaryF64)(op, x, y, n); }
void exp_f32(const float* x, float* y, std::size_t n) { HWY_DYNAMIC_DISPATCH(ExpF32)(x, y, n); }
float chunk_f32(RedOp op, const float* x, std::size_t n) { return HWY_DYNAMIC_DISPATCH(ChunkF32)(op, x, n); }
double chunk_f64(RedOp op, const double* x, std::size_t n) { return HWY_DYNAMIC_DISPATCH(ChunkF64)(op, x, n); }
void column_chunk_f32(RedOp op, const float* x, std::size_t stride, std::size_t n, std::size_t w, float* out) {
  HWY_DYNAMIC_DISPATCH(ColumnChunkF32)(op, x, stride, n, w, out);
}
void canonicalize_nans_f32(float* p, std::size_t n, std::uint32_t canonical_bits) {
  HWY_DYNAMIC_DISPATCH(CanonicalizeF32)(p, n, canonical_bits);
}
void canonicalize_nans_f64(double* p, std::size_t n, std::uint64_t canonical_bits) {
  HWY_DYNAMIC_DISPATCH(CanonicalizeF64)(p, n, canonical_bits);
}
void stream_copy(void* dst, const void* src, std::size_t bytes) {
  HWY_DYNAMIC_DISPATCH(StreamCopy)(static_cast<std::uint8_t*>(dst), static_cast<const std::uint8_t*>(src), bytes);
}

}  // namespace rung::cpu::simd
#endif
