#include "ops/compare.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "ops/numerics/half.h"

namespace rung::ops {

namespace {

// Position on the number line of a finite value's encoding: sign-magnitude made monotone.
double ordinal(DType dtype, double v) {
  std::uint64_t mag;
  bool neg = std::signbit(v);
  switch (dtype) {
    case DType::f64: mag = num::bits_of(v) & 0x7FFFFFFFFFFFFFFFull; break;
    case DType::f32: mag = num::bits_of(static_cast<float>(v)) & 0x7FFFFFFFu; break;
    case DType::f16: mag = num::f16_from_f64(v) & 0x7FFFu; break;
    case DType::bf16: mag = num::bf16_from_f64(v) & 0x7FFFu; break;
    default: return v;
  }
  double m = static_cast<double>(mag);
  return neg ? -m : m;
}

bool is_float(DType d) { return dtype_info(d).is_float; }

// Value of element i as a double, for reporting and error sums (exact for floats and for
// integers up to 2^53).
double value_at(const HostTensor& t, std::uint64_t i) {
  const DTypeInfo& info = dtype_info(t.dtype());
  if (info.is_float) return t.load_f64(i);
  if (t.dtype() == DType::u64) return static_cast<double>(t.load_u64(i));
  return static_cast<double>(t.load_i64(i));
}

bool same_bits(const HostTensor& a, const HostTensor& b, std::uint64_t i, std::size_t width) {
  return std::memcmp(a.bytes().data() + i * width, b.bytes().data() + i * width, width) == 0;
}

}  // namespace

double ulp_distance(DType dtype, double a, double b) { return std::fabs(ordinal(dtype, a) - ordinal(dtype, b)); }

Verdict compare(const HostTensor& actual, const HostTensor& reference, TolClass cls, Tier tier) {
  Verdict v;
  v.tier = tier;
  v.cls = cls;
  v.dtype = reference.dtype();
  v.thresholds = resolve_tolerance(cls, tier, reference.dtype());
  if (actual.dtype() != reference.dtype() || actual.shape() != reference.shape()) {
    v.mismatch = "actual is " + std::string(dtype_name(actual.dtype())) + extents_to_string(actual.shape()) +
                 ", reference is " + std::string(dtype_name(reference.dtype())) + extents_to_string(reference.shape());
    return v;
  }
  const Thresholds& t = v.thresholds;
  std::size_t width = dtype_info(reference.dtype()).block_bytes;
  bool fl = is_float(reference.dtype());
  if (dtype_info(reference.dtype()).is_quantized) {  // opaque blocks: bytes only
    v.count = reference.numel();
    v.bit_mismatches = actual.bytes().size() == reference.bytes().size() &&
                               std::memcmp(actual.bytes().data(), reference.bytes().data(), actual.bytes().size()) == 0
                           ? 0 : 1;
    v.failures = v.bit_mismatches;
    v.pass = v.failures == 0;
    return v;
  }
  double err2 = 0, ref2 = 0;
  double worst_ulp = -1;
  bool have_failure = false;
  v.count = reference.numel();
  for (std::uint64_t i = 0; i < v.count; ++i) {
    double a = value_at(actual, i), r = value_at(reference, i);
    bool bits_equal = same_bits(actual, reference, i, width);
    if (!bits_equal) ++v.bit_mismatches;
    bool ok;
    if (fl && (std::isnan(a) || std::isnan(r))) {
      ok = std::isnan(a) && std::isnan(r);
      if (!ok) ++v.nan_mismatches;
    } else if (fl && (std::isinf(a) || std::isinf(r))) {
      ok = a == r;
      if (!ok) ++v.inf_mismatches;
    } else {
      double d = std::fabs(a - r);
      double u = fl ? ulp_distance(reference.dtype(), a, r) : 0.0;
      v.max_abs_err = std::max(v.max_abs_err, d);
      err2 += d * d;
      ref2 += r * r;
      if (u > v.max_ulp) v.max_ulp = u;
      ok = bits_equal || (!t.bitwise && (u <= t.max_ulp || d <= t.atol + t.rtol * std::fabs(r)));
      if (!have_failure && u > worst_ulp) { worst_ulp = u; v.worst_index = i; }
    }
    if (t.bitwise) ok = bits_equal || (fl && std::isnan(a) && std::isnan(r));
    if (!ok) {
      ++v.failures;
      if (!have_failure) { have_failure = true; v.worst_index = i; }
    }
  }
  v.normwise = ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2);
  if (v.count > 0) {
    v.worst_actual = value_at(actual, v.worst_index);
    v.worst_expected = value_at(reference, v.worst_index);
  }
  v.pass = v.failures == 0 && (t.bitwise || v.normwise <= t.normwise);
  return v;
}

std::string Verdict::summary() const {
  std::string s = std::string(pass ? "pass" : "FAIL") + " [" + std::string(tol_class_name(cls)) + " in tier " +
                  std::string(tier_name(tier)) + ", " + std::string(dtype_name(dtype)) + ": " + thresholds.to_string() + "]";
  if (!mismatch.empty()) return s + " " + mismatch;
  char buf[320];
  std::snprintf(buf, sizeof buf,
                " %llu elements, %llu failing, %llu bit-different, max %g ulp, max abs %g, normwise %g, "
                "NaN mismatches %llu, inf mismatches %llu; worst #%llu: %.9g vs %.9g",
                static_cast<unsigned long long>(count), static_cast<unsigned long long>(failures),
                static_cast<unsigned long long>(bit_mismatches), max_ulp, max_abs_err, normwise,
                static_cast<unsigned long long>(nan_mismatches), static_cast<unsigned long long>(inf_mismatches),
                static_cast<unsigned long long>(worst_index), worst_actual, worst_expected);
  return s + buf;
}

nlohmann::json Verdict::to_json() const {
  auto num = [](double x) -> nlohmann::json {
    if (std::isnan(x)) return "nan";
    if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
    return x;
  };
  nlohmann::json th = thresholds.bitwise ? nlohmann::json{{"bitwise", true}}
                                         : nlohmann::json{{"bitwise", false}, {"max_ulp", thresholds.max_ulp},
                                                          {"atol", thresholds.atol}, {"rtol", thresholds.rtol},
                                                          {"normwise", thresholds.normwise}};
  nlohmann::json j{{"pass", pass}, {"tier", tier_name(tier)}, {"class", tol_class_name(cls)},
                   {"dtype", dtype_name(dtype)}, {"thresholds", th}};
  if (!mismatch.empty()) {
    j["mismatch"] = mismatch;
    return j;
  }
  j.update({{"count", count}, {"failures", failures}, {"bit_mismatches", bit_mismatches},
            {"nan_mismatches", nan_mismatches}, {"inf_mismatches", inf_mismatches}, {"max_ulp", num(max_ulp)},
            {"max_abs_err", num(max_abs_err)}, {"normwise", num(normwise)}, {"worst_index", worst_index},
            {"worst_actual", num(worst_actual)}, {"worst_expected", num(worst_expected)}});
  return j;
}

}  // namespace rung::ops
