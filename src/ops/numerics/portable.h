// What every exact-path numeric header includes: the annotation that lets one source compile
// for the host, CUDA (nvcc/NVRTC) and WebAssembly, and the bit-level helpers it uses. Nothing
// here may call libm: the exact path is rung's own arithmetic (docs/semantics.md).
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define RUNG_HD __host__ __device__ inline
#else
#define RUNG_HD inline
#endif

namespace rung::num {

// memcpy rather than std::bit_cast: the same spelling works in device code.
RUNG_HD std::uint32_t bits_of(float x) { std::uint32_t u; std::memcpy(&u, &x, 4); return u; }
RUNG_HD std::uint64_t bits_of(double x) { std::uint64_t u; std::memcpy(&u, &x, 8); return u; }
RUNG_HD float f32_from_bits(std::uint32_t u) { float x; std::memcpy(&x, &u, 4); return x; }
RUNG_HD double f64_from_bits(std::uint64_t u) { double x; std::memcpy(&x, &u, 8); return x; }

RUNG_HD bool is_nan(float x) { return (bits_of(x) & 0x7FFFFFFFu) > 0x7F800000u; }
RUNG_HD bool is_nan(double x) { return (bits_of(x) & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull; }
RUNG_HD bool is_inf(float x) { return (bits_of(x) & 0x7FFFFFFFu) == 0x7F800000u; }
RUNG_HD bool is_inf(double x) { return (bits_of(x) & 0x7FFFFFFFFFFFFFFFull) == 0x7FF0000000000000ull; }
RUNG_HD bool sign_bit(float x) { return (bits_of(x) >> 31) != 0; }
RUNG_HD bool sign_bit(double x) { return (bits_of(x) >> 63) != 0; }

// The canonical quiet NaNs every output is normalised to (SEMANTICS.md rule 9).
inline constexpr std::uint32_t kCanonicalNanF32 = 0x7FC00000u;
inline constexpr std::uint64_t kCanonicalNanF64 = 0x7FF8000000000000ull;
inline constexpr std::uint16_t kCanonicalNanF16 = 0x7E00u;
inline constexpr std::uint16_t kCanonicalNanBF16 = 0x7FC0u;
RUNG_HD float nan_f32() { return f32_from_bits(kCanonicalNanF32); }
RUNG_HD double nan_f64() { return f64_from_bits(kCanonicalNanF64); }
RUNG_HD float inf_f32() { return f32_from_bits(0x7F800000u); }
RUNG_HD double inf_f64() { return f64_from_bits(0x7FF0000000000000ull); }

RUNG_HD float abs_f32(float x) { return f32_from_bits(bits_of(x) & 0x7FFFFFFFu); }
RUNG_HD double abs_f64(double x) { return f64_from_bits(bits_of(x) & 0x7FFFFFFFFFFFFFFFull); }
RUNG_HD float copysign_f32(float mag, float sgn) {
  return f32_from_bits((bits_of(mag) & 0x7FFFFFFFu) | (bits_of(sgn) & 0x80000000u));
}
RUNG_HD double copysign_f64(double mag, double sgn) {
  return f64_from_bits((bits_of(mag) & 0x7FFFFFFFFFFFFFFFull) | (bits_of(sgn) & 0x8000000000000000ull));
}

// 2^e as a double, for -1022 <= e <= 1023 (exact: a power of two is built from its bits).
RUNG_HD double pow2_f64(int e) { return f64_from_bits(static_cast<std::uint64_t>(e + 1023) << 52); }

// Round a double to the nearest integer, ties to even, for |x| < 2^51. Adding and removing
// 1.5 * 2^52 leaves the rounding to the hardware's round-to-nearest-even addition; the
// compiler may not fold it because the build forbids fast-math.
RUNG_HD double round_even_f64(double x) {
  const double shifter = 6755399441055744.0;  // 1.5 * 2^52
  double t = x + shifter;
  return t - shifter;
}

}  // namespace rung::num
