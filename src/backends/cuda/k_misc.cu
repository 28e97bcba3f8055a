// Normalisation, random numbers, optimizer updates and indexing: each the reference's
// definition (kernels_norm.cpp, family_random.cpp, family_optim.cpp, kernels_shape_index.cpp)
// with the same operation order, every step one f32 rounding.
#include "backends/cuda/k_tree.cuh"
#include "ops/numerics/elementwise.h"
#include "ops/numerics/random_dist.h"

namespace rung::cuda {
namespace {

template <bool kLayer>
__global__ void norm_k(const void* x, int dt, const void* g, int gdt, const void* b, int bdt, void* y, std::uint64_t groups,
                       std::uint64_t n, float eps) {
  __shared__ float part[kChunk + 1];
  float nf = static_cast<float>(n);
  for (std::uint64_t grp = blockIdx.x; grp < groups; grp += gridDim.x) {
    std::uint64_t base = grp * n;
    auto at = [&](std::uint64_t i) { return ld<float>(x, dt, base + i); };
    float mean = 0.0f, r;
    if constexpr (kLayer) {
      mean = block_reduce(at, n, num::Add{}, 0.0f, part) / nf;
      auto sq = [&](std::uint64_t i) { float d = at(i) - mean; return d * d; };
      r = 1.0f / num::sqrt_f32(block_reduce(sq, n, num::Add{}, 0.0f, part) / nf + eps);
    } else {
      auto sq = [&](std::uint64_t i) { float v = at(i); return v * v; };
      r = 1.0f / num::sqrt_f32(block_reduce(sq, n, num::Add{}, 0.0f, part) / nf + eps);
    }
    for (std::uint64_t i = threadIdx.x; i < n; i += blockDim.x) {
      float v = kLayer ? (at(i) - mean) * r : at(i) * r;
      if (g) v = v * ld<float>(g, gdt, i);
      if (kLayer && b) v = v + ld<float>(b, bdt, i);
      st(y, dt, base + i, v);
    }
  }
}

__global__ void random_k(int kind, void* y, int ydt, std::uint64_t n, std::uint64_t seed, std::uint64_t offset,
                         std::uint64_t position, float a, float b) {
  RUNG_GRID_LOOP(i, n) {
    std::uint64_t w = position + i;
    if (kind == 0) {
      static_cast<std::uint32_t*>(y)[i] = num::philox_stream_word(seed, offset, w);
    } else if (kind == 1) {
      float span = b - a;
      st(y, ydt, i, a + span * num::philox_uniform01(seed, offset, w));
    } else {
      st(y, ydt, i, a + b * num::philox_normal(seed, offset, w));
    }
  }
}

__global__ void sgd_k(const float* p, const float* g, const float* vel, float* po, float* vo, std::uint64_t n, float lr, float mom,
                      float wd) {
  RUNG_GRID_LOOP(i, n) {
    float pi = p[i], gi = g[i];
    if (wd != 0.0f) {
      float d = wd * pi;
      gi = gi + d;
    }
    float m = mom * vel[i];
    float v1 = m + gi;
    float step = lr * v1;
    po[i] = canon(pi - step);
    vo[i] = canon(v1);
  }
}

__global__ void adam_k(const float* p, const float* g, const float* m, const float* v, const float* pows_out, float* po, float* mo,
                       float* vo, std::uint64_t n, float lr, float b1, float b2, float eps, float wd, bool decoupled) {
  const float c1 = 1.0f - pows_out[0], c2 = 1.0f - pows_out[1], one_b1 = 1.0f - b1, one_b2 = 1.0f - b2;
  RUNG_GRID_LOOP(i, n) {
    float pi = p[i], gi = g[i];
    if (!decoupled && wd != 0.0f) {
      float d = wd * pi;
      gi = gi + d;
    }
    float ma = b1 * m[i], mb = one_b1 * gi, m1 = ma + mb;
    float g2 = gi * gi;
    float va = b2 * v[i], vb = one_b2 * g2, v1 = va + vb;
    float mhat = m1 / c1, vhat = v1 / c2;
    float denom = num::sqrt_f32(vhat) + eps;
    float u = mhat / denom;
    if (decoupled && wd != 0.0f) {
      float d = wd * pi;
      u = u + d;
    }
    float step = lr * u;
    po[i] = canon(pi - step);
    mo[i] = canon(m1);
    vo[i] = canon(v1);
  }
}

// An index element as a signed 64-bit value (unsigned u64 above 2^63 reads negative: out of range either way).
__device__ inline std::int64_t ld_index(const void* p, int dt, std::uint64_t i) {
  switch (dt) {
    case I64: return static_cast<const std::int64_t*>(p)[i];
    case I32: return static_cast<const std::int32_t*>(p)[i];
    case I16: return static_cast<const std::int16_t*>(p)[i];
    case I8: return static_cast<const std::int8_t*>(p)[i];
    case U64: return static_cast<std::int64_t>(static_cast<const std::uint64_t*>(p)[i]);
    case U32: return static_cast<const std::uint32_t*>(p)[i];
    case U16: return static_cast<const std::uint16_t*>(p)[i];
    default: return static_cast<const std::uint8_t*>(p)[i];
  }
}

__global__ void index_check_k(const void* idx, int dt, std::uint64_t n, std::uint64_t bound, unsigned long long* first) {
  RUNG_GRID_LOOP(i, n) {
    std::int64_t v = ld_index(idx, dt, i);
    if (v < 0 || static_cast<std::uint64_t>(v) >= bound) atomicMin(first, static_cast<unsigned long long>(i));
  }
}

__global__ void init_k(unsigned long long* p) { *p = ~0ull; }

__device__ inline void copy_bytes(void* dst, std::uint64_t di, const void* src, std::uint64_t si, int bytes) {
  switch (bytes) {
    case 8: static_cast<std::uint64_t*>(dst)[di] = static_cast<const std::uint64_t*>(src)[si]; break;
    case 4: static_cast<std::uint32_t*>(dst)[di] = static_cast<const std::uint32_t*>(src)[si]; break;
    case 2: static_cast<std::uint16_t*>(dst)[di] = static_cast<const std::uint16_t*>(src)[si]; break;
    default: static_cast<std::uint8_t*>(dst)[di] = static_cast<const std::uint8_t*>(src)[si]; break;
  }
}

__global__ void gather_k(const void* x, int bytes, const void* idx, int idt, void* y, std::uint64_t outer, std::uint64_t nidx,
                         std::uint64_t axis_n, std::uint64_t inner) {
  std::uint64_t total = outer * nidx * inner;
  RUNG_GRID_LOOP(i, total) {
    std::uint64_t b = i % inner, j = (i / inner) % nidx, a = i / (inner * nidx);
    std::uint64_t k = static_cast<std::uint64_t>(ld_index(idx, idt, j));
    copy_bytes(y, i, x, (a * axis_n + k) * inner + b, bytes);
  }
}

struct XStrides {
  std::int64_t v[kMaxRank];
};
__global__ void gather_elements_k(const void* x, int bytes, XStrides xs, const void* idx, int idt, void* y, Dims d, int axis,
                                  std::uint64_t n) {
  RUNG_GRID_LOOP(i, n) {
    std::uint64_t rest = i, off = 0;
    for (int k = d.rank - 1; k >= 0; --k) {
      std::uint64_t c = rest % d.ext[k];
      rest /= d.ext[k];
      if (k == axis) c = static_cast<std::uint64_t>(ld_index(idx, idt, i));
      off += c * static_cast<std::uint64_t>(xs.v[k]);
    }
    copy_bytes(y, i, x, off, bytes);
  }
}

// cumsum: one thread per line, the reference's sequential order along it.
template <typename T>
__global__ void cumsum_k(const void* x, void* y, int dt, std::uint64_t lines, std::uint64_t n, std::uint64_t inner, bool exclusive,
                         bool reverse) {
  RUNG_GRID_LOOP(l, lines) {
    std::uint64_t o = l / inner, q = l % inner;
    T acc{};
    for (std::uint64_t s = 0; s < n; ++s) {
      std::uint64_t at = (o * n + (reverse ? n - 1 - s : s)) * inner + q;
      T v = ld<T>(x, dt, at);
      if (exclusive) st(y, dt, at, acc);
      acc = s == 0 ? v : num::Add{}(acc, v);
      if (!exclusive) st(y, dt, at, acc);
    }
  }
}

__device__ inline void store_one(void* y, int dt, std::uint64_t i) {
  switch (dt) {
    case F32: static_cast<float*>(y)[i] = 1.0f; break;
    case F64: static_cast<double*>(y)[i] = 1.0; break;
    case F16: static_cast<std::uint16_t*>(y)[i] = 0x3C00; break;
    case BF16: static_cast<std::uint16_t*>(y)[i] = 0x3F80; break;
    case I64: case U64: static_cast<std::uint64_t*>(y)[i] = 1; break;
    case I32: case U32: static_cast<std::uint32_t*>(y)[i] = 1; break;
    case I16: case U16: static_cast<std::uint16_t*>(y)[i] = 1; break;
    default: static_cast<std::uint8_t*>(y)[i] = 1; break;
  }
}

__global__ void one_hot_k(const void* idx, int idt, void* y, int ydt, std::uint64_t n, std::uint64_t depth) {
  RUNG_GRID_LOOP(i, n) store_one(y, ydt, i * depth + static_cast<std::uint64_t>(ld_index(idx, idt, i)));
}

__global__ void iota_k(std::int64_t* y, Dims d, int axis, std::uint64_t n) {
  std::uint64_t inner = 1;
  for (int k = d.rank - 1; k > axis; --k) inner *= d.ext[k];
  RUNG_GRID_LOOP(i, n) y[i] = static_cast<std::int64_t>((i / inner) % d.ext[axis]);
}

}  // namespace

int launch_norm(bool layer, const void* x, int dtype, const void* gamma, int gdt, const void* beta, int bdt, void* y,
                std::uint64_t groups, std::uint64_t n, float eps, Stream stream) {
  if (groups == 0 || n == 0) return 0;
  if (n > kChunk * kChunk) return static_cast<int>(cudaErrorInvalidValue);
  auto s = static_cast<cudaStream_t>(stream);
  unsigned blocks = blocks_for(groups, 1);
  unsigned threads = n <= 1024 ? 128 : 512;
  if (layer) norm_k<true><<<blocks, threads, 0, s>>>(x, dtype, gamma, gdt, beta, bdt, y, groups, n, eps);
  else norm_k<false><<<blocks, threads, 0, s>>>(x, dtype, gamma, gdt, beta, bdt, y, groups, n, eps);
  return launch_status();
}

int launch_random(int kind, void* y, int ydt, std::uint64_t n, std::uint64_t seed, std::uint64_t offset, std::uint64_t position,
                  float a, float b, Stream s) {
  if (n == 0) return 0;
  random_k<<<blocks_for(n, 256), 256, 0, static_cast<cudaStream_t>(s)>>>(kind, y, ydt, n, seed, offset, position, a, b);
  return launch_status();
}

int launch_sgd(const float* p, const float* g, const float* vel, float* po, float* vo, std::uint64_t n, float lr, float mom,
               float wd, Stream s) {
  if (n == 0) return 0;
  sgd_k<<<blocks_for(n, 256), 256, 0, static_cast<cudaStream_t>(s)>>>(p, g, vel, po, vo, n, lr, mom, wd);
  return launch_status();
}

int launch_adam(const float* p, const float* g, const float* m, const float* v, const float* pows_out, float* po, float* mo,
                float* vo, std::uint64_t n, float lr, float b1, float b2, float eps, float wd, bool decoupled, Stream s) {
  if (n == 0) return 0;
  adam_k<<<blocks_for(n, 256), 256, 0, static_cast<cudaStream_t>(s)>>>(p, g, m, v, pows_out, po, mo, vo, n, lr, b1, b2, eps, wd,
                                                                        decoupled);
  return launch_status();
}

int launch_index_check(const void* idx, int idt, std::uint64_t n, std::uint64_t bound, unsigned long long* first, Stream stream) {
  auto s = static_cast<cudaStream_t>(stream);
  init_k<<<1, 1, 0, s>>>(first);
  if (n > 0) index_check_k<<<blocks_for(n, 256), 256, 0, s>>>(idx, idt, n, bound, first);
  return launch_status();
}

int launch_gather(const void* x, int bytes, const void* idx, int idt, void* y, std::uint64_t outer, std::uint64_t nidx,
                  std::uint64_t axis_n, std::uint64_t inner, Stream s) {
  std::uint64_t total = outer * nidx * inner;
  if (total == 0) return 0;
  gather_k<<<blocks_for(total, 256), 256, 0, static_cast<cudaStream_t>(s)>>>(x, bytes, idx, idt, y, outer, nidx, axis_n, inner);
  return launch_status();
}

int launch_gather_elements(const void* x, int bytes, const std::int64_t* x_stride, const void* idx, int idt, void* y,
                           const Dims& d, int axis, Stream s) {
  std::uint64_t n = d.numel();
  if (n == 0) return 0;
  XStrides xs{};
  for (int k = 0; k < d.rank; ++k) xs.v[k] = x_stride[k];
  gather_elements_k<<<blocks_for(n, 256), 256, 0, static_cast<cudaStream_t>(s)>>>(x, bytes, xs, idx, idt, y, d, axis, n);
  return launch_status();
}

int launch_cumsum(const void* x, void* y, int dt, std::uint64_t outer, std::uint64_t n, std::uint64_t inner, bool exclusive,
                  bool reverse, Stream s) {
  std::uint64_t lines = outer * inner;
  if (lines == 0 || n == 0) return 0;
  return with_value_type(dt, [&](auto tag) -> int {
    using T = decltype(tag);
    cumsum_k<T><<<blocks_for(lines, 128), 128, 0, static_cast<cudaStream_t>(s)>>>(x, y, dt, lines, n, inner, exclusive, reverse);
    return launch_status();
  });
}

int launch_one_hot(const void* idx, int idt, void* y, int ydt, std::uint64_t n, std::uint64_t depth, Stream s) {
  if (n == 0 || depth == 0) return 0;
  one_hot_k<<<blocks_for(n, 256), 256, 0, static_cast<cudaStream_t>(s)>>>(idx, idt, y, ydt, n, depth);
  return launch_status();
}

int launch_iota(void* y, const Dims& d, int axis, Stream s) {
  std::uint64_t n = d.numel();
  if (n == 0) return 0;
  iota_k<<<blocks_for(n, 256), 256, 0, static_cast<cudaStream_t>(s)>>>(static_cast<std::int64_t*>(y), d, axis, n);
  return launch_status();
}

}  // namespace rung::cuda
