// Elementwise kernels: one scalar formula of ops/numerics/elementwise.h per element (the
// functor is the reference's own), operands broadcast by strides. An output may share its
// buffer with a same-shaped operand (the plan's in-place reuse): element i is read before
// it is written.
#pragma once

#include "backends/wasm/kernels/base.h"

namespace rung::wasm_kernels {

template <class Out, class In, class Op> void unary(Op op, const In* x, Out* y, u32 n) {
  for (u32 i = 0; i < n; ++i) y[i] = canonical(static_cast<Out>(op(x[i])));
}

template <class Out, class A, class B, class Op>
void binary(Op op, const A* a, const B* b, Out* y, u32 rank, const u32* shape, const u32* sa, const u32* sb) {
  const u32* strides[2] = {sa, sb};
  walk<2>(rank, shape, strides, [&](u64 i, const u32* off) { y[i] = canonical(static_cast<Out>(op(a[off[0]], b[off[1]]))); });
}

// where(cond, a, b): the chosen element's bits (a -0 survives).
template <class T>
void select(const bool* c, const T* a, const T* b, T* y, u32 rank, const u32* shape, const u32* sc, const u32* sa, const u32* sb) {
  const u32* strides[3] = {sc, sa, sb};
  walk<3>(rank, shape, strides, [&](u64 i, const u32* off) { y[i] = canonical(c[off[0]] ? a[off[1]] : b[off[2]]); });
}

// cast between f32 and bool (docs/semantics.md §4): number -> bool is x != 0 (NaN -> true).
inline void cast_f32_to_bool(const float* x, bool* y, u32 n) {
  for (u32 i = 0; i < n; ++i) y[i] = !(x[i] == 0.0f);
}
inline void cast_bool_to_f32(const bool* x, float* y, u32 n) {
  for (u32 i = 0; i < n; ++i) y[i] = x[i] ? 1.0f : 0.0f;
}

}  // namespace rung::wasm_kernels
