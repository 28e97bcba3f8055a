// pad, arange and the CSR kernels (csr_to_dense, csr_matmul/csr_matvec): each the reference's
// definition (kernels_shape_layout.cpp, kernels_shape_index.cpp, kernels_sparse.cpp) with the
// same operation order. The CSR structure was validated on the host before any launch.
#include "backends/cuda/k_common.cuh"
#include "ops/numerics/dot.h"

namespace rung::cuda {
namespace {

__device__ inline void copy_elem(void* dst, std::uint64_t di, const void* src, std::uint64_t si, int bytes) {
  switch (bytes) {
    case 8: static_cast<std::uint64_t*>(dst)[di] = static_cast<const std::uint64_t*>(src)[si]; break;
    case 4: static_cast<std::uint32_t*>(dst)[di] = static_cast<const std::uint32_t*>(src)[si]; break;
    case 2: static_cast<std::uint16_t*>(dst)[di] = static_cast<const std::uint16_t*>(src)[si]; break;
    default: static_cast<std::uint8_t*>(dst)[di] = static_cast<const std::uint8_t*>(src)[si]; break;
  }
}

__device__ inline void store_bits(void* dst, std::uint64_t di, std::uint64_t bits, int bytes) {
  switch (bytes) {
    case 8: static_cast<std::uint64_t*>(dst)[di] = bits; break;
    case 4: static_cast<std::uint32_t*>(dst)[di] = static_cast<std::uint32_t>(bits); break;
    case 2: static_cast<std::uint16_t*>(dst)[di] = static_cast<std::uint16_t>(bits); break;
    default: static_cast<std::uint8_t*>(dst)[di] = static_cast<std::uint8_t>(bits); break;
  }
}

__global__ void pad_k(const void* x, void* y, int bytes, PadSpec p, std::uint64_t n) {
  RUNG_GRID_LOOP(i, n) {
    std::uint64_t rest = i, src = 0, xstride = 1;
    bool fill = false;
    for (int d = p.out.rank - 1; d >= 0; --d) {
      std::int64_t xn = static_cast<std::int64_t>(p.in_ext[d]);
      std::int64_t q = static_cast<std::int64_t>(rest % p.out.ext[d]) - p.before[d];
      rest /= p.out.ext[d];
      if (q < 0 || q >= xn) {
        if (p.mode == 0) { fill = true; break; }
        if (p.mode == 1) q = q < 0 ? 0 : xn - 1;
        else q = q < 0 ? -q : 2 * (xn - 1) - q;  // reflect about the edge element (pads < n)
      }
      src += static_cast<std::uint64_t>(q) * xstride;
      xstride *= p.in_ext[d];
    }
    if (fill) store_bits(y, i, p.fill_bits, bytes);
    else copy_elem(y, i, x, src, bytes);
  }
}

// Floats: start + i * step in binary64 (two roundings; no contraction), one rounding to T.
__global__ void arange_float_k(void* y, int dt, std::uint64_t n, double start, double step) {
  RUNG_GRID_LOOP(i, n) {
    double prod = static_cast<double>(i) * step;
    st_f64(y, dt, i, start + prod);
  }
}

__global__ void arange_int_k(void* y, int bytes, std::uint64_t n, std::int64_t start, std::int64_t step) {
  RUNG_GRID_LOOP(i, n) {
    store_bits(y, i, static_cast<std::uint64_t>(start) + static_cast<std::uint64_t>(step) * i, bytes);
  }
}

__device__ inline std::uint64_t ld_idx(const void* p, bool i64, std::uint64_t i) {
  return i64 ? static_cast<std::uint64_t>(static_cast<const std::int64_t*>(p)[i])
             : static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<const std::int32_t*>(p)[i]));
}

// One thread per row: scatter its stored entries (bit copies) into the zeroed output.
__global__ void csr_to_dense_k(const void* indptr, const void* indices, bool i64, const void* values, int bytes, void* y,
                               std::uint64_t rows, std::uint64_t K) {
  RUNG_GRID_LOOP(r, rows) {
    std::uint64_t e = ld_idx(indptr, i64, r + 1);
    for (std::uint64_t p = ld_idx(indptr, i64, r); p < e; ++p) copy_elem(y, r * K + ld_idx(indices, i64, p), values, p, bytes);
  }
}

// y[r, j] = the fma chain over row r's stored entries in storage order, from +0.
__global__ void csr_matmul_k(const void* indptr, const void* indices, bool i64, const void* values, const void* b, int dt,
                             void* y, std::uint64_t rows, std::uint64_t N) {
  std::uint64_t total = rows * N;
  RUNG_GRID_LOOP(i, total) {
    std::uint64_t r = i / N, j = i % N;
    std::uint64_t p0 = ld_idx(indptr, i64, r), len = ld_idx(indptr, i64, r + 1) - p0;
    if (dt == F64) {
      const double* v = static_cast<const double*>(values);
      const double* B = static_cast<const double*>(b);
      double acc = num::dot_chain_f64(
          len, [&](std::uint64_t t) { return v[p0 + t]; },
          [&](std::uint64_t t) { return B[ld_idx(indices, i64, p0 + t) * N + j]; });
      st_f64(y, dt, i, acc);
    } else {
      float acc = num::dot_chain_f32(
          len, [&](std::uint64_t t) { return ld<float>(values, dt, p0 + t); },
          [&](std::uint64_t t) { return ld<float>(b, dt, ld_idx(indices, i64, p0 + t) * N + j); });
      st(y, dt, i, acc);
    }
  }
}

}  // namespace

int launch_pad(const void* x, void* y, int elem_bytes, const PadSpec& p, Stream s) {
  std::uint64_t n = p.out.numel();
  if (n == 0) return 0;
  pad_k<<<blocks_for(n, 256), 256, 0, static_cast<cudaStream_t>(s)>>>(x, y, elem_bytes, p, n);
  return launch_status();
}

int launch_arange_float(void* y, int dtype, std::uint64_t n, double start, double step, Stream s) {
  if (n == 0) return 0;
  arange_float_k<<<blocks_for(n, 256), 256, 0, static_cast<cudaStream_t>(s)>>>(y, dtype, n, start, step);
  return launch_status();
}

int launch_arange_int(void* y, int elem_bytes, std::uint64_t n, std::int64_t start, std::int64_t step, Stream s) {
  if (n == 0) return 0;
  arange_int_k<<<blocks_for(n, 256), 256, 0, static_cast<cudaStream_t>(s)>>>(y, elem_bytes, n, start, step);
  return launch_status();
}

int launch_csr_to_dense(const void* indptr, const void* indices, bool i64, const void* values, int elem_bytes, void* y,
                        std::uint64_t rows, std::uint64_t K, Stream s) {
  if (rows == 0 || K == 0) return 0;
  csr_to_dense_k<<<blocks_for(rows, 128), 128, 0, static_cast<cudaStream_t>(s)>>>(indptr, indices, i64, values, elem_bytes, y,
                                                                                    rows, K);
  return launch_status();
}

int launch_csr_matmul(const void* indptr, const void* indices, bool i64, const void* values, const void* b, int dtype, void* y,
                      std::uint64_t rows, std::uint64_t N, Stream s) {
  std::uint64_t total = rows * N;
  if (total == 0) return 0;
  csr_matmul_k<<<blocks_for(total, 256), 256, 0, static_cast<cudaStream_t>(s)>>>(indptr, indices, i64, values, b, dtype, y,
                                                                                   rows, N);
  return launch_status();
}

}  // namespace rung::cuda
