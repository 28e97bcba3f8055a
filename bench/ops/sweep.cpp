// Every finite f32 input (all 2^32 bit patterns but NaNs and infinities) of one rung transcendental against a
// reference: a fast first pass (glibc's binary64 function, or a long double formula, each
// accurate to far better than 2^-24 ulp of f32) decides most inputs; the ones within 2^-20
// ulp of a rounding midpoint, or past it, are decided again with MPFR at 256 bits.
//
//   build-ops/bench/ops/ops_sweep exp 2      # function, threads
//
// Prints: inputs, results not correctly rounded, max error in ulps (real-valued, exact for
// the MPFR-checked cases), the worst input, seconds.
#include <mpfr.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ops/numerics/elementwise.h"

namespace {

using namespace rung;

struct Fn {
  const char* name;
  float (*mine)(float);
  double (*fast_ref)(float);                        // binary64 approximation of the exact value
  void (*mp_ref)(mpfr_t out, float x);              // 256-bit value
};

void mp_sigmoid(mpfr_t e, float x) {
  mpfr_set_flt(e, -x, MPFR_RNDN);
  mpfr_exp(e, e, MPFR_RNDN);
  mpfr_add_ui(e, e, 1, MPFR_RNDN);
  mpfr_ui_div(e, 1, e, MPFR_RNDN);
}

const Fn kFns[] = {
    {"exp", num::exp_f32, [](float x) { return std::exp(static_cast<double>(x)); },
     [](mpfr_t e, float x) { mpfr_set_flt(e, x, MPFR_RNDN); mpfr_exp(e, e, MPFR_RNDN); }},
    {"log", num::log_f32, [](float x) { return std::log(static_cast<double>(x)); },
     [](mpfr_t e, float x) { mpfr_set_flt(e, x, MPFR_RNDN); mpfr_log(e, e, MPFR_RNDN); }},
    {"sin", num::sin_f32, [](float x) { return std::sin(static_cast<double>(x)); },
     [](mpfr_t e, float x) { mpfr_set_flt(e, x, MPFR_RNDN); mpfr_sin(e, e, MPFR_RNDN); }},
    {"cos", num::cos_f32, [](float x) { return std::cos(static_cast<double>(x)); },
     [](mpfr_t e, float x) { mpfr_set_flt(e, x, MPFR_RNDN); mpfr_cos(e, e, MPFR_RNDN); }},
    {"tanh", num::tanh_f32, [](float x) { return std::tanh(static_cast<double>(x)); },
     [](mpfr_t e, float x) { mpfr_set_flt(e, x, MPFR_RNDN); mpfr_tanh(e, e, MPFR_RNDN); }},
    {"erf", num::erf_f32, [](float x) { return std::erf(static_cast<double>(x)); },
     [](mpfr_t e, float x) { mpfr_set_flt(e, x, MPFR_RNDN); mpfr_erf(e, e, MPFR_RNDN); }},
    {"sigmoid", num::sigmoid_f32,
     [](float x) { return static_cast<double>(1.0L / (1.0L + std::exp(-static_cast<long double>(x)))); }, mp_sigmoid},
    {"silu", num::silu_f32,
     [](float x) { return static_cast<double>(x / (1.0L + std::exp(-static_cast<long double>(x)))); },
     [](mpfr_t e, float x) { mp_sigmoid(e, x); mpfr_mul_d(e, e, x, MPFR_RNDN); }},
    {"gelu", num::gelu_erf_f32,
     [](float x) {
       long double z = -static_cast<long double>(x) / std::sqrt(2.0L);
       return static_cast<double>(0.5L * x * std::erfc(z));
     },
     [](mpfr_t e, float x) {
       mpfr_t t;
       mpfr_init2(t, 256);
       mpfr_set_ui(t, 2, MPFR_RNDN);
       mpfr_sqrt(t, t, MPFR_RNDN);
       mpfr_set_flt(e, -x, MPFR_RNDN);
       mpfr_div(e, e, t, MPFR_RNDN);
       mpfr_erfc(e, e, MPFR_RNDN);
       mpfr_mul_d(e, e, 0.5 * x, MPFR_RNDN);
       mpfr_clear(t);
     }},
};

// The f32 ulp at the magnitude of v (2^-149 below the normal range).
double ulp_at(double v) {
  int e;
  std::frexp(std::fabs(v), &e);  // |v| = m 2^e, m in [0.5, 1)
  int ue = e - 24;
  if (ue < -149) ue = -149;
  return std::ldexp(1.0, ue);
}

double mp_ulp_error(float y, mpfr_t exact, bool& cr) {
  float r = mpfr_get_flt(exact, MPFR_RNDN);
  cr = (r == y) || (std::isnan(r) && std::isnan(y));
  if (std::isinf(y) || std::isinf(r) || std::isnan(y) || std::isnan(r)) return cr ? 0.0 : INFINITY;
  if (mpfr_zero_p(exact)) return y == 0 ? 0.0 : INFINITY;
  long e2;
  mpfr_get_d_2exp(&e2, exact, MPFR_RNDN);
  long ue = e2 - 24 < -149 ? -149 : e2 - 24;
  mpfr_t d;
  mpfr_init2(d, 256);
  mpfr_sub_d(d, exact, static_cast<double>(y), MPFR_RNDN);
  mpfr_abs(d, d, MPFR_RNDN);
  mpfr_mul_2si(d, d, -ue, MPFR_RNDN);
  double err = mpfr_get_d(d, MPFR_RNDN);
  mpfr_clear(d);
  return err;
}

struct Result {
  std::uint64_t n = 0, not_cr = 0, rechecked = 0;
  double max_err = 0;
  std::uint32_t worst = 0;
};

Result run_range(const Fn& f, std::uint64_t lo, std::uint64_t hi) {
  Result r;
  mpfr_t e;
  mpfr_init2(e, 256);
  const double band = std::ldexp(1.0, -20);
  for (std::uint64_t b = lo; b < hi; ++b) {
    float x = num::f32_from_bits(static_cast<std::uint32_t>(b));
    if (std::isnan(x) || std::isinf(x)) continue;  // specials are unit tests (tests/ops)
    ++r.n;
    float y = f.mine(x);
    double ref = f.fast_ref(x);
    double err;
    bool cr;
    // Decided without MPFR: both NaN, or both beyond the f32 overflow threshold with y = ±inf
    // (the threshold is 2^128 - 2^103; a reference error of 2^-50 cannot cross it there).
    if (std::isnan(y) && std::isnan(ref)) continue;
    if (std::isinf(y) && std::fabs(ref) >= 0x1.000001p128 && (y > 0) == (ref > 0)) continue;
    bool finite = std::isfinite(ref) && std::isfinite(y) && std::fabs(ref) <= 3.4028234663852886e38;
    if (finite) err = std::fabs(static_cast<double>(y) - ref) / ulp_at(ref);
    if (!finite || std::fabs(err - 0.5) < band || err > 0.5) {
      ++r.rechecked;
      f.mp_ref(e, x);
      err = mp_ulp_error(y, e, cr);
    } else {
      cr = true;  // err < 0.5 - 2^-20 with a reference error below 2^-27 ulp
    }
    if (!cr) ++r.not_cr;
    if (err > r.max_err) { r.max_err = err; r.worst = static_cast<std::uint32_t>(b); }
  }
  mpfr_clear(e);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: ops_sweep FUNCTION [THREADS]   (functions:");
    for (const auto& f : kFns) std::fprintf(stderr, " %s", f.name);
    std::fprintf(stderr, ")\n");
    return 2;
  }
  const Fn* fn = nullptr;
  for (const auto& f : kFns)
    if (std::strcmp(f.name, argv[1]) == 0) fn = &f;
  if (!fn) { std::fprintf(stderr, "unknown function %s\n", argv[1]); return 2; }
  int threads = argc > 2 ? std::atoi(argv[2]) : 1;
  if (threads < 1) threads = 1;
  auto t0 = std::chrono::steady_clock::now();
  std::vector<Result> parts(threads);
  std::vector<std::thread> pool;
  const std::uint64_t total = std::uint64_t{1} << 32;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] { parts[t] = run_range(*fn, total * t / threads, total * (t + 1) / threads); });
  for (auto& th : pool) th.join();
  Result all;
  for (const auto& p : parts) {
    all.n += p.n;
    all.not_cr += p.not_cr;
    all.rechecked += p.rechecked;
    if (p.max_err > all.max_err) { all.max_err = p.max_err; all.worst = p.worst; }
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%s: %llu inputs, %llu not correctly rounded, max error %.9f ulp at %a (0x%08x), %llu rechecked with MPFR, %.0f s on %d threads\n",
              fn->name, static_cast<unsigned long long>(all.n), static_cast<unsigned long long>(all.not_cr), all.max_err,
              static_cast<double>(num::f32_from_bits(all.worst)), all.worst,
              static_cast<unsigned long long>(all.rechecked), secs, threads);
  return 0;
}
