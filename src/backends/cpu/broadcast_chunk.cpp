#include "backends/cpu/broadcast_chunk.h"

#include <algorithm>
#include <cstring>

#include "base/check.h"
#include "ops/broadcast_walk.h"

namespace rung::cpu {

bool broadcasts_to(const ops::Extents& operand, const ops::Extents& space) {
  return ops::broadcast_walk(operand, space).has_value();
}

BroadcastWalk::BroadcastWalk(const ops::Extents& operand, const ops::Extents& space) {
  auto dims = ops::broadcast_walk(operand, space);
  RUNG_CHECK(dims.has_value(), "a fused operand must broadcast to the element space");
  for (const auto& d : *dims) {
    extents_.push_back(d.extent);
    strides_.push_back(d.stride);
  }
}

void BroadcastWalk::gather(const std::uint8_t* src, std::size_t width, std::uint64_t begin, std::uint64_t len,
                           std::uint8_t* dst) const {
  if (len == 0) return;
  if (extents_.empty()) {  // every dim is 1: one element
    for (std::uint64_t i = 0; i < len; ++i) std::memcpy(dst + i * width, src, width);
    return;
  }
  const std::size_t R = extents_.size();
  std::vector<std::uint64_t> idx(R);
  std::uint64_t rest = begin, off = 0;
  for (std::size_t d = R; d-- > 0;) {
    idx[d] = rest % extents_[d];
    rest /= extents_[d];
    off += idx[d] * strides_[d];
  }
  const std::uint64_t inner = extents_[R - 1], inner_stride = strides_[R - 1];
  while (len > 0) {
    std::uint64_t run = std::min(len, inner - idx[R - 1]);
    if (inner_stride == 0) {
      const std::uint8_t* e = src + off * width;
      if (width == 4) {
        std::uint32_t v;
        std::memcpy(&v, e, 4);
        for (std::uint64_t i = 0; i < run; ++i) std::memcpy(dst + i * 4, &v, 4);
      } else {
        for (std::uint64_t i = 0; i < run; ++i) std::memcpy(dst + i * width, e, width);
      }
    } else {  // merged dims keep stride 1 innermost (a dim's stride is 1 when it is the operand's last)
      std::memcpy(dst, src + off * width, run * width);
    }
    dst += run * width;
    len -= run;
    if (len == 0) break;
    // Odometer: the inner dim wrapped; carry outwards.
    off -= idx[R - 1] * inner_stride;
    idx[R - 1] = 0;
    for (std::size_t d = R - 1; d-- > 0;) {
      off += strides_[d];
      if (++idx[d] < extents_[d]) break;
      off -= strides_[d] * extents_[d];
      idx[d] = 0;
    }
  }
}

}  // namespace rung::cpu
