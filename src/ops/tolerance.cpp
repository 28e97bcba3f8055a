#include "ops/tolerance.h"

#include <cstdio>

namespace rung::ops {

namespace {

// One row per (class, dtype): the thresholds for tiers debug, prod and fast. The unit
// roundoffs for orientation: f32 6.0e-8, f64 1.1e-16, f16 4.9e-4, bf16 3.9e-3.
// tight   elementwise ulp bounds, for ops evaluated by a different but accurate algorithm;
// default the usual mixed absolute/relative test, for composites and reordered reductions;
// loose   reduced-precision arithmetic (TF32 or bf16 tensor cores, split-K) in the fast tier.
struct Entry {
  TolClass cls;
  DType dtype;
  Thresholds tiers[3];
};

constexpr bool N = false;  // not bitwise

const Entry kTable[] = {
    {TolClass::tight, DType::f32, {{N, 2, 0, 0, 1e-6}, {N, 4, 0, 0, 2e-6}, {N, 16, 0, 0, 1e-5}}},
    {TolClass::default_, DType::f32, {{N, 16, 1e-6, 1e-5, 1e-5}, {N, 16, 1e-6, 1e-5, 1e-5}, {N, 64, 1e-5, 1e-4, 1e-4}}},
    {TolClass::loose, DType::f32, {{N, 64, 1e-4, 1e-3, 1e-3}, {N, 64, 1e-4, 1e-3, 1e-3}, {N, 256, 1e-3, 1e-2, 5e-3}}},

    {TolClass::tight, DType::f64, {{N, 2, 0, 0, 1e-14}, {N, 4, 0, 0, 1e-14}, {N, 16, 0, 0, 1e-13}}},
    {TolClass::default_, DType::f64, {{N, 16, 1e-12, 1e-10, 1e-11}, {N, 16, 1e-12, 1e-10, 1e-11}, {N, 64, 1e-10, 1e-8, 1e-9}}},
    {TolClass::loose, DType::f64, {{N, 64, 1e-8, 1e-6, 1e-7}, {N, 64, 1e-8, 1e-6, 1e-7}, {N, 256, 1e-6, 1e-4, 1e-5}}},

    {TolClass::tight, DType::f16, {{N, 1, 0, 0, 1e-3}, {N, 2, 0, 0, 1e-3}, {N, 4, 0, 0, 2e-3}}},
    {TolClass::default_, DType::f16, {{N, 4, 1e-3, 2e-3, 2e-3}, {N, 4, 1e-3, 2e-3, 2e-3}, {N, 8, 4e-3, 8e-3, 8e-3}}},
    {TolClass::loose, DType::f16, {{N, 16, 1e-2, 1e-2, 1e-2}, {N, 16, 1e-2, 1e-2, 1e-2}, {N, 32, 3e-2, 3e-2, 3e-2}}},

    {TolClass::tight, DType::bf16, {{N, 1, 0, 0, 8e-3}, {N, 2, 0, 0, 8e-3}, {N, 4, 0, 0, 1.6e-2}}},
    {TolClass::default_, DType::bf16, {{N, 4, 1e-2, 1.6e-2, 1.6e-2}, {N, 4, 1e-2, 1.6e-2, 1.6e-2}, {N, 8, 2e-2, 3e-2, 3e-2}}},
    {TolClass::loose, DType::bf16, {{N, 16, 5e-2, 5e-2, 5e-2}, {N, 16, 5e-2, 5e-2, 5e-2}, {N, 32, 1e-1, 1e-1, 1e-1}}},
};

}  // namespace

Thresholds resolve_tolerance(TolClass cls, Tier tier, DType dtype) {
  if (cls == TolClass::exact) return {};
  for (const auto& e : kTable)
    if (e.cls == cls && e.dtype == dtype) return e.tiers[static_cast<int>(tier)];
  return {};  // integers, bool, quantized storage: exact
}

std::vector<ToleranceRow> tolerance_table() {
  std::vector<ToleranceRow> rows;
  for (Tier t : kAllTiers)
    for (TolClass c : kAllClasses)
      for (DType d : {DType::f32, DType::f64, DType::f16, DType::bf16}) rows.push_back({t, c, d, resolve_tolerance(c, t, d)});
  return rows;
}

std::string Thresholds::to_string() const {
  if (bitwise) return "bit-exact";
  char buf[160];
  std::snprintf(buf, sizeof buf, "max_ulp %g, atol %g, rtol %g, normwise %g", max_ulp, atol, rtol, normwise);
  return buf;
}

}  // namespace rung::ops
