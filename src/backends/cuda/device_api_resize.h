// The launchers of k_resize.cu (kept apart from device_api.h so that the other kernel files
// do not depend on them).
#pragma once

#include "backends/cuda/device_api.h"

namespace rung::cuda {

// resize (k_resize.cu): one pass over an axis seen as (pre, in, post) -> (pre, out, post) with
// the host's tables (index [out * taps] i64, outside [out] u8). launch_resize_pass reads x as
// x_dtype, computes in f64 when y_dtype is F64 (weight [out * taps] f64) and else in f32
// (weight f32), writes y_dtype; launch_resize_nearest copies elements (one tap per coordinate).
struct ResizePass {
  std::uint64_t pre = 0, in = 0, out = 0, post = 0;
  int taps = 1;
  double ext = 0.0;
};
int launch_resize_pass(const void* x, int x_dtype, void* y, int y_dtype, const std::int64_t* index, const void* weight,
                       const std::uint8_t* outside, const ResizePass& p, Stream s);
int launch_resize_nearest(const void* x, void* y, int elem_bytes, const std::int64_t* index, const std::uint8_t* outside,
                          std::uint64_t ext_bits, const ResizePass& p, Stream s);

}  // namespace rung::cuda
