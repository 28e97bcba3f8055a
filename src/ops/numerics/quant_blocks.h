// The q8_0 and q4_0 block formats, bit for bit (docs/quantization.md): 32 values per block,
// one f16 scale per block. Encoding rounds once per step (f32 division, RNE to f16, RNE to
// an integer, clamp); decoding is exact (an f16 scale times a small integer fits in f32).
#pragma once

#include "ops/numerics/half.h"

namespace rung::num {

inline constexpr int kQBlock = 32;
inline constexpr int kQ8Bytes = 34;  // f16 scale + 32 x int8
inline constexpr int kQ4Bytes = 18;  // f16 scale + 16 bytes, two 4-bit codes each

enum class QStatus : std::uint8_t { ok, non_finite, scale_overflow };

namespace detail {
RUNG_HD bool finite_block(const float* x) {
  for (int i = 0; i < kQBlock; ++i)
    if (is_nan(x[i]) || is_inf(x[i])) return false;
  return true;
}
// RNE(r) clamped to [lo, hi]; |r| is small here (at most 2 * max(|lo|, |hi|)).
RUNG_HD int round_clamp(float r, int lo, int hi) {
  int q = static_cast<int>(round_even_f64(static_cast<double>(r)));
  return q < lo ? lo : q > hi ? hi : q;
}
RUNG_HD void put_scale(std::uint8_t* blk, std::uint16_t h) {
  blk[0] = static_cast<std::uint8_t>(h & 0xFF);
  blk[1] = static_cast<std::uint8_t>(h >> 8);
}
}  // namespace detail

RUNG_HD std::uint16_t q_scale_bits(const std::uint8_t* blk) {
  return static_cast<std::uint16_t>(blk[0] | (blk[1] << 8));
}
RUNG_HD float q_scale(const std::uint8_t* blk) { return f32_from_f16(q_scale_bits(blk)); }

// q8_0: d = f16(amax / 127); q_i = clamp(RNE(x_i / d), -127, 127); all q_i = 0 when d == 0.
RUNG_HD QStatus q8_0_encode(const float* x, std::uint8_t* blk) {
  if (!detail::finite_block(x)) return QStatus::non_finite;
  float amax = 0.0f;
  for (int i = 0; i < kQBlock; ++i) {
    float a = abs_f32(x[i]);
    if (a > amax) amax = a;
  }
  std::uint16_t h = f16_from_f32(amax / 127.0f);
  if ((h & 0x7FFF) == 0x7C00) return QStatus::scale_overflow;
  detail::put_scale(blk, h);
  float d = f32_from_f16(h);
  for (int i = 0; i < kQBlock; ++i) {
    int q = d == 0.0f ? 0 : detail::round_clamp(x[i] / d, -127, 127);
    blk[2 + i] = static_cast<std::uint8_t>(static_cast<std::int8_t>(q));
  }
  return QStatus::ok;
}

RUNG_HD int q8_0_code(const std::uint8_t* blk, int i) { return static_cast<std::int8_t>(blk[2 + i]); }

// q4_0: m = the value of largest magnitude (the first on ties); d = f16(m / -8), or +0 when
// the block is all zeros; u_i = clamp(RNE(x_i / d), -8, 7) + 8 in 0..15; all u_i = 8 when d == 0.
RUNG_HD QStatus q4_0_encode(const float* x, std::uint8_t* blk) {
  if (!detail::finite_block(x)) return QStatus::non_finite;
  float m = 0.0f, amax = 0.0f;
  for (int i = 0; i < kQBlock; ++i) {
    float a = abs_f32(x[i]);
    if (a > amax) { amax = a; m = x[i]; }
  }
  std::uint16_t h = amax == 0.0f ? 0 : f16_from_f32(m / -8.0f);  // +0, not -0, for an all-zero block
  if ((h & 0x7FFF) == 0x7C00) return QStatus::scale_overflow;
  detail::put_scale(blk, h);
  float d = f32_from_f16(h);
  std::uint8_t u[kQBlock];
  for (int i = 0; i < kQBlock; ++i)
    u[i] = static_cast<std::uint8_t>((d == 0.0f ? 0 : detail::round_clamp(x[i] / d, -8, 7)) + 8);
  for (int j = 0; j < kQBlock / 2; ++j) blk[2 + j] = static_cast<std::uint8_t>(u[j] | (u[j + 16] << 4));
  return QStatus::ok;
}

// The signed value u_i - 8 in -8..7; element j sits in the low nibble of byte j, element
// j + 16 in the high nibble.
RUNG_HD int q4_0_code(const std::uint8_t* blk, int i) {
  std::uint8_t b = blk[2 + (i & 15)];
  return static_cast<int>(i < 16 ? (b & 0x0F) : (b >> 4)) - 8;
}

// Decoding: d * code, exact in f32 (11 significant bits times at most 8).
RUNG_HD float q8_0_decode(const std::uint8_t* blk, int i) { return q_scale(blk) * static_cast<float>(q8_0_code(blk, i)); }
RUNG_HD float q4_0_decode(const std::uint8_t* blk, int i) { return q_scale(blk) * static_cast<float>(q4_0_code(blk, i)); }

// linear_q's int8 path quantizes activations per block like q8_0 but keeps the scale in f32
// (no f16 range limit): d = amax / 127, q_i = clamp(RNE(x_i / d), -127, 127), all 0 when
// d == 0. Returns d, or NaN when the block holds an inf or NaN.
RUNG_HD float q8_act_encode(const float* x, std::int8_t* q) {
  if (!detail::finite_block(x)) return nan_f32();
  float amax = 0.0f;
  for (int i = 0; i < kQBlock; ++i) {
    float a = abs_f32(x[i]);
    if (a > amax) amax = a;
  }
  float d = amax / 127.0f;
  for (int i = 0; i < kQBlock; ++i)
    q[i] = static_cast<std::int8_t>(d == 0.0f ? 0 : detail::round_clamp(x[i] / d, -127, 127));
  return d;
}

}  // namespace rung::num
