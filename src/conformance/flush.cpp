#include "conformance/flush.h"

#include <algorithm>
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

ops::HostTensor nearer_reference(const ops::HostTensor& actual, const ops::HostTensor& ref, const ops::HostTensor& flushed_ref) {
  ops::HostTensor out = ref;
  if (actual.dtype() != ref.dtype() || flushed_ref.dtype() != ref.dtype() || actual.shape() != ref.shape() ||
      flushed_ref.shape() != ref.shape())
    return out;
  const DTypeInfo& info = dtype_info(ref.dtype());
  const std::uint64_t w = info.block_bytes;
  if (info.is_quantized || w == 0) return out;
  const std::uint64_t units = ref.bytes().size() / w;
  auto same = [&](const ops::HostTensor& x, std::uint64_t u) {
    return std::equal(actual.bytes().begin() + u * w, actual.bytes().begin() + (u + 1) * w, x.bytes().begin() + u * w);
  };
  for (std::uint64_t u = 0; u < units; ++u) {
    if (same(ref, u)) continue;
    bool take = same(flushed_ref, u);
    if (!take && info.is_float) {
      double a = actual.load_f64(u), r = ref.load_f64(u), f = flushed_ref.load_f64(u);
      if (std::isnan(a)) take = std::isnan(f) && !std::isnan(r);
      else if (!std::isnan(f)) take = std::isnan(r) || std::fabs(a - f) < std::fabs(a - r) || (std::isinf(a) && a == f);
    }
    if (take) std::copy(flushed_ref.bytes().begin() + u * w, flushed_ref.bytes().begin() + (u + 1) * w, out.bytes().begin() + u * w);
  }
  return out;
}

}  // namespace rung::conformance
