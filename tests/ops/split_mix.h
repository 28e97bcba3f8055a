// SplitMix64: the small seeded generator the fma property tests draw their cases from (the
// same stream on every platform, so a failing case can be named by seed and index).
#pragma once

#include <cstdint>

namespace rung::testing {

struct SplitMix {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::uint32_t word() { return static_cast<std::uint32_t>(next() >> 32); }
};

}  // namespace rung::testing
