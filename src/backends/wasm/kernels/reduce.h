// Reductions and softmax over axes, as the reference computes them (src/ops/family_reduce.cpp,
// family_softmax.cpp): output o runs over the kept axes in row-major order; its sequence is
// the reduced elements in row-major order of the reduced axes (ops/reduce_layout.h), and
// floating-point sums take the canonical tree (ops/numerics/reduce_tree.h).
#pragma once

#include "backends/wasm/kernels/base.h"
#include "ops/numerics/elementwise.h"
#include "ops/numerics/exp_log.h"
#include "ops/numerics/reduce_tree.h"

namespace rung::wasm_kernels {

// The split of x's dims into kept and reduced ones (bit d of `mask` set: dim d is reduced).
struct ReduceLayout {
  u32 kept_rank = 0, red_rank = 0;
  u32 kept_shape[kMaxRank] = {}, kept_stride[kMaxRank] = {};
  u32 red_shape[kMaxRank] = {}, red_stride[kMaxRank] = {};
  u32 count = 1;         // elements per output
  bool trailing = true;  // the reduced elements of an output are contiguous: offset i is i

  ReduceLayout(u32 rank, const u32* shape, u32 mask) {
    u32 stride = 1;
    u32 strides[kMaxRank] = {};
    for (u32 d = rank; d-- > 0;) {
      strides[d] = stride;
      stride *= shape[d];
    }
    bool seen_kept = false;
    for (u32 d = rank; d-- > 0;) {
      if (mask >> d & 1u) {
        trailing = trailing && !seen_kept;
      } else {
        seen_kept = true;
      }
    }
    for (u32 d = 0; d < rank; ++d) {
      if (mask >> d & 1u) {
        red_shape[red_rank] = shape[d];
        red_stride[red_rank++] = strides[d];
        count *= shape[d];
      } else {
        kept_shape[kept_rank] = shape[d];
        kept_stride[kept_rank++] = strides[d];
      }
    }
  }
  // The offset, from the output's base, of element i of its sequence.
  u32 offset(u32 i) const {
    if (trailing) return i;
    u32 off = 0;
    for (u32 d = red_rank; d-- > 0;) {
      off += i % red_shape[d] * red_stride[d];
      i /= red_shape[d];
    }
    return off;
  }
  // Calls f(o, base) for every output o.
  template <class F> void each_output(F&& f) const {
    const u32* strides[1] = {kept_stride};
    walk<1>(kept_rank, kept_shape, strides, [&](u64 o, const u32* off) { f(static_cast<u32>(o), off[0]); });
  }
};

enum class Reduce : u32 { sum, mean, max, min };

// T: float or double (the compute type of f32 and f64).
template <Reduce kind, class T>
void reduce(const T* x, T* y, u32 rank, const u32* shape, u32 mask) {
  ReduceLayout L(rank, shape, mask);
  const T inf = static_cast<T>(num::inf_f64());
  L.each_output([&](u32 o, u32 base) {
    auto load = [&](u64 i) { return x[base + L.offset(static_cast<u32>(i))]; };
    T r;
    if constexpr (kind == Reduce::sum || kind == Reduce::mean) r = num::canonical_reduce<T>(L.count, load, num::Add{}, T(0));
    else if constexpr (kind == Reduce::max) r = num::canonical_reduce<T>(L.count, load, num::Maximum{}, -inf);
    else r = num::canonical_reduce<T>(L.count, load, num::Minimum{}, inf);
    if constexpr (kind == Reduce::mean) r = r / static_cast<T>(L.count);
    y[o] = canonical(r);
  });
}

// softmax / log_softmax along one axis: m = max, e_i = exp(x_i - m), s = canonical sum of e,
// softmax_i = e_i / s, log_softmax_i = (x_i - m) - log(s).
template <bool kLog> void softmax_f32(const float* x, float* y, u32 rank, const u32* shape, u32 axis) {
  ReduceLayout L(rank, shape, 1u << axis);
  L.each_output([&](u32, u32 base) {
    auto at = [&](u64 i) { return x[base + L.offset(static_cast<u32>(i))]; };
    float m = num::canonical_reduce<float>(L.count, at, num::Maximum{}, -num::inf_f32());
    auto e = [&](u64 i) { return num::exp_f32(at(i) - m); };
    float s = num::canonical_sum<float>(L.count, e);
    if constexpr (kLog) {
      float ls = num::log_f32(s);
      for (u32 i = 0; i < L.count; ++i) y[base + L.offset(i)] = canonical((at(i) - m) - ls);
    } else {
      for (u32 i = 0; i < L.count; ++i) y[base + L.offset(i)] = canonical(e(i) / s);
    }
  });
}

}  // namespace rung::wasm_kernels
