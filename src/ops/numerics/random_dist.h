// Distributions on rung's Philox stream (docs/semantics.md, "Random numbers"). Element n of
// an output reads only the Philox block n / 4 of its (seed, offset) stream, so any split of
// the elements over threads, SMs or processes draws the same values.
#pragma once

#include "ops/numerics/exp_log.h"
#include "ops/numerics/ieee.h"
#include "ops/numerics/philox.h"
#include "ops/numerics/trig.h"

namespace rung::num {

inline constexpr float kTwoPiF32 = 6.28318548202514648438f;  // 2*pi rounded to f32

// Uniform in [0, 1): the top 24 bits of stream word n.
RUNG_HD float philox_uniform01(std::uint64_t seed, std::uint64_t offset, std::uint64_t n) {
  return uniform01_f32(philox_stream_word(seed, offset, n));
}

// Standard normal by Box-Muller on the word pair (2k, 2k+1) of block q = n / 4, k = (n / 2) % 2:
//   u1 = (top24(w_2k) + 1) * 2^-24 in (0, 1],  u2 = top24(w_2k+1) * 2^-24 in [0, 1)
//   r = sqrt(-2 * log(u1)),  t = 2pi * u2
//   z_2k = r * cos(t),  z_2k+1 = r * sin(t)
// Every step is one f32 operation (rung's log, sin, cos; correctly rounded *, sqrt), in
// this order. |z| <= sqrt(-2 log 2^-24) < 5.8.
RUNG_HD float philox_normal(std::uint64_t seed, std::uint64_t offset, std::uint64_t n) {
  std::uint64_t first = n & ~std::uint64_t{1};
  float u1 = uniform01_open0_f32(philox_stream_word(seed, offset, first));
  float u2 = uniform01_f32(philox_stream_word(seed, offset, first + 1));
  float r = sqrt_f32(-2.0f * log_f32(u1));
  float t = kTwoPiF32 * u2;
  return (n & 1) == 0 ? r * cos_f32(t) : r * sin_f32(t);
}

}  // namespace rung::num
