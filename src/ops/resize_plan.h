// The `resize` op's coordinate arithmetic, shared by its shape rule, the reference kernel, every
// backend and its gradient, so all of them sample the same source elements with the same
// weights: per axis a table of taps (source index, weight) for each output coordinate,
// computed in binary64 on the host (docs/semantics.md, "resize"). Kernels only read the tables.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph/type.h"
#include "ops/attrs.h"
#include "ops/host_tensor.h"

namespace rung::ops {

// One axis of a resize: for output coordinate o, taps t < `taps` read source index
// index[o * taps + t] with weight weight[o * taps + t]; a zero weight means the tap is left out.
// outside[o] marks a coordinate tf_crop_and_resize puts outside the input (its value is the
// extrapolation value). `identity`: out == in and coordinate o is its own single tap of weight
// 1, so the axis is a plain copy and kernels skip it.
struct ResizeAxis {
  std::uint64_t in = 0, out = 0;
  std::size_t taps = 1;
  std::vector<std::int64_t> index;
  std::vector<double> weight;
  std::vector<std::uint8_t> outside;
  bool identity = true;
};

// Checks the attributes against x's shape (rank, scales, roi, dtype against the mode); the
// error names the attribute and axis. Shared by the shape rule and the plan.
std::string resize_attrs_error(const Shape& x, DType dtype, const Attrs& a);
// Output shape: sizes[d], or x's dim where sizes[d] == -1 (kept, may be symbolic).
Shape resize_out_shape(const Shape& x, const Attrs& a);
// The tables of every axis for static extents `in` -> `out` (attributes already checked).
std::vector<ResizeAxis> resize_axes(const Extents& in, const Extents& out, const Attrs& a);

// The axes kernels interpolate, in the order the passes run: highest axis first.
std::vector<std::size_t> resize_pass_order(const std::vector<ResizeAxis>& axes);

// Runs fn over [0, n) in chunks of about `grain` (the reference: serially; cpu: on threads).
using RowRunner = std::function<void(std::uint64_t n, std::uint64_t grain, const std::function<void(std::uint64_t, std::uint64_t)>& fn)>;

// The definition (docs/semantics.md, "resize"), shared by the reference and the cpu backend:
// passes over the axes of resize_pass_order in compute type C (float for f32/f16/bf16, double
// for f64): per output element y = -0.0, then y = y + w * x per tap in tap order (separate
// roundings, zero weights left out), `extrapolation_value` at outside coordinates; one RNE
// rounding to the dtype at the end. nearest copies elements (bits) in the dtype instead.
void resize_host(const HostTensor& x, HostTensor& y, const Attrs& a, const RowRunner& run);

}  // namespace rung::ops
