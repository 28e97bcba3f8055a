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

}  // namespace rung::ops
