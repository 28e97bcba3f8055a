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

}  // namespace
}  // namespace rung::ops::testing
