// The floating-point environment the exact path needs: round-to-nearest-even and subnormals
// kept (no flush-to-zero, no denormals-are-zero). A library may flip these behind rung's back
// (some BLAS and media libraries set FTZ/DAZ in MXCSR), so exact-tier evaluation checks on
// every run, not only at start-up, and refuses with N0001 instead of returning wrong bits.
#pragma once

#include <string>

#include "base/diagnostic.h"

namespace rung::ops {

struct FpEnv {
  bool inspected = false;      // false where the architecture is not known to this check
  bool flush_to_zero = false;  // x86 MXCSR.FTZ, AArch64 FPCR.FZ
  bool denormals_are_zero = false;  // x86 MXCSR.DAZ
  bool round_to_nearest = true;
  std::string describe() const;  // "MXCSR=0x9fc0 (FTZ on, DAZ on, round-to-nearest)"
  std::string raw;
  bool ok() const { return !flush_to_zero && !denormals_are_zero && round_to_nearest; }
};

FpEnv read_fp_env();

// Reports N0001 and returns false when the environment cannot give exact results.
bool check_fp_env_for_exact(DiagnosticSink& diags);

// Flush-to-zero and denormals-are-zero on for this thread while alive (x86 MXCSR FTZ + DAZ,
// AArch64 FPCR.FZ), restored after: how a device that flushes subnormals at every operation
// computes (WGSL permits it). Conformance evaluates the reference so to judge such a device;
// nothing on the exact path runs under it. `active()` is false where the architecture is not
// known to this code (no such reading then).
class ScopedFlushSubnormals {
 public:
  ScopedFlushSubnormals();
  ~ScopedFlushSubnormals();
  ScopedFlushSubnormals(const ScopedFlushSubnormals&) = delete;
  ScopedFlushSubnormals& operator=(const ScopedFlushSubnormals&) = delete;
  bool active() const { return active_; }

 private:
  bool active_ = false;
  [[maybe_unused]] unsigned long long saved_ = 0;  // unused where no register is known (wasm)
};

}  // namespace rung::ops
