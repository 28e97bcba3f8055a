// Native side of the wasm GEMM parity test (bench/wasm/parity.mjs): generates products in
// families that reach the cases an fma emulation gets wrong, computes each C element as the
// x86-64 fused chain (hardware fma, k increasing from +0 or from C), and writes cases and
// expected bits to one file. Per case it counts the chain steps where rounding the binary64
// sum to float (double rounding) is NOT the fma: the test data must contain such steps.
//   cases OUT.bin
// __builtin_fmaf is the vfmadd instruction where built with -mfma (bench/wasm/run.sh), glibc's
// correctly rounded fmaf otherwise (tests/wasm's build): the same bits (tests/ops holds both
// to MPFR).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

std::uint64_t g_state = 0x9E3779B97F4A7C15ull;
std::uint64_t next() {  // splitmix64
  std::uint64_t z = (g_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>(next() % n); }
float from_bits(std::uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
std::uint32_t bits(float f) { std::uint32_t u; std::memcpy(&u, &f, 4); return u; }
float sign(float x) { return below(2) ? -x : x; }
float pow2(int e) { return __builtin_ldexpf(1.0f, e); }
float ulps(float x, int m) { return x * (1.0f + static_cast<float>(m) * 0x1p-23f); }  // x (1 + m 2^-23)

enum Family { kRandom, kMidpoint, kSubnormal, kBoundary, kCancel, kSpecials, kZeros, kIntegers, kTiny, kOverflow, kFamilies };
const char* const kNames[] = {"random", "midpoint", "subnormal", "boundary", "cancel", "specials", "zeros", "integers", "tiny", "overflow"};

float random_wide() {  // any sign, mantissa, and exponents 2^-27 .. 2^27
  return from_bits(static_cast<std::uint32_t>(next() & 0x807FFFFFu) | ((100u + below(55)) << 23));
}

// Element (row, k) of A or (k, col) of B for a family; `is_a` picks the operand's role.
float value(Family f, bool is_a, std::uint32_t k) {
  switch (f) {
    case kRandom: return random_wide();
    case kMidpoint: {
      // Accumulators near 1..8 and products of half a float ulp times (1 - 2^-46): the sum
      // rounds to a float midpoint in binary64 though it is not one.
      if (is_a) {
        const float a[] = {ulps(1, 1), ulps(1, -1), ulps(1, 1), ulps(1, static_cast<int>(below(8))), ulps(1.5f, 3)};
        return sign(a[below(5)]);
      }
      const float b[] = {ulps(pow2(-24), -1), ulps(pow2(-23), -1), ulps(pow2(-22), 1), ulps(pow2(-25), -1),
                         ulps(1, static_cast<int>(below(64))), ulps(pow2(-24), 1)};
      return sign(b[below(6)]);
    }
    case kSubnormal: {
      // Products near 2^-150 (half the smallest subnormal) times (1 - 2^-46), sums of a few
      // subnormal grid steps, and subnormal operands.
      if (is_a) {
        const float a[] = {ulps(pow2(-75), 1), ulps(pow2(-75), -1), ulps(pow2(-76), 1), pow2(-149) * static_cast<float>(1 + below(7)),
                           from_bits(below(0x00800000u)), ulps(pow2(-60 - static_cast<int>(below(20))), static_cast<int>(below(1000)))};
        return sign(a[below(6)]);
      }
      const float b[] = {ulps(pow2(-75), -1), ulps(pow2(-74), 1), 1.0f, 3.0f, ulps(pow2(-70 - static_cast<int>(below(10))), static_cast<int>(below(999)))};
      return sign(b[below(5)]);
    }
    case kBoundary:
      // Products on the 2^-149 grid exactly (the packing check lets these skip the tiny-sum
      // test) and cancelling: sums fall below 2^-126 and must be exact there.
      return sign(ulps(pow2(is_a ? -63 : -40), static_cast<int>(below(1u << 12))));
    case kCancel: {
      // Pairs of steps whose products nearly cancel (row k+1 of B is -row k; A's k+1 is k's
      // times 1 + m 2^-23 in value()'s caller): sums far below the operands.
      (void)k;
      return random_wide();
    }
    case kSpecials: {
      if (below(16) != 0) return random_wide();
      const float s[] = {0.0f, -0.0f, __builtin_inff(), -__builtin_inff(), __builtin_nanf(""), 3.4028235e38f, pow2(100),
                         pow2(-149), from_bits(0x00400001u), pow2(64)};
      return s[below(10)];
    }
    case kZeros:
      if (below(2) == 0) return below(4) == 0 ? -0.0f : 0.0f;
      return random_wide();
    case kIntegers: return static_cast<float>(static_cast<int>(below(8193)) - 4096);
    case kTiny:
      // Any mantissas, products 2^-150..2^-130: sums between float subnormals (which a
      // rounding to 24 significant bits gets wrong; the midpoint test does not see them).
      return sign(ulps(pow2(-65 - static_cast<int>(below(11))), static_cast<int>(below(1u << 23))));
    case kOverflow:
      // Finite operands whose products reach 2^120..2^130: sums pass FLT_MAX (inf) and
      // opposite infinities meet (NaN), which a rounding of the bits alone never gives.
      return sign(ulps(pow2(60 + static_cast<int>(below(5))), static_cast<int>(below(1u << 23))));
    default: return 0.0f;
  }
}

struct Shape {
  std::uint32_t M, N, K;
};
// Edge tiles, several k-blocks (256), row blocks (64) and column panels (256).
const Shape kShapes[] = {{4, 4, 1}, {5, 7, 3}, {13, 17, 300}, {64, 64, 64}, {33, 260, 520}, {1, 9, 1000}, {70, 5, 257}};

void put(std::FILE* out, std::uint32_t v) { std::fwrite(&v, 4, 1, out); }
void put(std::FILE* out, const std::vector<float>& v) { std::fwrite(v.data(), 4, v.size(), out); }

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: cases OUT.bin\n");
    return 2;
  }
  std::FILE* out = std::fopen(argv[1], "wb");
  if (!out) {
    std::perror(argv[1]);
    return 1;
  }
  const std::uint32_t variants = 4;  // plain, A transposed, B transposed, accumulate into C
  const std::uint32_t cases = kFamilies * (sizeof kShapes / sizeof kShapes[0]) * variants;
  put(out, 0x4D4D4752u);  // "RGMM"
  put(out, cases);
  std::uint64_t hard_total[kFamilies] = {}, steps_total[kFamilies] = {};
  for (int fi = 0; fi < kFamilies; ++fi)
    for (const Shape& s : kShapes)
      for (std::uint32_t variant = 0; variant < variants; ++variant) {
        const Family f = static_cast<Family>(fi);
        const bool ta = variant == 1, tb = variant == 2, acc = variant == 3;
        std::vector<float> A(std::size_t{s.M} * s.K), B(std::size_t{s.K} * s.N), C(std::size_t{s.M} * s.N, 0.0f);
        // Logical A(i, k), B(k, j); stored transposed when ta / tb.
        auto a_at = [&](std::uint32_t i, std::uint32_t k) -> float& { return ta ? A[std::size_t{k} * s.M + i] : A[std::size_t{i} * s.K + k]; };
        auto b_at = [&](std::uint32_t k, std::uint32_t j) -> float& { return tb ? B[std::size_t{j} * s.K + k] : B[std::size_t{k} * s.N + j]; };
        for (std::uint32_t i = 0; i < s.M; ++i)
          for (std::uint32_t k = 0; k < s.K; ++k)
            a_at(i, k) = (f == kCancel && k % 2 == 1) ? ulps(a_at(i, k - 1), static_cast<int>(below(5)) - 2) : value(f, true, k);
        for (std::uint32_t k = 0; k < s.K; ++k)
          for (std::uint32_t j = 0; j < s.N; ++j) b_at(k, j) = (f == kCancel && k % 2 == 1) ? -b_at(k - 1, j) : value(f, false, k);
        if (acc)
          for (auto& c : C) c = value(f, true, 0);
        std::vector<float> E(C.size());
        std::uint64_t hard = 0;
        for (std::uint32_t i = 0; i < s.M; ++i)
          for (std::uint32_t j = 0; j < s.N; ++j) {
            float c = C[std::size_t{i} * s.N + j];
            for (std::uint32_t k = 0; k < s.K; ++k) {
              const float a = a_at(i, k), b = b_at(k, j);
              const float fused = __builtin_fmaf(a, b, c);
              const float twice = static_cast<float>(static_cast<double>(a) * static_cast<double>(b) + static_cast<double>(c));
              if (bits(fused) != bits(twice) && !(fused != fused && twice != twice)) ++hard;
              c = fused;
            }
            E[std::size_t{i} * s.N + j] = c;
          }
        hard_total[fi] += hard;
        steps_total[fi] += std::uint64_t{s.M} * s.N * s.K;
        for (std::uint32_t v : {static_cast<std::uint32_t>(fi), s.M, s.N, s.K, std::uint32_t{ta}, std::uint32_t{tb}, std::uint32_t{acc}})
          put(out, v);
        put(out, A);
        put(out, B);
        put(out, C);
        put(out, E);
      }
  std::fclose(out);
  std::printf("%u cases; chain steps where double rounding is not the fma, per family:\n", cases);
  for (int fi = 0; fi < kFamilies; ++fi)
    std::printf("  %-10s %8llu of %10llu steps\n", kNames[fi], static_cast<unsigned long long>(hard_total[fi]),
                static_cast<unsigned long long>(steps_total[fi]));
  return 0;
}
