// Data movement as one primitive: y[i] = x[base + sum_d idx_d(i) * stride_d] for every output
// multi-index, element by element as bit copies (strides may be 0 or negative). Rows of the
// innermost dim are spread over threads; unit-stride rows are one memcpy.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "backends/cpu/cpu_kernel.h"
#include "ops/host_tensor.h"
#include "ops/tensor_walk.h"

namespace rung::cpu {

inline void strided_copy(ThreadPool& pool, const ops::HostTensor& x, ops::HostTensor& y, std::int64_t base,
                         const std::vector<std::int64_t>& stride) {
  const ops::Extents& out = y.shape();
  std::uint64_t total = y.numel();
  if (total == 0) return;
  std::size_t w = ops::elem_size(y.dtype());
  std::size_t rank = out.size();
  std::uint64_t len = rank ? out[rank - 1] : 1;
  std::int64_t inner = rank ? stride[rank - 1] : 0;
  std::uint64_t rows = total / len;
  const std::uint8_t* src = x.bytes().data();
  std::uint8_t* dst = y.bytes().data();
  pool.parallel_for(rows, (kElemGrain + len - 1) / len, [&](std::uint64_t r0, std::uint64_t r1) {
    for (std::uint64_t r = r0; r < r1; ++r) {
      std::int64_t off = base;
      std::uint64_t q = r;
      for (std::size_t d = rank ? rank - 1 : 0; d-- > 0;) {
        off += static_cast<std::int64_t>(q % out[d]) * stride[d];
        q /= out[d];
      }
      std::uint8_t* row = dst + r * len * w;
      if (inner == 1) {
        std::memcpy(row, src + off * static_cast<std::int64_t>(w), len * w);
      } else {
        for (std::uint64_t i = 0; i < len; ++i)
          std::memcpy(row + i * w, src + (off + static_cast<std::int64_t>(i) * inner) * static_cast<std::int64_t>(w), w);
      }
    }
  });
}

}  // namespace rung::cpu
