#include "ops/broadcast_walk.h"

namespace rung::ops {

std::optional<std::vector<BroadcastDim>> broadcast_walk(std::span<const std::uint64_t> operand,
                                                        std::span<const std::uint64_t> space) {
  if (operand.size() > space.size()) return std::nullopt;
  std::vector<std::uint64_t> stride(space.size(), 0);
  std::uint64_t s = 1;
  for (std::size_t k = 0; k < operand.size(); ++k) {
    std::size_t di = operand.size() - 1 - k, dd = space.size() - 1 - k;
    if (operand[di] != 1 && operand[di] != space[dd]) return std::nullopt;
    stride[dd] = operand[di] == 1 ? 0 : s;
    s *= operand[di];
  }
  std::vector<BroadcastDim> dims;  // innermost first while merging
  for (std::size_t d = space.size(); d-- > 0;) {
    if (space[d] == 1) continue;  // a dim of extent 1 changes no offset
    if (!dims.empty()) {
      BroadcastDim& in = dims.back();
      if ((in.stride == 0 && stride[d] == 0) || (in.stride != 0 && stride[d] == in.stride * in.extent)) {
        in.extent *= space[d];
        continue;
      }
    }
    dims.push_back({space[d], stride[d]});
  }
  return std::vector<BroadcastDim>(dims.rbegin(), dims.rend());
}

}  // namespace rung::ops
