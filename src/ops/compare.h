// The comparator: actual vs reference under a tolerance class, returning a structured
// verdict that names the class, tier and thresholds it used (STYLE.md §6: print them with
// every result). Conformance, `rung eval --expect` and the tests all use it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "ops/host_tensor.h"
#include "ops/tolerance.h"

namespace rung::ops {

struct Verdict {
  bool pass = false;
  Tier tier = Tier::debug;
  TolClass cls = TolClass::exact;
  DType dtype = DType::f32;
  Thresholds thresholds;
  std::string mismatch;  // dtype or shape differ: nothing was compared

  std::uint64_t count = 0;           // elements compared
  std::uint64_t failures = 0;        // elements outside the elementwise bound
  std::uint64_t bit_mismatches = 0;  // elements whose bits differ
  std::uint64_t nan_mismatches = 0;  // NaN on exactly one side
  std::uint64_t inf_mismatches = 0;  // an infinity not matched by the same infinity
  double max_ulp = 0;                // over pairs of finite floats (0 for integers)
  double max_abs_err = 0;
  double normwise = 0;               // ||a - r||_2 / ||r||_2 over finite pairs (absolute if r = 0)
  std::uint64_t worst_index = 0;     // first failing element, else the largest ulp distance
  double worst_actual = 0, worst_expected = 0;

  std::string summary() const;  // one line
  nlohmann::json to_json() const;
};

Verdict compare(const HostTensor& actual, const HostTensor& reference, TolClass cls, Tier tier);

// Distance in units in the last place between two finite values of a float dtype (the
// number of representable values between them; +0 and -0 are 0 apart).
double ulp_distance(DType dtype, double a, double b);

}  // namespace rung::ops
