// scatter_add, quantize, linear_q, csr_from_dense and csr_from_coo as the reference defines
// them (kernels_shape_index.cpp, kernels_quant.cpp, kernels_sparse.cpp). No float atomics:
// scatter_add sums each target's updates in the canonical tree in update order; the CSR
// constructions count first (a scan of per-row counts, or a stable radix sort of the COO
// entries by (row, col)), then fill. Integer atomics only pick the first bad position.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include "backends/cuda/device_api_nn.h"
#include "backends/cuda/k_tree.cuh"
#include "ops/numerics/dot.h"
#include "ops/numerics/elementwise.h"
#include "ops/numerics/quant_blocks.h"

namespace rung::cuda {
namespace {

__global__ void init_first_k(unsigned long long* p) { *p = ~0ull; }

// ---- scatter_add

template <typename T> struct ScatterOps {
  // Floats: the sum in T (f16/bf16 compute in f32); integers wrap, so any order gives the same.
  using Acc = std::conditional_t<std::is_floating_point_v<T>, T, std::uint64_t>;
  __device__ static Acc load(const void* p, int dt, std::uint64_t i) {
    if constexpr (std::is_floating_point_v<T>) return ld<T>(p, dt, i);
    else return static_cast<std::uint64_t>(ld<T>(p, dt, i));
  }
  __device__ static void store(void* y, int dt, std::uint64_t i, Acc v) {
    if constexpr (std::is_floating_point_v<T>) st<T>(y, dt, i, v);
    else st<T>(y, dt, i, static_cast<T>(v));
  }
};

template <typename T, bool kBlock>
__global__ void scatter_add_k(const void* x, const void* upd, int dt, const std::uint64_t* jstart, const std::uint64_t* jlist,
                              void* y, std::uint64_t outer, std::uint64_t n, std::uint64_t J, std::uint64_t inner) {
  using O = ScatterOps<T>;
  using Acc = typename O::Acc;
  __shared__ Acc part[kBlock ? kChunk + 1 : 1];
  std::uint64_t per_block = kBlock ? 1 : blockDim.x / 32;
  std::uint64_t first = blockIdx.x * per_block + (kBlock ? 0 : threadIdx.x / 32);
  std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * per_block;
  std::uint64_t total = outer * n * inner;
  bool leader = kBlock ? threadIdx.x == 0 : (threadIdx.x & 31u) == 0;
  for (std::uint64_t p = first; p < total; p += stride) {
    std::uint64_t k = p % inner, t = (p / inner) % n, o = p / inner / n;
    std::uint64_t b = jstart[t], m = jstart[t + 1] - b;
    Acc base = O::load(x, dt, p);
    if (m == 0) {  // untouched: x's value (a NaN stored canonically, as the reference's outputs)
      if (leader) O::store(y, dt, p, base);
      continue;
    }
    auto load = [&](std::uint64_t i) { return O::load(upd, dt, (o * J + jlist[b + i]) * inner + k); };
    auto add = [](Acc a, Acc c) { return a + c; };
    Acc s;
    if constexpr (kBlock) s = block_reduce(load, m, add, Acc(0), part);
    else s = warp_reduce(load, m, add, Acc(0));
    if (leader) O::store(y, dt, p, base + s);
  }
}

// ---- quantize / linear_q

__global__ void quantize_k(const void* x, int dt, std::uint8_t* q, bool q8, std::uint64_t blocks, unsigned long long* first) {
  RUNG_GRID_LOOP(b, blocks) {
    float v[num::kQBlock];
    for (int i = 0; i < num::kQBlock; ++i) v[i] = ld<float>(x, dt, b * num::kQBlock + static_cast<std::uint64_t>(i));
    std::uint8_t* blk = q + b * (q8 ? num::kQ8Bytes : num::kQ4Bytes);
    num::QStatus st = q8 ? num::q8_0_encode(v, blk) : num::q4_0_encode(v, blk);
    if (st != num::QStatus::ok) atomicMin(first, static_cast<unsigned long long>(b * 4 + static_cast<unsigned>(st)));
  }
}

__device__ inline int q_code(const std::uint8_t* blk, bool q8, int i) { return q8 ? num::q8_0_code(blk, i) : num::q4_0_code(blk, i); }

// x's rows quantized per block of 32 (the activation format: f32 scale, NaN when not finite).
__global__ void act_quantize_k(const void* x, int dt, std::uint64_t blocks, std::int8_t* qx, float* dx) {
  RUNG_GRID_LOOP(b, blocks) {
    float v[num::kQBlock];
    for (int i = 0; i < num::kQBlock; ++i) v[i] = ld<float>(x, dt, b * num::kQBlock + static_cast<std::uint64_t>(i));
    dx[b] = num::q8_act_encode(v, qx + b * num::kQBlock);
  }
}

__global__ void linear_q_k(const void* x, int dt, const std::uint8_t* w, bool q8, const void* bias, int bdt, void* y,
                           std::uint64_t rows, std::uint64_t N, std::uint64_t K, bool int8, const std::int8_t* qx,
                           const float* dx) {
  std::uint64_t nb = K / num::kQBlock, bb = q8 ? num::kQ8Bytes : num::kQ4Bytes;
  RUNG_GRID_LOOP(t, rows * N) {
    std::uint64_t r = t / N, n = t % N;
    const std::uint8_t* wr = w + n * nb * bb;
    float acc = 0.0f;
    if (int8) {
      for (std::uint64_t b = 0; b < nb; ++b) {
        float d = dx[r * nb + b];
        if (num::is_nan(d)) {  // a non-finite activation: the row's outputs are NaN
          acc = num::nan_f32();
          break;
        }
        const std::uint8_t* blk = wr + b * bb;
        std::int32_t isum = 0;
        for (int i = 0; i < num::kQBlock; ++i) isum += qx[(r * nb + b) * num::kQBlock + static_cast<std::uint64_t>(i)] * q_code(blk, q8, i);
        acc = num::fma_f32(d * num::q_scale(blk), static_cast<float>(isum), acc);
      }
    } else {
      acc = num::dot_chain_f32(K, [&](std::uint64_t k) { return ld<float>(x, dt, r * K + k); },
                               [&](std::uint64_t k) {
                                 const std::uint8_t* blk = wr + (k / num::kQBlock) * bb;
                                 return num::q_scale(blk) * static_cast<float>(q_code(blk, q8, static_cast<int>(k % num::kQBlock)));
                               });
    }
    if (bias) acc = acc + ld<float>(bias, bdt, n);
    st(y, dt, t, acc);
  }
}

// ---- CSR construction

__device__ inline std::int64_t ld_i(const void* p, bool i64, std::uint64_t i) {
  return i64 ? static_cast<const std::int64_t*>(p)[i] : static_cast<const std::int32_t*>(p)[i];
}
__device__ inline void st_i(void* p, bool i64, std::uint64_t i, std::uint64_t v) {
  if (i64) static_cast<std::int64_t*>(p)[i] = static_cast<std::int64_t>(v);
  else static_cast<std::int32_t*>(p)[i] = static_cast<std::int32_t>(v);
}
__device__ inline void copy_elem(void* dst, std::uint64_t di, const void* src, std::uint64_t si, int bytes) {
  switch (bytes) {
    case 8: static_cast<std::uint64_t*>(dst)[di] = static_cast<const std::uint64_t*>(src)[si]; break;
    case 4: static_cast<std::uint32_t*>(dst)[di] = static_cast<const std::uint32_t*>(src)[si]; break;
    default: static_cast<std::uint16_t*>(dst)[di] = static_cast<const std::uint16_t*>(src)[si]; break;
  }
}

// One warp per row: counts[r] = entries != 0 (NaN counts, ±0 does not).
__global__ void dense_count_k(const void* x, int dt, std::uint64_t M, std::uint64_t K, std::uint64_t* counts) {
  std::uint64_t warps = static_cast<std::uint64_t>(gridDim.x) * (blockDim.x / 32);
  unsigned lane = threadIdx.x & 31u;
  for (std::uint64_t r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; r < M; r += warps) {
    std::uint64_t c = 0;
    for (std::uint64_t k = lane; k < K; k += 32) c += ld_f64(x, dt, r * K + k) != 0.0;
    for (unsigned s = 16; s >= 1; s >>= 1) c += __shfl_down_sync(0xFFFFFFFFu, c, s);
    if (lane == 0) counts[r] = c;
  }
}

// One warp per row: the row's entries in column order at offsets[r] .. (ballot compaction).
__global__ void dense_fill_k(const void* x, int bytes, int dt, std::uint64_t M, std::uint64_t K, const std::uint64_t* offsets,
                             bool i64, void* indptr, void* indices, void* values) {
  std::uint64_t warps = static_cast<std::uint64_t>(gridDim.x) * (blockDim.x / 32);
  unsigned lane = threadIdx.x & 31u;
  for (std::uint64_t r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; r <= M; r += warps) {
    if (lane == 0) st_i(indptr, i64, r, offsets[r]);
    if (r == M) continue;
    std::uint64_t pos = offsets[r];
    for (std::uint64_t k0 = 0; k0 < K; k0 += 32) {
      std::uint64_t k = k0 + lane;
      bool nz = k < K && ld_f64(x, dt, r * K + k) != 0.0;
      unsigned mask = __ballot_sync(0xFFFFFFFFu, nz);
      if (nz) {
        std::uint64_t at = pos + static_cast<unsigned>(__popc(mask & ((1u << lane) - 1u)));
        st_i(indices, i64, at, k);
        copy_elem(values, at, x, r * K + k, bytes);
      }
      pos += static_cast<unsigned>(__popc(mask));
    }
  }
}

__global__ void coo_check_k(const void* rows, const void* cols, bool i64, std::uint64_t n, std::uint64_t M, std::uint64_t K,
                            unsigned long long* first) {
  RUNG_GRID_LOOP(e, n) {
    std::int64_t r = ld_i(rows, i64, e), c = ld_i(cols, i64, e);
    if (r < 0 || static_cast<std::uint64_t>(r) >= M || c < 0 || static_cast<std::uint64_t>(c) >= K)
      atomicMin(first, static_cast<unsigned long long>(e));
  }
}

__global__ void coo_keys_k(const void* idx, bool i64, const std::uint64_t* through, std::uint64_t n, std::uint64_t* keys) {
  RUNG_GRID_LOOP(i, n) keys[i] = static_cast<std::uint64_t>(ld_i(idx, i64, through ? through[i] : i));
}

__global__ void iota_u64_k(std::uint64_t* p, std::uint64_t n) {
  RUNG_GRID_LOOP(i, n) p[i] = i;
}

__global__ void coo_flags_k(const void* rows, const void* cols, bool i64, const std::uint64_t* order, std::uint64_t n,
                            std::uint8_t* flags) {
  RUNG_GRID_LOOP(i, n) {
    std::uint64_t e = order[i];
    bool head = i == 0;
    if (!head) {
      std::uint64_t p = order[i - 1];
      head = ld_i(rows, i64, e) != ld_i(rows, i64, p) || ld_i(cols, i64, e) != ld_i(cols, i64, p);
    }
    flags[i] = head ? 1 : 0;
  }
}

__global__ void set_u64_k(std::uint64_t* p, std::uint64_t v) { *p = v; }

// One block (32 threads) per group: its column, its value (one entry: a bit copy; several:
// the canonical sum in input order, f16/bf16 in f32).
template <typename T>
__global__ void coo_fill_k(const void* rows, const void* cols, bool i64, const void* vals, int dt, const std::uint64_t* order,
                           const std::uint64_t* starts, std::uint64_t nnz, void* indices, void* values) {
  __shared__ T part[kChunk + 1];
  for (std::uint64_t g = blockIdx.x; g < nnz; g += gridDim.x) {
    std::uint64_t b = starts[g], m = starts[g + 1] - b, first = order[b];
    if (m == 1) {
      if (threadIdx.x == 0) {
        st_i(indices, i64, g, static_cast<std::uint64_t>(ld_i(cols, i64, first)));
        copy_elem(values, g, vals, first, dtype_bytes(dt));
      }
      continue;
    }
    T s = block_reduce([&](std::uint64_t i) { return ld<T>(vals, dt, order[b + i]); }, m, num::Add{}, T(0), part);
    if (threadIdx.x == 0) {
      st_i(indices, i64, g, static_cast<std::uint64_t>(ld_i(cols, i64, first)));
      st<T>(values, dt, g, s);
    }
  }
}

// indptr[r] = the first group whose row is >= r (groups are sorted by row).
__global__ void coo_indptr_k(const void* rows, bool i64, const std::uint64_t* order, const std::uint64_t* starts,
                             std::uint64_t nnz, std::uint64_t M, void* indptr) {
  RUNG_GRID_LOOP(g, nnz + 1) {
    std::uint64_t lo = g == 0 ? 0 : static_cast<std::uint64_t>(ld_i(rows, i64, order[starts[g - 1]])) + 1;
    std::uint64_t hi = g == nnz ? M : static_cast<std::uint64_t>(ld_i(rows, i64, order[starts[g]]));
    for (std::uint64_t r = lo; r <= hi; ++r) st_i(indptr, i64, r, g);
  }
}

int bits_for(std::uint64_t bound) {  // key bits for values in [0, bound)
  int b = 1;
  while (b < 64 && (bound - 1) >> b) ++b;
  return b;
}

// cub's temporary storage from the stream-ordered pool.
struct Scratch {
  void* p = nullptr;
  cudaStream_t s;
  explicit Scratch(cudaStream_t st) : s(st) {}
  int get(std::size_t bytes) {
    if (p) cudaFreeAsync(p, s);
    p = nullptr;
    return static_cast<int>(cudaMallocAsync(&p, bytes < 1 ? 1 : bytes, s));
  }
  ~Scratch() {
    if (p) cudaFreeAsync(p, s);
  }
};

}  // namespace

int launch_scatter_add(const void* x, const void* upd, int dtype, const std::uint64_t* jstart, const std::uint64_t* jlist, void* y,
                       std::uint64_t outer, std::uint64_t n, std::uint64_t J, std::uint64_t inner, std::uint64_t max_m,
                       Stream stream) {
  auto s = static_cast<cudaStream_t>(stream);
  std::uint64_t total = outer * n * inner;
  if (total == 0) return 0;
  if (max_m > kChunk * kChunk) return static_cast<int>(cudaErrorInvalidValue);
  return with_value_type(dtype, [&](auto tag) -> int {
    using T = decltype(tag);
    if (max_m <= kChunk) scatter_add_k<T, false><<<blocks_for(total, 8), 256, 0, s>>>(x, upd, dtype, jstart, jlist, y, outer, n, J, inner);
    else scatter_add_k<T, true><<<blocks_for(total, 1), 256, 0, s>>>(x, upd, dtype, jstart, jlist, y, outer, n, J, inner);
    return launch_status();
  });
}

int launch_quantize(const void* x, int dtype, void* q, bool q8, std::uint64_t n, unsigned long long* first_bad, Stream stream) {
  auto s = static_cast<cudaStream_t>(stream);
  init_first_k<<<1, 1, 0, s>>>(first_bad);
  std::uint64_t blocks = n / num::kQBlock;
  if (blocks > 0) quantize_k<<<blocks_for(blocks, 128), 128, 0, s>>>(x, dtype, static_cast<std::uint8_t*>(q), q8, blocks, first_bad);
  return launch_status();
}

int launch_linear_q(const void* x, int dtype, const void* w, bool q8, const void* bias, int bias_dtype, void* y, std::uint64_t rows,
                    std::uint64_t N, std::uint64_t K, bool int8, std::int8_t* qx, float* dx, Stream stream) {
  auto s = static_cast<cudaStream_t>(stream);
  if (rows * N == 0) return 0;
  if (int8 && rows * K > 0) act_quantize_k<<<blocks_for(rows * K / num::kQBlock, 128), 128, 0, s>>>(x, dtype, rows * K / num::kQBlock, qx, dx);
  linear_q_k<<<blocks_for(rows * N, 128), 128, 0, s>>>(x, dtype, static_cast<const std::uint8_t*>(w), q8, bias, bias_dtype, y, rows, N,
                                                       K, int8, qx, dx);
  return launch_status();
}

int launch_dense_row_offsets(const void* x, int dtype, std::uint64_t M, std::uint64_t K, std::uint64_t* offsets, Stream stream) {
  auto s = static_cast<cudaStream_t>(stream);
  set_u64_k<<<1, 1, 0, s>>>(offsets + M, 0);  // the scan's last input: offsets[M] becomes nnz
  if (M > 0) dense_count_k<<<blocks_for(M, 8), 256, 0, s>>>(x, dtype, M, K, offsets);
  if (int e = launch_status()) return e;
  Scratch tmp(s);
  std::size_t bytes = 0;
  if (int e = static_cast<int>(cub::DeviceScan::ExclusiveSum(nullptr, bytes, offsets, offsets, M + 1, s))) return e;
  if (int e = tmp.get(bytes)) return e;
  return static_cast<int>(cub::DeviceScan::ExclusiveSum(tmp.p, bytes, offsets, offsets, M + 1, s));
}

int launch_dense_to_csr(const void* x, int elem_bytes, int dtype, std::uint64_t M, std::uint64_t K, const std::uint64_t* offsets,
                        bool i64, void* indptr, void* indices, void* values, Stream stream) {
  dense_fill_k<<<blocks_for(M + 1, 8), 256, 0, static_cast<cudaStream_t>(stream)>>>(x, elem_bytes, dtype, M, K, offsets, i64, indptr,
                                                                                      indices, values);
  return launch_status();
}

int launch_coo_check(const void* rows, const void* cols, bool i64, std::uint64_t n, std::uint64_t M, std::uint64_t K,
                     unsigned long long* first_bad, Stream stream) {
  auto s = static_cast<cudaStream_t>(stream);
  init_first_k<<<1, 1, 0, s>>>(first_bad);
  if (n > 0) coo_check_k<<<blocks_for(n, 256), 256, 0, s>>>(rows, cols, i64, n, M, K, first_bad);
  return launch_status();
}

int launch_coo_group(const void* rows, const void* cols, bool i64, std::uint64_t n, std::uint64_t M, std::uint64_t K,
                     std::uint64_t* order, std::uint64_t* starts, std::uint64_t* nnz, Stream stream) {
  auto s = static_cast<cudaStream_t>(stream);
  set_u64_k<<<1, 1, 0, s>>>(nnz, 0);
  if (n == 0) return launch_status();
  // Two stable LSD passes (by column, then by row) give the stable order by (row, col).
  std::uint64_t *keys = nullptr, *keys2 = nullptr, *idx = nullptr;
  std::uint8_t* flags = nullptr;
  auto free_all = [&] {
    for (void* p : {static_cast<void*>(keys), static_cast<void*>(keys2), static_cast<void*>(idx), static_cast<void*>(flags)})
      if (p) cudaFreeAsync(p, s);
  };
  int e = 0;
  Scratch tmp(s);
  std::size_t bytes = 0;
  unsigned g = blocks_for(n, 256);
  auto step = [&](int err) { if (!e) e = err; return e == 0; };
  auto sort_pass = [&](const void* src, const std::uint64_t* through, std::uint64_t* in_vals, std::uint64_t* out_vals, int bits) {
    coo_keys_k<<<g, 256, 0, s>>>(src, i64, through, n, keys);
    return step(launch_status()) &&
           step(static_cast<int>(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, keys2, in_vals, out_vals, n, 0, bits, s))) &&
           step(tmp.get(bytes)) &&
           step(static_cast<int>(cub::DeviceRadixSort::SortPairs(tmp.p, bytes, keys, keys2, in_vals, out_vals, n, 0, bits, s)));
  };
  bool ok = step(static_cast<int>(cudaMallocAsync(reinterpret_cast<void**>(&keys), n * 8, s))) &&
            step(static_cast<int>(cudaMallocAsync(reinterpret_cast<void**>(&keys2), n * 8, s))) &&
            step(static_cast<int>(cudaMallocAsync(reinterpret_cast<void**>(&idx), n * 8, s))) &&
            step(static_cast<int>(cudaMallocAsync(reinterpret_cast<void**>(&flags), n, s)));
  if (ok) {
    iota_u64_k<<<g, 256, 0, s>>>(order, n);
    ok = step(launch_status()) && sort_pass(cols, order, order, idx, bits_for(K)) &&  // idx = order by column
         sort_pass(rows, idx, idx, order, bits_for(M));                              // order = idx stably by row
  }
  if (ok) {
    coo_flags_k<<<g, 256, 0, s>>>(rows, cols, i64, order, n, flags);
    std::uint64_t* pos = idx;  // free again: the positions 0..n-1 to select from
    iota_u64_k<<<g, 256, 0, s>>>(pos, n);
    ok = step(launch_status()) &&
         step(static_cast<int>(cub::DeviceSelect::Flagged(nullptr, bytes, pos, flags, starts, nnz, n, s))) && step(tmp.get(bytes)) &&
         step(static_cast<int>(cub::DeviceSelect::Flagged(tmp.p, bytes, pos, flags, starts, nnz, n, s)));
  }
  free_all();
  return e;
}

int launch_coo_fill(const void* rows, const void* cols, bool i64, const void* vals, int dtype, std::uint64_t n, std::uint64_t M,
                    const std::uint64_t* order, std::uint64_t* starts, std::uint64_t nnz, void* indptr, void* indices, void* values,
                    Stream stream) {
  auto s = static_cast<cudaStream_t>(stream);
  set_u64_k<<<1, 1, 0, s>>>(starts + nnz, n);
  if (nnz > 0) {
    if (dtype == F64) coo_fill_k<double><<<blocks_for(nnz, 1), 32, 0, s>>>(rows, cols, i64, vals, dtype, order, starts, nnz, indices, values);
    else coo_fill_k<float><<<blocks_for(nnz, 1), 32, 0, s>>>(rows, cols, i64, vals, dtype, order, starts, nnz, indices, values);
  }
  coo_indptr_k<<<blocks_for(nnz + 1, 256), 256, 0, s>>>(rows, i64, order, starts, nnz, M, indptr);
  return launch_status();
}

}  // namespace rung::cuda
