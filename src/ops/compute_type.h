// The reference kernels' compute type: double for f64 tensors, float for every other float
// (f16/bf16 widened exactly, rounded once at the store). One definition for the kernels
// that run a chain in T (conv, conv_transpose, the pools, matmul, the CSR products).
#pragma once

#include <cstdint>
#include <type_traits>

#include "ops/host_tensor.h"
#include "ops/numerics/ieee.h"

namespace rung::ops::compute {

template <typename T>
T load(const HostTensor& t, std::uint64_t i) {
  if constexpr (std::is_same_v<T, double>) return t.raw<double>(i);
  else return t.load_f32(i);
}

template <typename T>
void store(HostTensor& t, std::uint64_t i, T v) {
  if constexpr (std::is_same_v<T, double>) t.set_raw<double>(i, v);
  else t.store_f32(i, v);
}

template <typename T>
T fma_t(T a, T b, T c) {
  if constexpr (std::is_same_v<T, double>) return num::fma_f64(a, b, c);
  else return num::fma_f32(a, b, c);
}

}  // namespace rung::ops::compute
