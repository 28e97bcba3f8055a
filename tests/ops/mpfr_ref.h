// Higher-precision references for the numerics tests: MPFR at 256 bits, and the error of an
// f32 result in ulps of the exact value (the ulp of the binade the exact value lies in, or
// 2^-149 below the normal range).
#pragma once

#include <mpfr.h>

#include <cmath>
#include <cstdint>
#include <functional>

namespace rung::ops::testing {

class Mp {
 public:
  Mp() { mpfr_init2(v_, 256); }
  ~Mp() { mpfr_clear(v_); }
  Mp(const Mp&) = delete;
  Mp& operator=(const Mp&) = delete;
  mpfr_ptr get() { return v_; }
  mpfr_srcptr get() const { return v_; }

 private:
  mpfr_t v_;
};

using MpFn = std::function<void(Mp& out, float x)>;

// |y - exact| / ulp(exact); y = ±inf counts as 0 when exact rounds to the same infinity and
// as +inf otherwise; both NaN: 0.
inline double ulp_error(float y, const Mp& exact) {
  mpfr_srcptr e = exact.get();
  if (mpfr_nan_p(e)) return std::isnan(y) ? 0.0 : INFINITY;
  if (std::isnan(y)) return INFINITY;
  float cr = mpfr_get_flt(e, MPFR_RNDN);
  if (std::isinf(y) || std::isinf(cr)) return (y == cr) ? 0.0 : INFINITY;
  if (mpfr_zero_p(e)) return y == 0.0f ? 0.0 : INFINITY;
  long exp2;
  mpfr_get_d_2exp(&exp2, e, MPFR_RNDN);  // |e| = m * 2^exp2 with m in [0.5, 1)
  long ulp_exp = exp2 - 1 - 23;
  if (ulp_exp < -149) ulp_exp = -149;
  Mp diff;
  mpfr_sub_d(diff.get(), e, static_cast<double>(y), MPFR_RNDN);
  mpfr_abs(diff.get(), diff.get(), MPFR_RNDN);
  mpfr_mul_2si(diff.get(), diff.get(), -ulp_exp, MPFR_RNDN);
  return mpfr_get_d(diff.get(), MPFR_RNDN);
}

// The correctly rounded f32 of the exact value.
inline float correctly_rounded(const Mp& exact) { return mpfr_get_flt(exact.get(), MPFR_RNDN); }

}  // namespace rung::ops::testing
