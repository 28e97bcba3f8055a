// One chunk of a broadcast operand: the operand's elements for a run of consecutive flat
// indices of the (larger) element space it broadcasts to, gathered into a dense buffer.
// Used by the fused elementwise executor (fused_region.cpp), whose chunks are flat index
// ranges of the output: an operand of shape [B,T,1] or [D] against [B,T,D] is read, per
// chunk, as the exact elements the unfused op would have read for those output indices.
#pragma once

#include <cstdint>
#include <vector>

#include "ops/host_tensor.h"

namespace rung::cpu {

// The walk of an operand over the element space, prepared once per (operand, space): dims
// merged where the operand's strides allow it (adjacent dims both broadcast, or both
// contiguous), so the inner loop is a memcpy (stride 1) or a fill (stride 0) of long runs.
class BroadcastWalk {
 public:
  // `operand` must broadcast to `space` (trailing-aligned; a 1 broadcasts).
  BroadcastWalk(const ops::Extents& operand, const ops::Extents& space);

  // Writes the operand's elements for flat indices [begin, begin + len) of the space into
  // `dst` (len elements of `width` bytes each), reading them from `src`.
  void gather(const std::uint8_t* src, std::size_t width, std::uint64_t begin, std::uint64_t len, std::uint8_t* dst) const;

  std::size_t merged_rank() const { return extents_.size(); }

 private:
  std::vector<std::uint64_t> extents_, strides_;  // merged dims of the space; the operand's element strides (0: broadcast)
};

// Whether `operand` broadcasts to `space` without widening it.
bool broadcasts_to(const ops::Extents& operand, const ops::Extents& space);

}  // namespace rung::cpu
