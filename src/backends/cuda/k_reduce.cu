// Reductions over any axes and softmax, in the canonical tree order. Every level of the
// tree is one launch: warp w reduces chunk (w mod chunks) of output (w / chunks), reading
// the previous level (the input itself at level 0, through the axis strides); the last
// level's single value per output is finished (mean's division, variance's divisor,
// logsumexp's m + log s) and stored in the output dtype.
#include <limits>
#include <type_traits>

#include "backends/cuda/k_tree.cuh"
#include "ops/numerics/elementwise.h"

namespace rung::cuda {
namespace {

struct Level0 {
  const void* x;
  int dtype;
  ReduceSpec spec;
  bool red_dense;  // the reduced axes are the trailing, contiguous ones: offset = i
};

__device__ inline std::int64_t in_offset(const Level0& L, std::uint64_t o, std::uint64_t i) {
  std::int64_t base = offset_of(o, L.spec.kept, L.spec.kept_stride);
  return base + (L.red_dense ? static_cast<std::int64_t>(i) : offset_of(i, L.spec.red, L.spec.red_stride));
}

enum class Pre : int { none, sq_dev, exp_dev };  // v, (v - aux)^2, exp(v - aux)

template <typename T, Pre P> __device__ inline T pre(T v, T aux) {
  if constexpr (P == Pre::none) return v;
  else if constexpr (P == Pre::sq_dev) { T d = v - aux; return d * d; }
  else { if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) return num::Exp{}(v - aux); else return v; }
}

template <typename T, typename Op, Pre P>
__global__ void level0_k(Level0 L, std::uint64_t outs, std::uint64_t n, std::uint64_t chunks, T* dst, T identity,
                         const T* aux) {
  Op op{};
  std::uint64_t warps = outs * chunks;
  for (std::uint64_t w = (blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x) >> 5; w < warps;
       w += (static_cast<std::uint64_t>(gridDim.x) * blockDim.x) >> 5) {
    std::uint64_t o = w / chunks, c = w % chunks;
    T a = aux ? aux[o] : identity;
    auto load = [&](std::uint64_t i) { return pre<T, P>(ld<T>(L.x, L.dtype, static_cast<std::uint64_t>(in_offset(L, o, i))), a); };
    std::uint64_t b = c * kChunk, e = b + kChunk < n ? b + kChunk : n;
    T r = warp_chunk(load, b, e, op, identity);
    if ((threadIdx.x & 31u) == 0) dst[w] = r;
  }
}

template <typename T, typename Op>
__global__ void level_k(const T* src, std::uint64_t outs, std::uint64_t n, std::uint64_t chunks, T* dst, T identity) {
  Op op{};
  std::uint64_t warps = outs * chunks;
  for (std::uint64_t w = (blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x) >> 5; w < warps;
       w += (static_cast<std::uint64_t>(gridDim.x) * blockDim.x) >> 5) {
    std::uint64_t o = w / chunks, c = w % chunks;
    const T* row = src + o * n;
    std::uint64_t b = c * kChunk, e = b + kChunk < n ? b + kChunk : n;
    T r = warp_chunk([&](std::uint64_t i) { return row[i]; }, b, e, op, identity);
    if ((threadIdx.x & 31u) == 0) dst[w] = r;
  }
}

enum class Fin : int { store, mean, variance };

template <typename T, Fin F>
__global__ void finish_k(const T* v, void* y, int ydt, std::uint64_t outs, std::uint64_t n, std::int64_t correction) {
  RUNG_GRID_LOOP(o, outs) {
    T r = v[o];
    if constexpr (F == Fin::mean) r = r / static_cast<T>(n);
    if constexpr (F == Fin::variance) {
      std::int64_t div = static_cast<std::int64_t>(n) - correction;
      r = r / static_cast<T>(div > 0 ? div : 0);
    }
    st(y, ydt, o, r);
  }
}

// logsumexp's first pass result m: where m is NaN or infinite the answer is m itself.
template <typename T> __global__ void lse_special_k(const T* m, void* y, int ydt, std::uint64_t outs) {
  RUNG_GRID_LOOP(o, outs) {
    T v = m[o];
    if (num::is_nan(v) || num::is_inf(v)) st(y, ydt, o, v);
  }
}
// Stores the finished lse only where m was finite.
template <typename T> __global__ void lse_finish_k(const T* s, const T* m, void* y, int ydt, std::uint64_t outs) {
  RUNG_GRID_LOOP(o, outs) {
    T mv = m[o];
    if (!(num::is_nan(mv) || num::is_inf(mv))) st(y, ydt, o, mv + num::Log{}(s[o]));
  }
}

unsigned warp_blocks(std::uint64_t warps) { return blocks_for(warps * 32, 256); }

// The full tree for one pass; leaves the per-output results in `res` (outs values).
template <typename T, typename Op, Pre P>
int tree_pass(const Level0& L, std::uint64_t outs, std::uint64_t n, T identity, const T* aux, T* res, cudaStream_t s) {
  std::uint64_t chunks = n == 0 ? 1 : (n + kChunk - 1) / kChunk;
  T* cur = res;
  T* buf[2] = {nullptr, nullptr};
  if (chunks > 1) {
    if (cudaMallocAsync(reinterpret_cast<void**>(&buf[0]), outs * chunks * sizeof(T), s) != cudaSuccess)
      return static_cast<int>(cudaGetLastError());
    cur = buf[0];
  }
  level0_k<T, Op, P><<<warp_blocks(outs * chunks), 256, 0, s>>>(L, outs, n, chunks, cur, identity, aux);
  if (int e = launch_status()) return e;
  std::uint64_t level_n = chunks;
  int which = 0;
  while (level_n > 1) {
    std::uint64_t next = (level_n + kChunk - 1) / kChunk;
    T* dst = res;
    if (next > 1) {
      if (!buf[1 - which] &&
          cudaMallocAsync(reinterpret_cast<void**>(&buf[1 - which]), outs * next * sizeof(T), s) != cudaSuccess)
        return static_cast<int>(cudaGetLastError());
      dst = buf[1 - which];
    }
    level_k<T, Op><<<warp_blocks(outs * next), 256, 0, s>>>(cur, outs, level_n, next, dst, identity);
    if (int e = launch_status()) return e;
    cur = dst;
    which = 1 - which;
    level_n = next;
  }
  for (T* b : buf)
    if (b) cudaFreeAsync(b, s);
  return launch_status();
}

template <typename T> constexpr bool kReal = std::is_same_v<T, float> || std::is_same_v<T, double>;

template <typename T> T lowest_of() {
  if constexpr (kReal<T>) return -std::numeric_limits<T>::infinity();
  else return std::numeric_limits<T>::lowest();
}
template <typename T> T highest_of() {
  if constexpr (kReal<T>) return std::numeric_limits<T>::infinity();
  else return std::numeric_limits<T>::max();
}

template <typename T>
int reduce_typed(Red op, const Level0& L, void* y, int ydt, std::uint64_t outs, std::uint64_t n, std::int64_t corr,
                 cudaStream_t s) {
  T* res = nullptr;
  T* aux = nullptr;
  if (cudaMallocAsync(reinterpret_cast<void**>(&res), outs * sizeof(T), s) != cudaSuccess ||
      cudaMallocAsync(reinterpret_cast<void**>(&aux), outs * sizeof(T), s) != cudaSuccess)
    return static_cast<int>(cudaGetLastError());
  int e = 0;
  unsigned fb = blocks_for(outs, 256);
  switch (op) {
    case Red::sum:
      e = tree_pass<T, num::Add, Pre::none>(L, outs, n, T(0), nullptr, res, s);
      if (!e) finish_k<T, Fin::store><<<fb, 256, 0, s>>>(res, y, ydt, outs, n, 0);
      break;
    case Red::prod:
      e = tree_pass<T, num::Mul, Pre::none>(L, outs, n, T(1), nullptr, res, s);
      if (!e) finish_k<T, Fin::store><<<fb, 256, 0, s>>>(res, y, ydt, outs, n, 0);
      break;
    case Red::max:
      e = tree_pass<T, num::Maximum, Pre::none>(L, outs, n, lowest_of<T>(), nullptr, res, s);
      if (!e) finish_k<T, Fin::store><<<fb, 256, 0, s>>>(res, y, ydt, outs, n, 0);
      break;
    case Red::min:
      e = tree_pass<T, num::Minimum, Pre::none>(L, outs, n, highest_of<T>(), nullptr, res, s);
      if (!e) finish_k<T, Fin::store><<<fb, 256, 0, s>>>(res, y, ydt, outs, n, 0);
      break;
    case Red::mean:
      if constexpr (kReal<T>) {
        e = tree_pass<T, num::Add, Pre::none>(L, outs, n, T(0), nullptr, res, s);
        if (!e) finish_k<T, Fin::mean><<<fb, 256, 0, s>>>(res, y, ydt, outs, n, 0);
      } else {
        e = static_cast<int>(cudaErrorInvalidValue);
      }
      break;
    case Red::variance:
      if constexpr (kReal<T>) {
        e = tree_pass<T, num::Add, Pre::none>(L, outs, n, T(0), nullptr, res, s);
        if (!e) {  // aux = the mean per output (sum / n), then the squared deviations' tree
          finish_k<T, Fin::mean><<<fb, 256, 0, s>>>(res, aux, std::is_same_v<T, float> ? F32 : F64, outs, n, 0);
          e = tree_pass<T, num::Add, Pre::sq_dev>(L, outs, n, T(0), aux, res, s);
        }
        if (!e) finish_k<T, Fin::variance><<<fb, 256, 0, s>>>(res, y, ydt, outs, n, corr);
      } else {
        e = static_cast<int>(cudaErrorInvalidValue);
      }
      break;
    case Red::logsumexp:
      if constexpr (kReal<T>) {  // f32, and f64 with rung's exp_f64 / log_f64
        e = tree_pass<T, num::Maximum, Pre::none>(L, outs, n, lowest_of<T>(), nullptr, aux, s);
        if (!e) {
          lse_special_k<T><<<fb, 256, 0, s>>>(aux, y, ydt, outs);
          e = tree_pass<T, num::Add, Pre::exp_dev>(L, outs, n, T(0), aux, res, s);
        }
        if (!e) lse_finish_k<T><<<fb, 256, 0, s>>>(res, aux, y, ydt, outs);
      } else {
        e = static_cast<int>(cudaErrorInvalidValue);
      }
      break;
    default: e = static_cast<int>(cudaErrorInvalidValue);
  }
  cudaFreeAsync(res, s);
  cudaFreeAsync(aux, s);
  return e ? e : launch_status();
}

// argmax/argmin: one warp per output; (value, index) pairs combine by "NaN first, then the
// more extreme value, then the lower index", which is the sequential scan's answer in any
// order.
template <typename T, bool kMax> __device__ inline bool better(T va, std::uint64_t ia, T vb, std::uint64_t ib) {
  if constexpr (kReal<T>) {
    bool na = num::is_nan(va), nb = num::is_nan(vb);
    if (na || nb) return na && nb ? ia < ib : na;
  }
  if (kMax ? va > vb : va < vb) return true;
  if (kMax ? vb > va : vb < va) return false;
  return ia < ib;
}

template <typename T, bool kMax>
__global__ void arg_k(Level0 L, std::uint64_t outs, std::uint64_t n, void* y) {
  std::uint64_t warps = outs;
  unsigned lane = threadIdx.x & 31u;
  for (std::uint64_t o = (blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x) >> 5; o < warps;
       o += (static_cast<std::uint64_t>(gridDim.x) * blockDim.x) >> 5) {
    T bv{};
    std::uint64_t bi = ~std::uint64_t{0};
    for (std::uint64_t i = lane; i < n; i += 32) {
      T v = ld<T>(L.x, L.dtype, static_cast<std::uint64_t>(in_offset(L, o, i)));
      if (bi == ~std::uint64_t{0} || better<T, kMax>(v, i, bv, bi)) { bv = v; bi = i; }
    }
    for (unsigned s = 16; s >= 1; s >>= 1) {
      T ov = __shfl_down_sync(0xFFFFFFFFu, bv, s);
      std::uint64_t oi = __shfl_down_sync(0xFFFFFFFFu, bi, s);
      if (lane < s && oi != ~std::uint64_t{0} && (bi == ~std::uint64_t{0} || better<T, kMax>(ov, oi, bv, bi))) {
        bv = ov;
        bi = oi;
      }
    }
    if (lane == 0) static_cast<std::int64_t*>(y)[o] = static_cast<std::int64_t>(bi == ~std::uint64_t{0} ? 0 : bi);
  }
}

// softmax rows: a warp per row when the row is one chunk, else a block per row.
template <bool kLog, bool kBlock>
__global__ void softmax_k(const void* x, int dt, void* y, std::uint64_t rows, std::uint64_t n, std::uint64_t inner) {
  __shared__ float part[kBlock ? kChunk + 1 : 1];
  std::uint64_t per_block = kBlock ? 1 : blockDim.x / 32;
  std::uint64_t first = blockIdx.x * per_block + (kBlock ? 0 : threadIdx.x / 32);
  std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * per_block;
  for (std::uint64_t r = first; r < rows; r += stride) {
    std::uint64_t base = (r / inner) * n * inner + r % inner;
    auto at = [&](std::uint64_t i) { return ld<float>(x, dt, base + i * inner); };
    float m, sum;
    if constexpr (kBlock) m = block_reduce(at, n, num::Maximum{}, -num::inf_f32(), part);
    else m = warp_reduce(at, n, num::Maximum{}, -num::inf_f32());
    auto e = [&](std::uint64_t i) { return num::exp_f32(at(i) - m); };
    if constexpr (kBlock) sum = block_reduce(e, n, num::Add{}, 0.0f, part);
    else sum = warp_reduce(e, n, num::Add{}, 0.0f);
    unsigned t = kBlock ? threadIdx.x : (threadIdx.x & 31u), nt = kBlock ? blockDim.x : 32;
    if constexpr (kLog) {
      float ls = num::log_f32(sum);
      for (std::uint64_t i = t; i < n; i += nt) st(y, dt, base + i * inner, (at(i) - m) - ls);
    } else {
      for (std::uint64_t i = t; i < n; i += nt) st(y, dt, base + i * inner, e(i) / sum);
    }
  }
}

}  // namespace

int launch_reduce(Red op, const void* x, int dtype, void* y, int y_dtype, const ReduceSpec& spec, Stream stream) {
  auto s = static_cast<cudaStream_t>(stream);
  std::uint64_t outs = spec.kept.numel(), n = spec.red.numel();
  if (outs == 0) return 0;
  Level0 L{x, dtype, spec, false};
  L.red_dense = spec.red.rank == 0 || (spec.red.rank == 1 && spec.red_stride[0] == 1);
  if (op == Red::argmax || op == Red::argmin) {
    return with_value_type(dtype, [&](auto tag) -> int {
      using T = decltype(tag);
      if (op == Red::argmax) arg_k<T, true><<<warp_blocks(outs), 256, 0, s>>>(L, outs, n, y);
      else arg_k<T, false><<<warp_blocks(outs), 256, 0, s>>>(L, outs, n, y);
      return launch_status();
    });
  }
  return with_value_type(dtype, [&](auto tag) -> int {
    using T = decltype(tag);
    return reduce_typed<T>(op, L, y, y_dtype, outs, n, spec.correction, s);
  });
}

int launch_softmax(bool log, const void* x, int dtype, void* y, std::uint64_t outer, std::uint64_t n,
                   std::uint64_t inner, Stream stream) {
  auto s = static_cast<cudaStream_t>(stream);
  std::uint64_t rows = outer * inner;
  if (rows == 0 || n == 0) return 0;
  if (n > kChunk * kChunk) return static_cast<int>(cudaErrorInvalidValue);
  if (n <= kChunk) {
    unsigned blocks = blocks_for(rows, 8);
    if (log) softmax_k<true, false><<<blocks, 256, 0, s>>>(x, dtype, y, rows, n, inner);
    else softmax_k<false, false><<<blocks, 256, 0, s>>>(x, dtype, y, rows, n, inner);
  } else {
    unsigned blocks = blocks_for(rows, 1);
    if (log) softmax_k<true, true><<<blocks, 512, 0, s>>>(x, dtype, y, rows, n, inner);
    else softmax_k<false, true><<<blocks, 512, 0, s>>>(x, dtype, y, rows, n, inner);
  }
  return launch_status();
}

}  // namespace rung::cuda
