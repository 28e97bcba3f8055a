// resize's tables: ONNX 1.12's coordinate transforms and coefficient formulas (its reference,
// onnx/backend/test/case/node/resize.py), evaluated in binary64 in the order written there.
#include "ops/resize_plan.h"

#include <algorithm>
#include <cmath>

#include "ops/dtype_set.h"

namespace rung::ops {

namespace {

constexpr std::int64_t kMaxExtent = std::int64_t{1} << 40;

double scale_of(const Attrs& a, std::size_t d, std::uint64_t in, std::uint64_t out) {
  const auto& s = a.reals("scales");
  if (!s.empty()) return s[d];
  return static_cast<double>(out) / static_cast<double>(in);  // numpy: sizes / shape in binary64
}

// Source coordinate of output coordinate x; `outside` when tf_crop_and_resize leaves the input.
double source_coordinate(const std::string& mode, std::int64_t x, std::uint64_t in, double scale, double r0, double r1,
                         bool& outside) {
  const double xd = static_cast<double>(x);
  const double ow = scale * static_cast<double>(in);  // the reference's output_width (not the rounded size)
  const double last = static_cast<double>(in) - 1.0;
  if (mode == "align_corners") return ow == 1.0 ? 0.0 : static_cast<double>(x * (static_cast<std::int64_t>(in) - 1)) / (ow - 1.0);
  if (mode == "asymmetric") return xd / scale;
  if (mode == "pytorch_half_pixel") return ow == 1.0 ? -0.5 : (xd + 0.5) / scale - 0.5;
  if (mode == "tf_crop_and_resize") {
    double v = ow == 1.0 ? (r1 - r0) * last / 2.0 : xd * (r1 - r0) * last / (ow - 1.0);
    v += r0 * last;
    outside = v < 0.0 || v > last;
    return v;
  }
  return (xd + 0.5) / scale - 0.5;  // half_pixel
}

// The coefficients of the reference's get_coeffs(ratio), ratio in (0, 1].
void coefficients(const Attrs& a, double ratio, double* c) {
  const std::string& mode = a.string("mode");
  if (mode == "linear") {
    c[0] = 1.0 - ratio;
    c[1] = ratio;
  } else if (mode == "cubic") {
    const double A = a.real("cubic_coeff_a");
    const double r1 = ratio + 1.0, s = 1.0 - ratio, s1 = s + 1.0;
    c[0] = ((A * r1 - 5.0 * A) * r1 + 8.0 * A) * r1 - 4.0 * A;
    c[1] = ((A + 2.0) * ratio - (A + 3.0)) * ratio * ratio + 1.0;
    c[2] = ((A + 2.0) * s - (A + 3.0)) * s * s + 1.0;
    c[3] = ((A * s1 - 5.0 * A) * s1 + 8.0 * A) * s1 - 4.0 * A;
  } else {  // nearest: which of the two neighbours
    const std::string& nm = a.string("nearest_mode");
    bool right = ratio == 1.0 || nm == "ceil" || (nm == "round_prefer_floor" && ratio > 0.5) ||
                 (nm == "round_prefer_ceil" && ratio >= 0.5);
    c[0] = right ? 0.0 : 1.0;
    c[1] = right ? 1.0 : 0.0;
  }
}

ResizeAxis axis_table(const Attrs& a, std::size_t d, std::uint64_t in, std::uint64_t out) {
  ResizeAxis ax;
  ax.in = in;
  ax.out = out;
  const std::string& mode = a.string("mode");
  const std::string& cmode = a.string("coordinate_mode");
  const bool nearest = mode == "nearest";
  const std::size_t n = mode == "cubic" ? 4 : 2;  // coefficients per coordinate
  ax.taps = nearest ? 1 : n;
  ax.index.assign(out * ax.taps, 0);
  ax.weight.assign(out * ax.taps, 0.0);
  ax.outside.assign(out, 0);
  const auto& roi = a.reals("roi");
  const std::size_t rank = roi.size() / 2;
  double r0 = roi.empty() ? 0.0 : roi[d], r1 = roi.empty() ? 1.0 : roi[rank + d];
  const double scale = scale_of(a, d, in, out);
  const auto half = static_cast<double>(n / 2);
  for (std::uint64_t o = 0; o < out; ++o) {
    bool outside = false;
    double xo = source_coordinate(cmode, static_cast<std::int64_t>(o), in, scale, r0, r1, outside);
    if (outside) {
      ax.outside[o] = 1;
      continue;
    }
    if (std::isnan(xo)) xo = 0.0;  // unreachable with checked attributes; keeps the casts defined
    const double fl = std::floor(xo);
    const double ratio = xo == fl ? 1.0 : xo - fl;
    double c[4];
    coefficients(a, ratio, c);
    // The n nearest indices of the edge-padded axis (ties to the smaller): a window starting
    // at ceil(x) - n/2, held inside [-n/2, in - n/2]; tap t reads index clamp(start + t).
    double start = std::min(std::max(std::ceil(xo) - half, -half), static_cast<double>(in) - half);
    auto s = static_cast<std::int64_t>(start);
    if (a.boolean("exclude_outside") && !nearest) {
      double sum = 0.0;
      for (std::size_t t = 0; t < n; ++t) {
        std::int64_t j = s + static_cast<std::int64_t>(t);
        if (j < 0 || j >= static_cast<std::int64_t>(in)) c[t] = 0.0;
        sum += c[t];
      }
      for (std::size_t t = 0; t < n; ++t) c[t] /= sum;
    }
    auto clamp_index = [&](std::int64_t j) { return std::clamp<std::int64_t>(j, 0, static_cast<std::int64_t>(in) - 1); };
    if (nearest) {
      ax.index[o] = clamp_index(s + (c[1] != 0.0 ? 1 : 0));
      ax.weight[o] = 1.0;
      continue;
    }
    for (std::size_t t = 0; t < n; ++t) {
      ax.index[o * n + t] = clamp_index(s + static_cast<std::int64_t>(t));
      ax.weight[o * n + t] = c[t];
    }
  }
  ax.identity = in == out;
  for (std::uint64_t o = 0; o < out && ax.identity; ++o) {
    if (ax.outside[o]) { ax.identity = false; break; }
    int ones = 0;
    for (std::size_t t = 0; t < ax.taps; ++t) {
      double w = ax.weight[o * ax.taps + t];
      if (w == 0.0) continue;
      if (w == 1.0 && ax.index[o * ax.taps + t] == static_cast<std::int64_t>(o)) ++ones;
      else ones = 2;
    }
    ax.identity = ones == 1;
  }
  return ax;
}

}  // namespace

std::string resize_attrs_error(const Shape& x, DType dtype, const Attrs& a) {
  const std::size_t rank = x.size();
  const auto& sizes = a.integers("sizes");
  const auto& scales = a.reals("scales");
  const auto& roi = a.reals("roi");
  const std::string& mode = a.string("mode");
  const std::string& cmode = a.string("coordinate_mode");
  if (sizes.size() != rank)
    return "sizes needs one extent per axis (" + std::to_string(rank) + "), got " + std::to_string(sizes.size());
  if (!scales.empty() && scales.size() != rank)
    return "scales needs one entry per axis (" + std::to_string(rank) + ") or none, got " + std::to_string(scales.size());
  if (!roi.empty() && roi.size() != 2 * rank)
    return "roi needs 2 entries per axis (starts, then ends) = " + std::to_string(2 * rank) + " or none, got " +
           std::to_string(roi.size());
  for (double r : roi)
    if (!std::isfinite(r)) return "roi entries must be finite";
  if (mode != "nearest" && !DTypeSet(kFloat).contains(dtype))
    return "mode " + mode + " interpolates and needs a float dtype, got " + std::string(dtype_name(dtype));
  if (cmode == "tf_crop_and_resize" && !DTypeSet(kFloat).contains(dtype))
    return "coordinate_mode tf_crop_and_resize extrapolates and needs a float dtype, got " + std::string(dtype_name(dtype));
  if (!std::isfinite(a.real("cubic_coeff_a"))) return "cubic_coeff_a must be finite";
  for (std::size_t d = 0; d < rank; ++d) {
    std::string ax = " (axis " + std::to_string(d) + ")";
    if (!scales.empty() && !(std::isfinite(scales[d]) && scales[d] > 0.0))
      return "scales must be finite and > 0, got " + std::to_string(scales[d]) + ax;
    if (sizes[d] == -1) {
      if (!scales.empty() && scales[d] != 1.0) return "a kept axis (sizes -1) needs scale 1" + ax;
      continue;
    }
    if (sizes[d] < 0 || sizes[d] > kMaxExtent) return "sizes must be -1 (keep) or in [0, 2^40], got " + std::to_string(sizes[d]) + ax;
    if (!x[d].is_static()) return "cannot resize the symbolic dim " + x[d].to_string() + ax + " (sizes -1 keeps it)";
    if (x[d].extent() == 0 && sizes[d] > 0) return "cannot resample the empty axis to " + std::to_string(sizes[d]) + ax;
  }
  return {};
}

Shape resize_out_shape(const Shape& x, const Attrs& a) {
  const auto& sizes = a.integers("sizes");
  Shape out = x;
  for (std::size_t d = 0; d < x.size(); ++d)
    if (sizes[d] != -1) out[d] = Dim::fixed(static_cast<std::uint64_t>(sizes[d]));
  return out;
}

std::vector<ResizeAxis> resize_axes(const Extents& in, const Extents& out, const Attrs& a) {
  const auto& sizes = a.integers("sizes");
  std::vector<ResizeAxis> axes(in.size());
  for (std::size_t d = 0; d < in.size(); ++d) {
    if (sizes[d] == -1 || out[d] == 0) {  // kept, or nothing to compute
      axes[d].in = in[d];
      axes[d].out = out[d];
      axes[d].identity = sizes[d] == -1 || in[d] == 0;
      continue;
    }
    axes[d] = axis_table(a, d, in[d], out[d]);
  }
  return axes;
}

std::vector<std::size_t> resize_pass_order(const std::vector<ResizeAxis>& axes) {
  std::vector<std::size_t> order;
  for (std::size_t d = axes.size(); d-- > 0;)
    if (!axes[d].identity) order.push_back(d);
  return order;
}

}  // namespace rung::ops
