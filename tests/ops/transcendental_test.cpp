// rung's transcendentals against MPFR (256-bit, correctly rounded) on a CI-sized sweep:
// 2^17 inputs spread over all f32 bit patterns plus 2^14 dense in the busy range, per
// function. Each must stay within its documented bound (docs/semantics.md); the full 2^32
// sweeps are bench/ops/sweep (see bench/RESULTS.md).
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "mpfr_ref.h"
#include "ops/numerics/elementwise.h"

namespace rung::ops::testing {
namespace {

struct Stats {
  double max_err = 0;
  float worst_x = 0;
  std::uint64_t not_cr = 0;
  std::uint64_t n = 0;
};

std::vector<float> sweep_inputs(float dense_lo, float dense_hi) {
  std::vector<float> xs;
  for (std::uint32_t i = 0; i < (1u << 17); ++i) {
    float x = num::f32_from_bits(i * 0x9E3779B1u);  // a permutation of the bit patterns
    if (!num::is_nan(x)) xs.push_back(x);
  }
  for (std::uint32_t i = 0; i <= (1u << 14); ++i)
    xs.push_back(dense_lo + (dense_hi - dense_lo) * (static_cast<float>(i) / 16384.0f));
  for (float s : {0.0f, -0.0f, 1e-45f, -1e-45f, 1.17549435e-38f, -1.17549435e-38f, 1.0f, -1.0f, 0.5f, 2.0f})
    xs.push_back(s);
  return xs;
}

template <typename F>
Stats measure(const std::vector<float>& xs, F f, const MpFn& ref) {
  Stats s;
  Mp e;
  for (float x : xs) {
    float y = f(x);
    ref(e, x);
    double err = ulp_error(y, e);
    if (!(y == correctly_rounded(e) || (std::isnan(y) && mpfr_nan_p(e.get())))) ++s.not_cr;
    if (err > s.max_err) { s.max_err = err; s.worst_x = x; }
    ++s.n;
  }
  return s;
}

void report(const char* name, const Stats& s, double bound) {
  std::printf("%-10s %7llu inputs  max error %.6f ulp (at %a)  not correctly rounded: %llu\n", name,
              static_cast<unsigned long long>(s.n), s.max_err, s.worst_x, static_cast<unsigned long long>(s.not_cr));
  EXPECT_LE(s.max_err, bound) << name << " at x = " << s.worst_x;
}

void set_sigmoid(Mp& e, float x) {  // 1 / (1 + e^-x)
  mpfr_set_flt(e.get(), -x, MPFR_RNDN);
  mpfr_exp(e.get(), e.get(), MPFR_RNDN);
  mpfr_add_ui(e.get(), e.get(), 1, MPFR_RNDN);
  mpfr_ui_div(e.get(), 1, e.get(), MPFR_RNDN);
}

// The documented bounds (docs/semantics.md): a binary64 evaluation rounded once to f32.
constexpr double kBound = 0.5 + 1.0 / 1024;

TEST(Transcendental, Exp) {
  report("exp", measure(sweep_inputs(-104.0f, 89.0f), num::exp_f32, [](Mp& e, float x) {
           mpfr_set_flt(e.get(), x, MPFR_RNDN);
           mpfr_exp(e.get(), e.get(), MPFR_RNDN);
         }), kBound);
}

TEST(Transcendental, Log) {
  report("log", measure(sweep_inputs(0.0f, 4.0f), num::log_f32, [](Mp& e, float x) {
           mpfr_set_flt(e.get(), x, MPFR_RNDN);
           mpfr_log(e.get(), e.get(), MPFR_RNDN);
         }), kBound);
}

TEST(Transcendental, Sin) {
  report("sin", measure(sweep_inputs(-10.0f, 10.0f), num::sin_f32, [](Mp& e, float x) {
           mpfr_set_flt(e.get(), x, MPFR_RNDN);
           mpfr_sin(e.get(), e.get(), MPFR_RNDN);
         }), kBound);
}

TEST(Transcendental, Cos) {
  report("cos", measure(sweep_inputs(-10.0f, 10.0f), num::cos_f32, [](Mp& e, float x) {
           mpfr_set_flt(e.get(), x, MPFR_RNDN);
           mpfr_cos(e.get(), e.get(), MPFR_RNDN);
         }), kBound);
}

TEST(Transcendental, Atan) {
  report("atan", measure(sweep_inputs(-4.0f, 4.0f), num::atan_f32, [](Mp& e, float x) {
           mpfr_set_flt(e.get(), x, MPFR_RNDN);
           mpfr_atan(e.get(), e.get(), MPFR_RNDN);
         }), kBound);
}

TEST(Transcendental, Asin) {
  report("asin", measure(sweep_inputs(-1.0f, 1.0f), num::asin_f32, [](Mp& e, float x) {
           mpfr_set_flt(e.get(), x, MPFR_RNDN);
           mpfr_asin(e.get(), e.get(), MPFR_RNDN);
         }), kBound);
}

TEST(Transcendental, Acos) {
  report("acos", measure(sweep_inputs(-1.0f, 1.0f), num::acos_f32, [](Mp& e, float x) {
           mpfr_set_flt(e.get(), x, MPFR_RNDN);
           mpfr_acos(e.get(), e.get(), MPFR_RNDN);
         }), kBound);
}

TEST(Transcendental, Tanh) {
  report("tanh", measure(sweep_inputs(-10.0f, 10.0f), num::tanh_f32, [](Mp& e, float x) {
           mpfr_set_flt(e.get(), x, MPFR_RNDN);
           mpfr_tanh(e.get(), e.get(), MPFR_RNDN);
         }), kBound);
}

TEST(Transcendental, Sigmoid) {
  report("sigmoid", measure(sweep_inputs(-110.0f, 20.0f), num::sigmoid_f32, set_sigmoid), kBound);
}

TEST(Transcendental, Silu) {
  report("silu", measure(sweep_inputs(-120.0f, 20.0f), num::silu_f32, [](Mp& e, float x) {
           set_sigmoid(e, x);
           mpfr_mul_d(e.get(), e.get(), x, MPFR_RNDN);
         }), kBound);
}

TEST(Transcendental, Erf) {
  report("erf", measure(sweep_inputs(-4.5f, 4.5f), num::erf_f32, [](Mp& e, float x) {
           mpfr_set_flt(e.get(), x, MPFR_RNDN);
           mpfr_erf(e.get(), e.get(), MPFR_RNDN);
         }), kBound);
}

TEST(Transcendental, GeluErf) {
  report("gelu", measure(sweep_inputs(-16.0f, 8.0f), num::gelu_erf_f32, [](Mp& e, float x) {
           Mp t;  // 0.5 x erfc(-x / sqrt 2)
           mpfr_set_ui(t.get(), 2, MPFR_RNDN);
           mpfr_sqrt(t.get(), t.get(), MPFR_RNDN);
           mpfr_set_flt(e.get(), -x, MPFR_RNDN);
           mpfr_div(e.get(), e.get(), t.get(), MPFR_RNDN);
           mpfr_erfc(e.get(), e.get(), MPFR_RNDN);
           mpfr_mul_d(e.get(), e.get(), 0.5 * x, MPFR_RNDN);
         }), kBound);
}

TEST(Transcendental, GeluTanh) {
  report("gelu_tanh", measure(sweep_inputs(-21.0f, 11.0f), num::gelu_tanh_f32, [](Mp& e, float x) {
           Mp t;  // 0.5 x (1 + tanh(sqrt(2/pi) (x + c x^3))), c the double 0.044715
           mpfr_set_flt(e.get(), x, MPFR_RNDN);
           mpfr_pow_ui(e.get(), e.get(), 3, MPFR_RNDN);
           mpfr_mul_d(e.get(), e.get(), 0.044715, MPFR_RNDN);
           mpfr_add_d(e.get(), e.get(), x, MPFR_RNDN);
           mpfr_const_pi(t.get(), MPFR_RNDN);
           mpfr_ui_div(t.get(), 2, t.get(), MPFR_RNDN);
           mpfr_sqrt(t.get(), t.get(), MPFR_RNDN);
           mpfr_mul(e.get(), e.get(), t.get(), MPFR_RNDN);
           mpfr_tanh(e.get(), e.get(), MPFR_RNDN);
           mpfr_add_ui(e.get(), e.get(), 1, MPFR_RNDN);
           mpfr_mul_d(e.get(), e.get(), 0.5 * x, MPFR_RNDN);
         }), kBound);
}

TEST(Transcendental, PowOnRandomPairs) {
  Stats s;
  Mp e, ey;
  std::uint32_t state = 12345;
  auto next = [&] { state = state * 1664525u + 1013904223u; return state; };
  for (int i = 0; i < 60000; ++i) {
    float x = num::f32_from_bits(next() & 0x7FFFFFFFu);  // positive x over all binades
    if (num::is_nan(x) || num::is_inf(x)) continue;
    float y = static_cast<float>(static_cast<std::int32_t>(next())) * 0x1p-27f;  // |y| < 16
    if (i % 3 == 0) { x = 0.5f + static_cast<float>(next() >> 8) * 0x1p-24f; y *= 64.0f; }  // x near 1, big y
    if (i % 7 == 0) { x = -x; y = static_cast<float>(static_cast<std::int32_t>(next() % 61) - 30); }  // x < 0, integer y
    float r = num::pow_f32(x, y);
    mpfr_set_flt(e.get(), x, MPFR_RNDN);
    mpfr_set_flt(ey.get(), y, MPFR_RNDN);
    mpfr_pow(e.get(), e.get(), ey.get(), MPFR_RNDN);
    double err = ulp_error(r, e);
    if (r != correctly_rounded(e)) ++s.not_cr;
    if (err > s.max_err) { s.max_err = err; s.worst_x = x; }
    ++s.n;
  }
  report("pow", s, kBound);
}

// ---- binary64 exp and log (docs/semantics.md, "exp and log in binary64"): within 1 ulp. ----

// |y - exact| / ulp(exact) in binary64 (2^-1074 below the normal range); infinities and
// zeros as ulp_error does for f32.
double ulp_error_f64(double y, const Mp& exact) {
  mpfr_srcptr e = exact.get();
  if (mpfr_nan_p(e)) return std::isnan(y) ? 0.0 : INFINITY;
  if (std::isnan(y)) return INFINITY;
  double cr = mpfr_get_d(e, MPFR_RNDN);
  if (std::isinf(y) || std::isinf(cr)) return (y == cr) ? 0.0 : INFINITY;
  if (mpfr_zero_p(e)) return y == 0.0 ? 0.0 : INFINITY;
  long exp2;
  mpfr_get_d_2exp(&exp2, e, MPFR_RNDN);
  long ulp_exp = exp2 - 1 - 52;
  if (ulp_exp < -1074) ulp_exp = -1074;
  Mp diff;
  mpfr_sub_d(diff.get(), e, y, MPFR_RNDN);
  mpfr_abs(diff.get(), diff.get(), MPFR_RNDN);
  mpfr_mul_2si(diff.get(), diff.get(), -ulp_exp, MPFR_RNDN);
  return mpfr_get_d(diff.get(), MPFR_RNDN);
}

struct Stats64 {
  double max_err = 0, worst_x = 0;
  std::uint64_t not_cr = 0, n = 0;
};

template <typename F, typename Ref> Stats64 measure64(const std::vector<double>& xs, F f, Ref ref) {
  Stats64 s;
  Mp e;
  for (double x : xs) {
    double y = f(x);
    mpfr_set_d(e.get(), x, MPFR_RNDN);
    ref(e.get(), e.get(), MPFR_RNDN);
    double err = ulp_error_f64(y, e);
    if (!(y == mpfr_get_d(e.get(), MPFR_RNDN) || (std::isnan(y) && mpfr_nan_p(e.get())))) ++s.not_cr;
    if (err > s.max_err || std::isnan(err)) { s.max_err = std::isnan(err) ? INFINITY : err; s.worst_x = x; }
    ++s.n;
  }
  return s;
}

void report64(const char* name, const Stats64& s, double bound) {
  std::printf("%-10s %7llu inputs  max error %.6f ulp (at %a)  not correctly rounded: %llu\n", name,
              static_cast<unsigned long long>(s.n), s.max_err, s.worst_x, static_cast<unsigned long long>(s.not_cr));
  EXPECT_LE(s.max_err, bound) << name << " at x = " << s.worst_x;
}

// 2^17 bit patterns spread over [lo_bits, hi_bits) (a Weyl sequence), 2^16 uniform in
// [dense_lo, dense_hi], 2^14 near 0 and near 1, and the special values.
std::vector<double> sweep64(double dense_lo, double dense_hi, bool positive) {
  std::vector<double> xs;
  std::uint64_t w = 0;
  for (std::uint32_t i = 0; i < (1u << 17); ++i) {
    w += 0x9E3779B97F4A7C15ull;
    double x = num::f64_from_bits(positive ? w >> 1 : w);
    if (!num::is_nan(x)) xs.push_back(x);
  }
  for (std::uint32_t i = 0; i <= (1u << 16); ++i) {
    w += 0x9E3779B97F4A7C15ull;
    double u = static_cast<double>(w >> 11) * 0x1p-53;  // [0, 1)
    xs.push_back(dense_lo + (dense_hi - dense_lo) * u);
  }
  for (std::uint32_t i = 0; i < (1u << 14); ++i) {
    w += 0x9E3779B97F4A7C15ull;
    double u = (static_cast<double>(w >> 11) * 0x1p-53 - 0.5) * 0x1p-20;
    xs.push_back(positive ? 1.0 + u : u);
  }
  for (double v : {0.0, -0.0, 0x1p-1074, -0x1p-1074, 0x1p-1022, 1.0, -1.0, 0.5, 2.0, 709.782712893384, 709.7827128933841,
                   -745.1332191019411, -745.13321910194122, -708.3964185322641, 0x1.fffffffffffffp+1023, double(INFINITY), -double(INFINITY)})
    if (!positive || v >= 0) xs.push_back(v);
  return xs;
}

constexpr double kBound64 = 1.0;

TEST(TranscendentalF64, Exp) {
  report64("exp f64", measure64(sweep64(-746.0, 710.0, false), num::exp_f64, mpfr_exp), kBound64);
  EXPECT_EQ(num::exp_f64(0.0), 1.0);
  EXPECT_EQ(num::exp_f64(-INFINITY), 0.0);
  EXPECT_TRUE(std::isnan(num::exp_f64(NAN)));
}

TEST(TranscendentalF64, Log) {
  report64("log f64", measure64(sweep64(0.0, 16.0, true), num::log_f64, mpfr_log), kBound64);
  EXPECT_EQ(num::bits_of(num::log_f64(1.0)), num::bits_of(0.0));  // +0
  EXPECT_EQ(num::log_f64(0.0), -INFINITY);
  EXPECT_EQ(num::log_f64(-0.0), -INFINITY);
  EXPECT_TRUE(std::isnan(num::log_f64(-1.0)));
}

// The f32 functors keep their f32 functions; the f64 overloads are the binary64 ones.
TEST(TranscendentalF64, FunctorsDispatchOnTheOperandType) {
  EXPECT_EQ(num::Exp{}(1.0), num::exp_f64(1.0));
  EXPECT_EQ(num::Exp{}(1.0f), num::exp_f32(1.0f));
  EXPECT_EQ(num::Log{}(3.0), num::log_f64(3.0));
  EXPECT_EQ(num::Log{}(3.0f), num::log_f32(3.0f));
  EXPECT_NE(num::Exp{}(1.0), static_cast<double>(num::exp_f32(1.0f)));
}

}  // namespace
}  // namespace rung::ops::testing
