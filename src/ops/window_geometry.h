// The sliding-window geometry shared by conv and the pools (docs/semantics.md, "Convolution
// and pooling"): per spatial axis a kernel extent k, stride s, dilation d and explicit pads
// (before, after). The shape rules, the reference kernels and every backend read the
// attributes through these functions, so all of them agree on the output extents.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ops/attrs.h"
#include "ops/window_axis.h"  // WindowAxis

namespace rung::ops {

// Reads `strides`, `pads` ([before_0, after_0, before_1, after_1, ...]; empty = all 0) and
// `dilations` for `rank` spatial axes; empty lists mean 1 (0 for pads). Fails with a message
// naming the attribute on a wrong length or value.
struct WindowAttrs {
  std::vector<std::uint64_t> strides, dilations, pads;  // pads: 2 per axis
};
std::optional<WindowAttrs> window_attrs(const Attrs& a, std::size_t rank, std::string& err);

// The output extent of one axis: floor((in + pads - span) / stride) + 1, or with ceil_mode
// the ceiling, minus one when the last window would start in the after-padding (so every
// window starts inside the input or the before-padding). Fails when the padded input is
// shorter than the window.
std::optional<std::uint64_t> window_out_extent(const WindowAxis& w, bool ceil_mode, std::string& err);

// Whether every window of the axis holds at least one tap inside the input (pools need it:
// an all-padding window has no maximum and no average). Names the first window that does not.
bool every_window_touches_input(const WindowAxis& w, std::string& err);

// ONNX auto_pad SAME_UPPER / SAME_LOWER resolved to explicit pads for one axis: output
// extent ceil(in / stride), total pad max(0, (out - 1) * stride + span - in), split evenly
// with the odd one after (upper) or before (lower). Returns {before, after}.
std::pair<std::uint64_t, std::uint64_t> same_pads(std::uint64_t in, std::uint64_t k, std::uint64_t stride,
                                                  std::uint64_t dilation, bool upper);

// A window over at most two spatial axes, 1-D held as 2-D with a leading axis of extent 1
// (in = k = out = 1), so every kernel has one loop nest.
struct Window2 {
  std::array<WindowAxis, 2> ax;  // [0] = height (rows), [1] = width
  std::uint64_t in_plane() const { return ax[0].in * ax[1].in; }
  std::uint64_t out_plane() const { return ax[0].out * ax[1].out; }
  std::uint64_t taps() const { return ax[0].k * ax[1].k; }
};

// Builds the window of a kernel from static extents: `in` and `k` are the spatial extents
// (1 or 2 of them); attributes as window_attrs. The attributes were validated by the shape
// rule, so a failure here is an internal bug.
Window2 window2(const std::vector<std::uint64_t>& in, const std::vector<std::uint64_t>& k, const Attrs& a,
                bool ceil_mode);

}  // namespace rung::ops
