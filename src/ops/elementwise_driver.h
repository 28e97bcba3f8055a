// The reference loop for elementwise ops: broadcasting iteration plus dtype dispatch. An op
// supplies only its scalar formula as a functor with one overload per compute type; f16 and
// bf16 are loaded to float (exact) and the float result is rounded back to storage (RNE),
// which for +, -, *, / and sqrt equals the correctly rounded 16-bit operation (docs/semantics.md).
#pragma once

#include <array>
#include <type_traits>

#include "base/check.h"
#include "ops/op_def.h"

namespace rung::ops {

// Calls fn(tag) with a value of the C++ compute type of `t`.
template <typename Fn> decltype(auto) visit_compute_type(DType t, Fn&& fn) {
  switch (t) {
    case DType::f32: case DType::f16: case DType::bf16: return fn(float{});
    case DType::f64: return fn(double{});
    case DType::i64: return fn(std::int64_t{});
    case DType::i32: return fn(std::int32_t{});
    case DType::i16: return fn(std::int16_t{});
    case DType::i8: return fn(std::int8_t{});
    case DType::u64: return fn(std::uint64_t{});
    case DType::u32: return fn(std::uint32_t{});
    case DType::u16: return fn(std::uint16_t{});
    case DType::u8: return fn(std::uint8_t{});
    case DType::boolean: return fn(bool{});
    default: RUNG_UNREACHABLE("no compute type for a quantized dtype");
  }
}

template <typename T> T load_as(const HostTensor& t, std::uint64_t i) {
  if constexpr (std::is_same_v<T, float>) return t.load_f32(i);
  else if constexpr (std::is_same_v<T, bool>) return t.raw<std::uint8_t>(i) != 0;
  else return t.raw<T>(i);
}

template <typename T> void store_as(HostTensor& t, std::uint64_t i, T v) {
  if constexpr (std::is_same_v<T, float>) t.store_f32(i, v);
  else if constexpr (std::is_same_v<T, bool>) t.set_raw<std::uint8_t>(i, v ? 1 : 0);
  else t.set_raw<T>(i, v);
}

// Per-input element strides aligned to the output's rank; 0 where the input broadcasts.
inline std::vector<std::uint64_t> broadcast_strides(const Extents& in, const Extents& out) {
  std::vector<std::uint64_t> s(out.size(), 0);
  std::uint64_t stride = 1;
  for (std::size_t k = 0; k < in.size(); ++k) {
    std::size_t di = in.size() - 1 - k, dout = out.size() - 1 - k;
    s[dout] = in[di] == 1 ? 0 : stride;
    stride *= in[di];
  }
  return s;
}

// Calls fn(out_index, in_offsets) for every element of `out` in row-major order, where
// in_offsets[k] is the matching element of an input of extents ins[k] (broadcast to `out`).
template <std::size_t N, typename Fn>
void for_each_broadcast(const Extents& out, const std::array<const Extents*, N>& ins, Fn&& fn) {
  std::uint64_t n = element_count(out);
  if (n == 0) return;
  std::array<std::vector<std::uint64_t>, N> strides;
  for (std::size_t k = 0; k < N; ++k) strides[k] = broadcast_strides(*ins[k], out);
  std::vector<std::uint64_t> idx(out.size(), 0);
  std::array<std::uint64_t, N> off{};
  for (std::uint64_t i = 0; i < n; ++i) {
    fn(i, off);
    for (std::size_t d = out.size(); d-- > 0;) {  // odometer step
      for (std::size_t k = 0; k < N; ++k) off[k] += strides[k][d];
      if (++idx[d] < out[d]) break;
      for (std::size_t k = 0; k < N; ++k) off[k] -= strides[k][d] * out[d];
      idx[d] = 0;
    }
  }
}

// y = F(x), same dtype in and out (or whatever F returns for that compute type).
template <typename F> void unary_kernel(KernelContext& c) {
  const HostTensor& x = c.inputs[0];
  HostTensor& y = c.outputs[0];
  visit_compute_type(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_invocable_v<F, T>) {
      F f{};
      std::uint64_t n = x.numel();
      for (std::uint64_t i = 0; i < n; ++i) store_as(y, i, f(load_as<T>(x, i)));
    } else {
      RUNG_UNREACHABLE("dtype admitted by the signature but not implemented by the formula");
    }
  });
}

// y = F(a, b) with broadcasting; a and b share a dtype.
template <typename F> void binary_kernel(KernelContext& c) {
  const HostTensor& a = c.inputs[0];
  const HostTensor& b = c.inputs[1];
  HostTensor& y = c.outputs[0];
  visit_compute_type(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_invocable_v<F, T, T>) {
      F f{};
      for_each_broadcast<2>(y.shape(), {&a.shape(), &b.shape()}, [&](std::uint64_t i, const std::array<std::uint64_t, 2>& o) {
        store_as(y, i, f(load_as<T>(a, o[0]), load_as<T>(b, o[1])));
      });
    } else {
      RUNG_UNREACHABLE("dtype admitted by the signature but not implemented by the formula");
    }
  });
}

}  // namespace rung::ops
