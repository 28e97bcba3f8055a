#include "ops/slice_bounds.h"

#include "base/check.h"
#include "ops/shape_rules.h"

namespace rung::ops {

SliceAxis resolve_slice(std::int64_t start, std::int64_t end, std::int64_t step, std::uint64_t extent) {
  RUNG_CHECK(step != 0 && extent <= static_cast<std::uint64_t>(kSliceMax), "slice: a zero step or an extent beyond int64");
  const auto n = static_cast<std::int64_t>(extent);
  // Python's bounds: [0, n] for a positive step, [-1, n - 1] for a negative one.
  const std::int64_t lo = step > 0 ? 0 : -1, hi = step > 0 ? n : n - 1;
  auto clamp = [&](std::int64_t v) {
    if (v < 0) v += n;  // no overflow: v < 0 <= n
    return v < lo ? lo : v > hi ? hi : v;
  };
  SliceAxis s;
  s.start = clamp(start);
  s.step = step;
  const std::int64_t e = clamp(end);
  if (step > 0) {
    if (e > s.start) s.count = static_cast<std::uint64_t>(e - s.start - 1) / static_cast<std::uint64_t>(step) + 1;
  } else {
    std::uint64_t mag = 0 - static_cast<std::uint64_t>(step);  // |step|, also for INT64_MIN
    if (s.start > e) s.count = static_cast<std::uint64_t>(s.start - e - 1) / mag + 1;
  }
  return s;
}

bool slice_keeps_extent(std::int64_t start, std::int64_t end, std::int64_t step) {
  if (step == 1) return (start == 0 || start == kSliceMin) && end == kSliceMax;
  if (step == -1) return (start == kSliceMax || start == -1) && end == kSliceMin;
  return false;
}

std::optional<std::vector<std::optional<SliceBounds>>> slice_bounds(std::size_t rank, const Attrs& attrs, std::string& err) {
  const auto& starts = attrs.integers("starts");
  const auto& ends = attrs.integers("ends");
  std::vector<std::int64_t> axes = attrs.integers("axes");
  std::vector<std::int64_t> steps = attrs.integers("steps");
  if (axes.empty())
    for (std::size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size()) {
    err = "starts, ends, axes and steps must have the same length (got " + std::to_string(starts.size()) + ", " +
          std::to_string(ends.size()) + ", " + std::to_string(axes.size()) + ", " + std::to_string(steps.size()) + ")";
    return std::nullopt;
  }
  std::vector<std::optional<SliceBounds>> out(rank);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    auto ax = normalize_axis(axes[i], rank, err);
    if (!ax) return std::nullopt;
    if (out[*ax]) {
      err = "axis " + std::to_string(*ax) + " is sliced twice";
      return std::nullopt;
    }
    if (steps[i] == 0) {
      err = "slice step on axis " + std::to_string(*ax) + " is 0 (a step is a non-zero integer)";
      return std::nullopt;
    }
    out[*ax] = SliceBounds{starts[i], ends[i], steps[i]};
  }
  return out;
}

std::vector<SliceAxis> slice_axes(const std::vector<std::uint64_t>& extents, const Attrs& attrs) {
  std::string err;
  auto bounds = slice_bounds(extents.size(), attrs, err);
  RUNG_CHECK(bounds.has_value(), "slice attributes not checked by the shape rule");
  std::vector<SliceAxis> out(extents.size());
  for (std::size_t d = 0; d < extents.size(); ++d) {
    if (const auto& b = (*bounds)[d]) out[d] = resolve_slice(b->start, b->end, b->step, extents[d]);
    else out[d] = SliceAxis{0, 1, extents[d]};
  }
  return out;
}

}  // namespace rung::ops
