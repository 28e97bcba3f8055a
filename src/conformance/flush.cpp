#include "conformance/flush.h"

#include <cmath>

namespace rung::conformance {

namespace {
constexpr double kMinNormalF32 = 1.1754943508222875e-38;  // 2^-126

bool below_normal(double v) { return v != 0 && std::fabs(v) < kMinNormalF32; }
}  // namespace

bool has_subnormals(const ops::HostTensor& t) {
  const DTypeInfo& info = dtype_info(t.dtype());
  if (!info.is_float || info.is_quantized) return false;
  for (std::uint64_t i = 0; i < t.numel(); ++i)
    if (below_normal(t.load_f64(i))) return true;
  return false;
}

bool any_subnormals(std::span<const ops::HostTensor> ts) {
  for (const auto& t : ts)
    if (has_subnormals(t)) return true;
  return false;
}

ops::HostTensor flush_subnormals(const ops::HostTensor& t) {
  ops::HostTensor out = t;
  const DTypeInfo& info = dtype_info(t.dtype());
  if (!info.is_float || info.is_quantized) return out;
  for (std::uint64_t i = 0; i < t.numel(); ++i) {
    double v = t.load_f64(i);
    if (below_normal(v)) out.store_f64(i, std::signbit(v) ? -0.0 : 0.0);
  }
  return out;
}

ops::HostTensor absorb_subnormal_differences(const ops::HostTensor& actual, const ops::HostTensor& reference) {
  ops::HostTensor out = actual;
  const DTypeInfo& info = dtype_info(actual.dtype());
  if (!info.is_float || info.is_quantized || actual.dtype() != reference.dtype() || actual.shape() != reference.shape()) return out;
  for (std::uint64_t i = 0; i < actual.numel(); ++i) {
    double a = actual.load_f64(i), r = reference.load_f64(i);
    if (std::isfinite(a) && std::isfinite(r) && a != r && std::fabs(a - r) <= kMinNormalF32) out.store_f64(i, r);
  }
  return out;
}

}  // namespace rung::conformance
