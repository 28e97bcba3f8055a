// The tolerance table: each (tier, class, dtype) resolves to explicit thresholds. This is the
// one place the numbers live; `rung tolerances` prints it and every Verdict names the row
// it used. Integer and bool results are always compared bit for bit (their ops are exact).
#pragma once

#include <string>
#include <vector>

#include "ir/graph/dtype.h"
#include "ops/tier.h"

namespace rung::ops {

// An element passes when the bits agree, when both are NaN, when its ulp distance is at most
// max_ulp, or when |actual - ref| <= atol + rtol * |ref|. The tensor passes when every
// element passes and ||actual - ref||_2 / ||ref||_2 <= normwise (absolute when ref is 0).
struct Thresholds {
  bool bitwise = true;  // exact: nothing but identical bits (NaNs canonical) passes
  double max_ulp = 0;
  double atol = 0;
  double rtol = 0;
  double normwise = 0;
  std::string to_string() const;  // "max_ulp 2, atol 0, rtol 0, normwise 1e-06" or "bit-exact"
};

Thresholds resolve_tolerance(TolClass cls, Tier tier, DType dtype);

struct ToleranceRow {
  Tier tier;
  TolClass cls;
  DType dtype;
  Thresholds t;
};
// Every row of the table for the float dtypes (f32, f64, f16, bf16), in tier, class, dtype order.
std::vector<ToleranceRow> tolerance_table();

}  // namespace rung::ops
