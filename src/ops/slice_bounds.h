// The `slice` op's index arithmetic, shared by the reference kernel, the shape rule and every
// backend, so all of them resolve a slice the same way: Python's slice(start, end, step)
// .indices(n), then len(range(...)). Bounds out of range clamp; an omitted bound is the int64
// extreme on its side (docs/semantics.md, "Shape ops").
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph/type.h"
#include "ops/attrs.h"

namespace rung::ops {

inline constexpr std::int64_t kSliceMax = std::numeric_limits<std::int64_t>::max();
inline constexpr std::int64_t kSliceMin = std::numeric_limits<std::int64_t>::min();

// An omitted start / end for a slice of this step: Python's None. Any bound beyond the
// extent means the same; these are the ones the front end writes.
inline std::int64_t omitted_start(std::int64_t step) { return step < 0 ? kSliceMax : 0; }
inline std::int64_t omitted_end(std::int64_t step) { return step < 0 ? kSliceMin : kSliceMax; }

struct SliceAxis {
  std::int64_t start = 0;  // first source index (meaningful when count > 0)
  std::int64_t step = 1;
  std::uint64_t count = 0;
};

// One axis of extent n (n >= 0); step != 0. Never overflows, for any int64 arguments.
SliceAxis resolve_slice(std::int64_t start, std::int64_t end, std::int64_t step, std::uint64_t n);

// True when start:end:step keeps every element of an axis of any extent, in order or
// reversed (`::1`, `::-1`, `0:`): the slice of a symbolic dim is then typed by the dim.
bool slice_keeps_extent(std::int64_t start, std::int64_t end, std::int64_t step);

// The op's attributes checked against a rank: per axis of the operand its (start, end,
// step), absent for axes not sliced. nullopt + error on mismatched lengths, bad or repeated
// axes, a zero step.
struct SliceBounds {
  std::int64_t start, end, step;
};
std::optional<std::vector<std::optional<SliceBounds>>> slice_bounds(std::size_t rank, const Attrs& attrs, std::string& error);

// Per axis of concrete extents: how it is sliced (axes not listed keep everything:
// start 0, step 1, count = extent). Attributes must already satisfy slice_bounds.
std::vector<SliceAxis> slice_axes(const std::vector<std::uint64_t>& extents, const Attrs& attrs);

}  // namespace rung::ops
