// How an operand that broadcasts to a larger element space is read, as few (extent, stride)
// dims as possible: adjacent dims merge where the operand's layout continues across them
// (both broadcast, or contiguous). The CPU's fused executor gathers chunks with it; the CUDA
// fused codegen writes it into a kernel as an offset function.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace rung::ops {

struct BroadcastDim {
  std::uint64_t extent = 1;
  std::uint64_t stride = 0;  // the operand's element stride; 0 where it broadcasts
  bool operator==(const BroadcastDim&) const = default;
};

// The merged dims of the space, outermost first (empty when every extent is 1), or nullopt
// when `operand` does not broadcast to `space` (trailing-aligned; a 1 broadcasts; no widening).
std::optional<std::vector<BroadcastDim>> broadcast_walk(std::span<const std::uint64_t> operand,
                                                        std::span<const std::uint64_t> space);

}  // namespace rung::ops
