// The per-tap index arithmetic of the window ops (conv, conv_transpose, the pools) and
// max_pool's replacement rule, in a header device code can include (nothing but
// ops/numerics/portable.h): the reference, the cpu backend and the cuda kernels share these
// functions, so they cannot disagree on which input element a tap meets.
#pragma once

#include <cstdint>

#include "ops/numerics/portable.h"

namespace rung::ops {

// One spatial axis of a window.
struct WindowAxis {
  std::uint64_t in = 0, k = 1, stride = 1, dilation = 1, pad_before = 0, pad_after = 0, out = 0;
  RUNG_HD std::uint64_t span() const { return dilation * (k - 1) + 1; }  // the dilated kernel extent
  // Input coordinate of tap j of output o, counted from the unpadded origin (may be < 0 or >= in).
  RUNG_HD std::int64_t at(std::uint64_t o, std::uint64_t j) const {
    return static_cast<std::int64_t>(o * stride + j * dilation) - static_cast<std::int64_t>(pad_before);
  }
  // Whether tap j of output o lies inside the input.
  RUNG_HD bool inside(std::uint64_t o, std::uint64_t j) const {
    std::int64_t i = at(o, j);
    return i >= 0 && i < static_cast<std::int64_t>(in);
  }
  // conv_transpose: the input index tap j of output o meets ((o + pad_before - j*dilation) /
  // stride when that divides and lies in [0, in)), or -1 where it meets none.
  RUNG_HD std::int64_t transposed_source(std::uint64_t o, std::uint64_t j) const {
    std::int64_t t = static_cast<std::int64_t>(o + pad_before) - static_cast<std::int64_t>(j * dilation);
    if (t < 0 || t % static_cast<std::int64_t>(stride) != 0) return -1;
    std::int64_t i = t / static_cast<std::int64_t>(stride);
    return i < static_cast<std::int64_t>(in) ? i : -1;
  }
  // avg_pool's divisor along this axis for output o: the taps inside the input, or with
  // `include_pad` those inside the padded input (the ceil_mode overhang never counts).
  RUNG_HD std::uint64_t pool_count(std::uint64_t o, bool include_pad) const {
    std::int64_t lo = include_pad ? -static_cast<std::int64_t>(pad_before) : 0;
    std::int64_t hi = static_cast<std::int64_t>(in + (include_pad ? pad_after : 0));
    std::uint64_t n = 0;
    for (std::uint64_t j = 0; j < k; ++j) {
      std::int64_t i = at(o, j);
      n += i >= lo && i < hi;
    }
    return n;
  }
};

// Whether `v` replaces `best` in max_pool's scan: a NaN (the first one stays), a greater
// value, or +0 over -0 — so the result is maximum()'s and its bits are an input element's.
template <typename T>
RUNG_HD bool max_pool_replaces(T v, T best) {
  if (num::is_nan(best)) return false;
  if (num::is_nan(v)) return true;
  return v > best || (v == 0 && best == 0 && !num::sign_bit(v) && num::sign_bit(best));
}

}  // namespace rung::ops
