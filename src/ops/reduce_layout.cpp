#include "ops/reduce_layout.h"

#include <algorithm>

namespace rung::ops {

namespace {

// Offsets of all row-major index combinations over `dims` (extents with strides).
std::vector<std::uint64_t> offsets(const std::vector<std::uint64_t>& ext, const std::vector<std::uint64_t>& stride) {
  std::uint64_t n = 1;
  for (auto e : ext) n *= e;
  std::vector<std::uint64_t> out;
  out.reserve(n);
  std::vector<std::uint64_t> idx(ext.size(), 0);
  std::uint64_t off = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    out.push_back(off);
    for (std::size_t d = ext.size(); d-- > 0;) {
      off += stride[d];
      if (++idx[d] < ext[d]) break;
      off -= stride[d] * ext[d];
      idx[d] = 0;
    }
  }
  return out;
}

}  // namespace

ReduceLayout reduce_layout(const Extents& in, const std::vector<std::size_t>& axes) {
  std::vector<std::uint64_t> stride(in.size(), 1);
  for (std::size_t d = in.size(); d-- > 1;) stride[d - 1] = stride[d] * in[d];
  std::vector<std::uint64_t> kept_ext, kept_stride, red_ext, red_stride;
  for (std::size_t d = 0; d < in.size(); ++d) {
    bool reduced = std::find(axes.begin(), axes.end(), d) != axes.end();
    (reduced ? red_ext : kept_ext).push_back(in[d]);
    (reduced ? red_stride : kept_stride).push_back(stride[d]);
  }
  return {offsets(kept_ext, kept_stride), offsets(red_ext, red_stride)};
}

}  // namespace rung::ops
