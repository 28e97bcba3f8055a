// The fixed fma hard vectors (tests/ops/fma_hard_vectors.h, fma_f64_hard_vectors.h) computed
// by rung's numerics, compiled twice from this file: natively (where num::fma_f32/fma_f64 are
// the hardware's, which tests/ops holds to MPFR) and as a freestanding wasm32 module (no libc,
// no fma instruction: the soft forms). fma_vectors_test.sh runs the module under node and
// compares every result line with the native build's.
#include "ops/fma_f64_hard_vectors.h"
#include "ops/fma_hard_vectors.h"
#include "ops/numerics/fma_f64_soft.h"
#include "ops/numerics/ieee.h"

using namespace rung;

extern "C" {
int f32_count() { return static_cast<int>(sizeof(testing::kFmaHardVectors) / sizeof(testing::kFmaHardVectors[0])); }
int f64_count() { return static_cast<int>(sizeof(testing::kFma64HardVectors) / sizeof(testing::kFma64HardVectors[0])); }

// form 0: the target's fma_f32, 1: the midpoint form, 2: round to odd.
std::uint32_t f32_result(int i, int form) {
  const testing::FmaOperands& v = testing::kFmaHardVectors[i];
  float a = num::f32_from_bits(v.a), b = num::f32_from_bits(v.b), c = num::f32_from_bits(v.c);
  float r = form == 0 ? num::fma_f32(a, b, c) : form == 1 ? num::fma_f32_soft(a, b, c) : num::fma_f32_odd(a, b, c);
  return num::is_nan(r) ? 0x7fc00000u : num::bits_of(r);  // NaN payloads are not part of the contract
}

// form 0: the target's fma_f64, 1: fma_f64_soft.
std::uint64_t f64_result(int i, int form) {
  const testing::Fma64Operands& v = testing::kFma64HardVectors[i];
  double a = num::f64_from_bits(v.a), b = num::f64_from_bits(v.b), c = num::f64_from_bits(v.c);
  double r = form == 0 ? num::fma_f64(a, b, c) : num::fma_f64_soft(a, b, c);
  return num::is_nan(r) ? 0x7ff8000000000000ull : num::bits_of(r);
}
}

#if !defined(__wasm__)
#include <cinttypes>
#include <cstdio>

// The lines fma_vectors.mjs prints from the wasm module.
int main() {
  for (int i = 0; i < f32_count(); ++i)
    for (int form = 0; form < 3; ++form) std::printf("f32 %d %d %08" PRIx32 "\n", i, form, f32_result(i, form));
  for (int i = 0; i < f64_count(); ++i)
    for (int form = 0; form < 2; ++form) std::printf("f64 %d %d %016" PRIx64 "\n", i, form, f64_result(i, form));
}
#endif
