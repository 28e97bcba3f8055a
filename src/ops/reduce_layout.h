// Which input elements each output of a reduction combines, and in what order: for output
// o (row-major over the kept axes), element i of its sequence is the i-th element of the
// reduced axes in row-major order (reduced axes in increasing axis order). That sequence is
// what the canonical tree (numerics/reduce_tree.h) is applied to.
#pragma once

#include <cstdint>
#include <vector>

#include "ops/host_tensor.h"

namespace rung::ops {

struct ReduceLayout {
  std::vector<std::uint64_t> out_base;    // per output: offset of its first element
  std::vector<std::uint64_t> red_offset;  // per position in the sequence: offset from the base
  std::uint64_t count() const { return red_offset.size(); }
};

ReduceLayout reduce_layout(const Extents& in, const std::vector<std::size_t>& axes);

}  // namespace rung::ops
