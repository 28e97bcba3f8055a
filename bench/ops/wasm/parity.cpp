// The numerics compiled twice from this one file: natively, and to WebAssembly (no libc, no
// fma instruction: fma_f32 becomes the soft fma). Both print / return the same digests of
// the results; bench/ops/wasm/run.sh builds both and compares. See bench/RESULTS.md.
#include "ops/numerics/dot.h"
#include "ops/numerics/half.h"
#include "ops/numerics/reduce_tree.h"
#include "ops/numerics/special.h"
#include "ops/numerics/trig.h"

using namespace rung::num;

namespace {
std::uint32_t apply(int fn, std::uint32_t bits) {
  float x = f32_from_bits(bits);
  float y;
  switch (fn) {
    case 0: y = exp_f32(x); break;
    case 1: y = log_f32(x); break;
    case 2: y = sin_f32(x); break;
    case 3: y = cos_f32(x); break;
    case 4: y = tanh_f32(x); break;
    case 5: y = sigmoid_f32(x); break;
    case 6: y = silu_f32(x); break;
    case 7: y = erf_f32(x); break;
    case 8: y = gelu_erf_f32(x); break;
    case 9: y = gelu_tanh_f32(x); break;
    case 10: return f16_from_f32(x);
    case 11: return bf16_from_f32(x);
    default: y = pow_f32(x, static_cast<float>(static_cast<std::int32_t>(bits * 2654435761u) >> 24) * 0.125f); break;
  }
  return is_nan(y) ? kCanonicalNanF32 : bits_of(y);
}

std::uint64_t mix(std::uint64_t h, std::uint32_t v) { return (h ^ v) * 0x100000001b3ull; }

float gen(std::uint32_t i) {  // deterministic inputs with a wide exponent range
  std::uint32_t u = i * 2654435761u;
  return f32_from_bits((u & 0x807FFFFFu) | ((100u + (u >> 27)) << 23));
}
}  // namespace

extern "C" {
// Digest of fn over inputs lo, lo+stride, ... < hi (as 64-bit bit patterns).
std::uint64_t digest(int fn, std::uint64_t lo, std::uint64_t hi, std::uint64_t stride) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::uint64_t b = lo; b < hi; b += stride) h = mix(h, apply(fn, static_cast<std::uint32_t>(b)));
  return h;
}
// Digest of an n x n matmul with K = k over generated inputs (the fma chain).
std::uint64_t matmul_digest(int n, int k) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      float c = dot_chain_f32(static_cast<std::uint64_t>(k), [&](std::uint64_t t) { return gen(static_cast<std::uint32_t>(i * k + t)); },
                              [&](std::uint64_t t) { return gen(static_cast<std::uint32_t>(0x40000000u + t * n + j)); });
      h = mix(h, bits_of(c));
    }
  return h;
}
std::uint32_t sum_bits(std::uint32_t n) {
  return bits_of(canonical_sum<float>(n, [](std::uint64_t i) { return gen(static_cast<std::uint32_t>(i)); }));
}
}

#if !defined(__wasm__)
#include <cstdio>
int main() {
  for (int fn = 0; fn <= 12; ++fn)
    for (int part = 0; part < 16; ++part)
      std::printf("fn %d part %d %016llx\n", fn, part,
                  static_cast<unsigned long long>(digest(fn, std::uint64_t(part) << 28, std::uint64_t(part + 1) << 28, 16)));
  std::printf("matmul %016llx\n", static_cast<unsigned long long>(matmul_digest(64, 1024)));
  std::printf("sum %08x\n", sum_bits(10000000));
}
#endif
