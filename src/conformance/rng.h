// The conformance generator's random numbers: SplitMix64 on integers only, so a seed gives
// the same cases on every platform and compiler (std::*_distribution is implementation-
// defined, and floating-point sampling would tie cases to libm).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace rung::conformance {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : s_(seed) {}
  // A generator for one named sub-stream (op, dtype, case): adding an op never shifts
  // the cases of another.
  static Rng derive(std::uint64_t seed, std::string_view label, std::uint64_t index);

  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n) (n > 0); the modulo bias is irrelevant for test generation.
  std::uint64_t below(std::uint64_t n) { return next() % n; }
  std::int64_t between(std::int64_t lo, std::int64_t hi) {  // inclusive
    return lo + static_cast<std::int64_t>(below(static_cast<std::uint64_t>(hi - lo) + 1));
  }
  bool chance(std::uint64_t num, std::uint64_t den) { return below(den) < num; }
  template <typename T> const T& pick(const std::vector<T>& v) { return v[below(v.size())]; }

 private:
  std::uint64_t s_;
};

}  // namespace rung::conformance
