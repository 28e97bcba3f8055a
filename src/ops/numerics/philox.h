// Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as easy as 1, 2, 3",
// SC'11): a counter-based generator. Output block = bijection(counter) keyed by `key`, so
// element n of a stream depends only on (seed, n): every backend and every partitioning of
// the work draws the same numbers (docs/semantics.md, "Random numbers").
#pragma once

#include "ops/numerics/portable.h"

namespace rung::num {

struct Philox4x32 {
  std::uint32_t v[4];
};

namespace detail {
inline constexpr std::uint32_t kPhiloxM0 = 0xD2511F53u;  // round multipliers
inline constexpr std::uint32_t kPhiloxM1 = 0xCD9E8D57u;
inline constexpr std::uint32_t kPhiloxW0 = 0x9E3779B9u;  // key schedule (Weyl) increments
inline constexpr std::uint32_t kPhiloxW1 = 0xBB67AE85u;

RUNG_HD void philox_round(std::uint32_t c[4], std::uint32_t k0, std::uint32_t k1) {
  std::uint64_t p0 = static_cast<std::uint64_t>(kPhiloxM0) * c[0];
  std::uint64_t p1 = static_cast<std::uint64_t>(kPhiloxM1) * c[2];
  std::uint32_t hi0 = static_cast<std::uint32_t>(p0 >> 32), lo0 = static_cast<std::uint32_t>(p0);
  std::uint32_t hi1 = static_cast<std::uint32_t>(p1 >> 32), lo1 = static_cast<std::uint32_t>(p1);
  std::uint32_t c1 = c[1], c3 = c[3];
  c[0] = hi1 ^ c1 ^ k0;
  c[1] = lo1;
  c[2] = hi0 ^ c3 ^ k1;
  c[3] = lo0;
}
}  // namespace detail

// Ten rounds; the key advances by (W0, W1) between rounds (nine times).
RUNG_HD Philox4x32 philox4x32_10(Philox4x32 counter, std::uint32_t key0, std::uint32_t key1) {
  std::uint32_t c[4] = {counter.v[0], counter.v[1], counter.v[2], counter.v[3]};
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      key0 += detail::kPhiloxW0;
      key1 += detail::kPhiloxW1;
    }
    detail::philox_round(c, key0, key1);
  }
  return {{c[0], c[1], c[2], c[3]}};
}

// rung's stream: word n of the stream for (seed, offset) is lane n % 4 of the block for
// counter (q lo, q hi, offset lo, offset hi) with q = n / 4, key (seed lo, seed hi).
RUNG_HD std::uint32_t philox_stream_word(std::uint64_t seed, std::uint64_t offset, std::uint64_t n) {
  std::uint64_t q = n >> 2;
  Philox4x32 ctr = {{static_cast<std::uint32_t>(q), static_cast<std::uint32_t>(q >> 32),
                     static_cast<std::uint32_t>(offset), static_cast<std::uint32_t>(offset >> 32)}};
  Philox4x32 out = philox4x32_10(ctr, static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32));
  return out.v[n & 3];
}

// The top 24 bits as a float in [0, 1): k * 2^-24, exact.
RUNG_HD float uniform01_f32(std::uint32_t w) { return static_cast<float>(w >> 8) * 5.9604644775390625e-08f; }
// The top 24 bits as a float in (0, 1]: (k + 1) * 2^-24, exact; safe to take the log of.
RUNG_HD float uniform01_open0_f32(std::uint32_t w) {
  return static_cast<float>((w >> 8) + 1u) * 5.9604644775390625e-08f;
}

}  // namespace rung::num
