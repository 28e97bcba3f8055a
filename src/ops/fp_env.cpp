#include "ops/fp_env.h"

#include <cstdint>
#include <cstdio>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace rung::ops {

FpEnv read_fp_env() {
  FpEnv e;
#if defined(__x86_64__) || defined(__i386__)
  unsigned csr = _mm_getcsr();
  e.inspected = true;
  e.flush_to_zero = (csr & 0x8000u) != 0;       // bit 15
  e.denormals_are_zero = (csr & 0x0040u) != 0;  // bit 6
  e.round_to_nearest = ((csr >> 13) & 3u) == 0;  // bits 13-14: 00 = nearest
  char buf[32];
  std::snprintf(buf, sizeof buf, "MXCSR=0x%04x", csr);
  e.raw = buf;
#elif defined(__aarch64__)
  std::uint64_t fpcr;
  __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
  e.inspected = true;
  e.flush_to_zero = (fpcr >> 24) & 1u;  // FZ
  e.round_to_nearest = ((fpcr >> 22) & 3u) == 0;  // RMode
  char buf[32];
  std::snprintf(buf, sizeof buf, "FPCR=0x%llx", static_cast<unsigned long long>(fpcr));
  e.raw = buf;
#elif defined(__wasm__)
  // WebAssembly has no floating-point control register: its float instructions round to
  // nearest and keep subnormals by the specification, so nothing can be set otherwise.
  e.inspected = true;
  e.raw = "wasm (IEEE 754 round-to-nearest, subnormals kept: fixed by the spec)";
#endif
  return e;
}

std::string FpEnv::describe() const {
  if (!inspected) return "floating-point control register not inspected on this architecture";
  return raw + " (flush-to-zero " + (flush_to_zero ? "on" : "off") + ", denormals-are-zero " +
         (denormals_are_zero ? "on" : "off") + ", " + (round_to_nearest ? "round-to-nearest" : "directed rounding") + ")";
}

ScopedFlushSubnormals::ScopedFlushSubnormals() {
#if defined(__x86_64__) || defined(__i386__)
  saved_ = _mm_getcsr();
  _mm_setcsr(static_cast<unsigned>(saved_) | 0x8040u);  // FTZ (bit 15) + DAZ (bit 6)
  active_ = true;
#elif defined(__aarch64__)
  std::uint64_t fpcr;
  __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
  saved_ = fpcr;
  fpcr |= std::uint64_t{1} << 24;  // FZ: inputs and results flushed
  __asm__ volatile("msr fpcr, %0" ::"r"(fpcr));
  active_ = true;
#endif
}

ScopedFlushSubnormals::~ScopedFlushSubnormals() {
  if (!active_) return;
#if defined(__x86_64__) || defined(__i386__)
  _mm_setcsr(static_cast<unsigned>(saved_));
#elif defined(__aarch64__)
  std::uint64_t fpcr = saved_;
  __asm__ volatile("msr fpcr, %0" ::"r"(fpcr));
#endif
}

bool check_fp_env_for_exact(DiagnosticSink& diags) {
  FpEnv e = read_fp_env();
  if (e.ok()) return true;
  diags.error("N0001", "the floating-point environment cannot give exact results: " + e.describe())
      .note("tier debug needs round-to-nearest-even with subnormals kept; a library loaded into this process "
            "has probably set flush-to-zero / denormals-are-zero")
      .note("run in tier prod or fast, or find the library that changes the control register");
  return false;
}

}  // namespace rung::ops
