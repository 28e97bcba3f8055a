// dequantize (kernels_quant.cpp): per element the block's f16 scale times its integer code,
// exact in f32, then one rounding to the result dtype. The block decoding is the shared
// numerics (ops/numerics/quant_blocks.h), the same functions the reference calls.
#include "backends/cuda/k_common.cuh"
#include "ops/numerics/quant_blocks.h"

namespace rung::cuda {
namespace {

__global__ void dequantize_k(const std::uint8_t* q, bool q8, void* y, int ydt, std::uint64_t n) {
  const std::uint64_t bb = q8 ? num::kQ8Bytes : num::kQ4Bytes;
  RUNG_GRID_LOOP(i, n) {
    const std::uint8_t* blk = q + (i / num::kQBlock) * bb;
    int j = static_cast<int>(i % num::kQBlock);
    float d = num::q_scale(blk);
    int code = q8 ? num::q8_0_code(blk, j) : num::q4_0_code(blk, j);
    st(y, ydt, i, d * static_cast<float>(code));
  }
}

}  // namespace

int launch_dequantize(const void* q, bool q8, void* y, int y_dtype, std::uint64_t n, Stream s) {
  if (n == 0) return 0;
  dequantize_k<<<blocks_for(n, 256), 256, 0, static_cast<cudaStream_t>(s)>>>(static_cast<const std::uint8_t*>(q), q8, y, y_dtype,
                                                                               n);
  return launch_status();
}

}  // namespace rung::cuda
