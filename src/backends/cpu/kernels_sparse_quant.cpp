// CSR sparse ops and the q8_0 / q4_0 quantized ops.
//   csr_matmul / csr_matvec  rows over threads; per output the fma chain over the row's
//                            stored entries in column order (scalar)
//   csr_to_dense             rows over threads (bit copies)
//   csr_from_dense           per-row counts over threads, prefix sum, rows filled over threads
//   csr_from_coo             sequential: a stable sort and grouping (scalar)
//   quantize / dequantize    blocks over threads (rung's block codecs, numerics/quant_blocks.h)
//   linear_q                 compute "float": W dequantized exactly to f32, then the exact GEMM
//                            (the same chains); compute "int8": rows over threads (scalar).
#include <algorithm>
#include <cstring>

#include "backends/cpu/cpu_kernel.h"
#include "backends/cpu/gemm.h"
#include "backends/cpu/rows.h"
#include "backends/cpu/tree.h"
#include "ops/csr.h"
#include "ops/numerics/ieee.h"
#include "ops/numerics/quant_blocks.h"
#include "ops/tensor_walk.h"

namespace rung::cpu {

namespace {

using ops::CsrView;
using ops::Extents;
using ops::HostTensor;

template <typename T> T ld(const HostTensor& t, std::uint64_t i) {
  if constexpr (std::is_same_v<T, double>) return t.load_f64(i);
  else return t.load_f32(i);
}
template <typename T> void st(HostTensor& t, std::uint64_t i, T v) {
  if constexpr (std::is_same_v<T, double>) t.store_f64(i, v);
  else t.store_f32(i, v);
}
template <typename T> T fma_t(T a, T b, T c) {
  if constexpr (std::is_same_v<T, double>) return num::fma_f64(a, b, c);
  else return num::fma_f32(a, b, c);
}

template <typename T> void spmm_typed(CpuContext& c, const CsrView& a) {
  const HostTensor& B = c.k.inputs[3];
  HostTensor& Y = c.k.outputs[0];
  std::uint64_t N = B.rank() == 2 ? B.shape()[1] : 1;
  c.pool.parallel_for(a.rows(), 1, [&](std::uint64_t r0, std::uint64_t r1) {
    std::vector<T> acc(N);
    for (std::uint64_t r = r0; r < r1; ++r) {
      std::fill(acc.begin(), acc.end(), T(0));
      for (std::uint64_t p = a.begin(r); p < a.end(r); ++p) {
        T av = ld<T>(a.values, p);
        std::uint64_t k = a.col(p);
        for (std::uint64_t j = 0; j < N; ++j) acc[j] = fma_t<T>(av, ld<T>(B, k * N + j), acc[j]);
      }
      for (std::uint64_t j = 0; j < N; ++j) st<T>(Y, r * N + j, acc[j]);
    }
  });
}

void csr_matmul_kernel(CpuContext& c) {
  CsrView a{c.k.inputs[0], c.k.inputs[1], c.k.inputs[2]};
  std::string err = ops::validate_csr(a, c.k.inputs[3].shape()[0]);
  if (!err.empty()) return c.k.fail(err);
  if (c.k.inputs[2].dtype() == DType::f64) spmm_typed<double>(c, a);
  else spmm_typed<float>(c, a);
}

void csr_to_dense_kernel(CpuContext& c) {
  CsrView a{c.k.inputs[0], c.k.inputs[1], c.k.inputs[2]};
  auto K = static_cast<std::uint64_t>(c.k.attrs.integer("n_cols"));
  std::string err = ops::validate_csr(a, K);
  if (!err.empty()) return c.k.fail(err);
  HostTensor& y = c.k.outputs[0];
  std::uint64_t w = ops::elem_size(y.dtype());
  c.pool.parallel_for(a.rows(), 1, [&](std::uint64_t r0, std::uint64_t r1) {
    for (std::uint64_t r = r0; r < r1; ++r)
      for (std::uint64_t p = a.begin(r); p < a.end(r); ++p)
        std::memcpy(y.bytes().data() + (r * K + a.col(p)) * w, a.values.bytes().data() + p * w, w);
  });
}

bool allocate_csr(ops::KernelContext& c, std::uint64_t nnz, std::uint64_t cols) {
  DType it = c.outputs[0].dtype();
  if (it == DType::i32 && (nnz > 0x7FFFFFFFull || cols > 0x7FFFFFFFull)) {
    c.fail("the result needs more than 2^31 - 1 entries or columns; use i64 indices");
    return false;
  }
  c.outputs[1] = HostTensor(it, {nnz});
  c.outputs[2] = HostTensor(c.outputs[2].dtype(), {nnz});
  return true;
}

void csr_from_dense_kernel(CpuContext& c) {
  const HostTensor& x = c.k.inputs[0];
  std::uint64_t M = x.shape()[0], K = x.shape()[1];
  std::vector<std::uint64_t> start(M + 1, 0);
  c.pool.parallel_for(M, 1, [&](std::uint64_t r0, std::uint64_t r1) {
    for (std::uint64_t r = r0; r < r1; ++r)
      for (std::uint64_t k = 0; k < K; ++k) start[r + 1] += x.load_f64(r * K + k) != 0.0;
  });
  for (std::uint64_t r = 0; r < M; ++r) start[r + 1] += start[r];
  if (!allocate_csr(c.k, start[M], K)) return;
  HostTensor &ptr = c.k.outputs[0], &idx = c.k.outputs[1], &val = c.k.outputs[2];
  std::uint64_t w = ops::elem_size(x.dtype());
  for (std::uint64_t r = 0; r <= M; ++r) ptr.store_int(r, start[r]);
  c.pool.parallel_for(M, 1, [&](std::uint64_t r0, std::uint64_t r1) {
    for (std::uint64_t r = r0; r < r1; ++r) {
      std::uint64_t p = start[r];
      for (std::uint64_t k = 0; k < K; ++k) {
        if (x.load_f64(r * K + k) == 0.0) continue;
        idx.store_int(p, k);
        std::memcpy(val.bytes().data() + p * w, x.bytes().data() + (r * K + k) * w, w);
        ++p;
      }
    }
  });
}

void csr_from_coo_kernel(CpuContext& c) {
  const HostTensor &rows = c.k.inputs[0], &cols = c.k.inputs[1], &vals = c.k.inputs[2];
  auto M = static_cast<std::uint64_t>(c.k.attrs.integer("n_rows")), K = static_cast<std::uint64_t>(c.k.attrs.integer("n_cols"));
  std::uint64_t n = rows.numel();
  for (std::uint64_t e = 0; e < n; ++e) {
    std::int64_t r = rows.load_i64(e), k = cols.load_i64(e);
    if (r < 0 || static_cast<std::uint64_t>(r) >= M)
      return c.k.fail("row index " + std::to_string(r) + " of entry " + std::to_string(e) + " is out of range [0, " +
                      std::to_string(M) + ")");
    if (k < 0 || static_cast<std::uint64_t>(k) >= K)
      return c.k.fail("column index " + std::to_string(k) + " of entry " + std::to_string(e) + " is out of range [0, " +
                      std::to_string(K) + ")");
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> key(n);
  for (std::uint64_t e = 0; e < n; ++e) key[e] = {rows.load_i64(e), cols.load_i64(e)};
  std::vector<std::uint64_t> order(n);
  for (std::uint64_t e = 0; e < n; ++e) order[e] = e;
  std::stable_sort(order.begin(), order.end(), [&](std::uint64_t a, std::uint64_t b) { return key[a] < key[b]; });
  std::vector<std::uint64_t> starts;
  for (std::uint64_t i = 0; i < n; ++i)
    if (i == 0 || key[order[i]] != key[order[i - 1]]) starts.push_back(i);
  std::uint64_t nnz = starts.size();
  starts.push_back(n);
  if (!allocate_csr(c.k, nnz, K)) return;
  HostTensor &ptr = c.k.outputs[0], &idx = c.k.outputs[1], &val = c.k.outputs[2];
  bool f64 = vals.dtype() == DType::f64;
  std::uint64_t w = ops::elem_size(vals.dtype());
  std::uint64_t row = 0;
  std::vector<double> bd;
  std::vector<float> bf;
  for (std::uint64_t g = 0; g < nnz; ++g) {
    std::uint64_t first = order[starts[g]], m = starts[g + 1] - starts[g];
    auto r = static_cast<std::uint64_t>(key[first].first);
    while (row <= r) ptr.store_int(row++, g);
    idx.store_int(g, static_cast<std::uint64_t>(key[first].second));
    if (m == 1) {
      std::memcpy(val.bytes().data() + g * w, vals.bytes().data() + first * w, w);
    } else if (f64) {
      bd.resize(m);
      for (std::uint64_t i = 0; i < m; ++i) bd[i] = vals.load_f64(order[starts[g] + i]);
      val.store_f64(g, tree_sum<double>(bd.data(), m));
    } else {
      bf.resize(m);
      for (std::uint64_t i = 0; i < m; ++i) bf[i] = vals.load_f32(order[starts[g] + i]);
      val.store_f32(g, tree_sum<float>(bf.data(), m));
    }
  }
  while (row <= M) ptr.store_int(row++, nnz);
}

// ---- quantized

bool is_q8(DType t) { return t == DType::q8_0; }
std::uint64_t qbytes(DType t) { return is_q8(t) ? num::kQ8Bytes : num::kQ4Bytes; }
int code(DType t, const std::uint8_t* blk, int i) { return is_q8(t) ? num::q8_0_code(blk, i) : num::q4_0_code(blk, i); }

void quantize_kernel(CpuContext& c) {
  const HostTensor& x = c.k.inputs[0];
  HostTensor& y = c.k.outputs[0];
  DType to = y.dtype();
  std::uint64_t K = x.shape().back(), blocks = x.numel() / num::kQBlock;
  std::vector<num::QStatus> status(blocks, num::QStatus::ok);
  c.pool.parallel_for(blocks, kElemGrain / num::kQBlock, [&](std::uint64_t b0, std::uint64_t b1) {
    std::vector<float> buf;
    for (std::uint64_t b = b0; b < b1; ++b) {
      const float* v = load_row<float>(x, b * num::kQBlock, num::kQBlock, buf);
      std::uint8_t* blk = y.bytes().data() + b * qbytes(to);
      status[b] = is_q8(to) ? num::q8_0_encode(v, blk) : num::q4_0_encode(v, blk);
    }
  });
  for (std::uint64_t b = 0; b < blocks; ++b) {  // the first failing block is reported
    if (status[b] == num::QStatus::ok) continue;
    std::uint64_t first = b * num::kQBlock;
    std::string where = "block " + std::to_string(b) + " (row " + std::to_string(first / K) + ", elements " +
                        std::to_string(first % K) + ".." + std::to_string(first % K + 31) + ")";
    if (status[b] == num::QStatus::non_finite)
      return c.k.fail(where + " holds an inf or NaN, which " + std::string(dtype_name(to)) + " cannot represent");
    return c.k.fail(where + ": its scale overflows f16 (" + std::string(dtype_name(to)) + " holds |x| up to about " +
                    (is_q8(to) ? "8.3e6" : "5.2e5") + ")");
  }
}

// W's values as f32: d * code, exact.
void dequantize_into(ThreadPool& pool, const HostTensor& q, float* out) {
  std::uint64_t blocks = q.numel() / num::kQBlock;
  pool.parallel_for(blocks, kElemGrain / num::kQBlock, [&](std::uint64_t b0, std::uint64_t b1) {
    for (std::uint64_t b = b0; b < b1; ++b) {
      const std::uint8_t* blk = q.bytes().data() + b * qbytes(q.dtype());
      float d = num::q_scale(blk);
      for (int i = 0; i < num::kQBlock; ++i) out[b * num::kQBlock + static_cast<std::uint64_t>(i)] = d * static_cast<float>(code(q.dtype(), blk, i));
    }
  });
}

void dequantize_kernel(CpuContext& c) {
  HostTensor& y = c.k.outputs[0];
  std::vector<float> buf;
  float* out = out_row<float>(y, 0, y.numel(), buf);
  dequantize_into(c.pool, c.k.inputs[0], out);
  store_row<float>(y, 0, y.numel(), out);
}

void linear_q_kernel(CpuContext& c) {
  const HostTensor &x = c.k.inputs[0], &w = c.k.inputs[1];
  HostTensor& y = c.k.outputs[0];
  std::uint64_t N = w.shape()[0], K = w.shape()[1];
  std::uint64_t rows = ops::element_count(Extents(x.shape().begin(), x.shape().end() - 1));
  std::vector<float> bx, by, bb;
  const float* px = load_row<float>(x, 0, x.numel(), bx);
  float* py = out_row<float>(y, 0, y.numel(), by);
  const float* bias = c.k.has_input(2) ? load_row<float>(c.k.inputs[2], 0, N, bb) : nullptr;
  if (c.k.attrs.string("compute") != "int8") {
    std::vector<float> wf(N * K);
    dequantize_into(c.pool, w, wf.data());
    GemmArgs<float> g;
    g.M = rows, g.N = N, g.K = K;
    g.a = px, g.a_rs = K, g.a_ks = 1;
    g.b = wf.data(), g.b_ks = 1, g.b_cs = K;
    g.c = py, g.ldc = N;
    gemm_batch(c.pool, {g});
  } else {
    std::uint64_t nb = K / num::kQBlock;
    c.pool.parallel_for(rows, 1, [&](std::uint64_t r0, std::uint64_t r1) {
      std::vector<std::int8_t> q(K);
      std::vector<float> d(nb);
      for (std::uint64_t r = r0; r < r1; ++r) {
        bool finite = true;
        for (std::uint64_t b = 0; b < nb; ++b) {
          d[b] = num::q8_act_encode(px + r * K + b * num::kQBlock, q.data() + b * num::kQBlock);
          finite = finite && !num::is_nan(d[b]);
        }
        for (std::uint64_t n = 0; n < N; ++n) {
          float acc = 0.0f;
          if (!finite) {
            acc = num::nan_f32();
          } else {
            for (std::uint64_t b = 0; b < nb; ++b) {
              const std::uint8_t* blk = w.bytes().data() + (n * nb + b) * qbytes(w.dtype());
              std::int32_t isum = 0;
              for (int i = 0; i < num::kQBlock; ++i) isum += q[b * num::kQBlock + static_cast<std::uint64_t>(i)] * code(w.dtype(), blk, i);
              acc = num::fma_f32(d[b] * num::q_scale(blk), static_cast<float>(isum), acc);
            }
          }
          py[r * N + n] = acc;
        }
      }
    });
  }
  if (bias)
    for (std::uint64_t r = 0; r < rows; ++r)
      for (std::uint64_t n = 0; n < N; ++n) py[r * N + n] = py[r * N + n] + bias[n];
  store_row<float>(y, 0, y.numel(), py);
}

}  // namespace

void register_sparse_quant_kernels(ops::OpRegistry& r) {
  const Impl S = Impl::scalar;
  add_kernel(r, "csr_matmul", csr_matmul_kernel, S);
  add_kernel(r, "csr_matvec", csr_matmul_kernel, S);
  add_kernel(r, "csr_to_dense", csr_to_dense_kernel, S);
  add_kernel(r, "csr_from_dense", csr_from_dense_kernel, S);
  add_kernel(r, "csr_from_coo", csr_from_coo_kernel, S);
  add_kernel(r, "quantize", quantize_kernel, S);
  add_kernel(r, "dequantize", dequantize_kernel, S);
  add_kernel(r, "linear_q", linear_q_kernel, Impl::simd);
}

}  // namespace rung::cpu
