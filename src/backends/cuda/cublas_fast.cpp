// Tier fast: matmul through cuBLAS. bf16 operands run on the BF16 tensor cores (f32
// accumulation); f32 operands use cuBLAS SGEMM in full f32. TF32 was measured too
// (bench/RESULTS.md): on inputs with cancellation it leaves elements outside the `loose`
// class that tier fast declares for matmul, so it is not used. Batches with a regular
// stride (after merging dims that step like one) go to the strided batched call; irregular
// broadcast batches loop.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cmath>

#include "backends/cuda/cuda_context.h"
#include "backends/cuda/device_api.h"
#include "backends/cuda/operand_scan.h"

namespace rung::cuda {
namespace {

// cuBLAS's view of the operands (column-major: C^T = op(B)^T op(A)^T), as fast_matmul passes them.
struct CublasLayout {
  bool b_n, a_n;  // CUBLAS_OP_N for B, for A
  long long ldb, lda;
};
CublasLayout cublas_layout(const MatmulSpec& m) {
  return {m.b_cs == 1, m.a_ks == 1, m.b_cs == 1 ? m.b_ks : m.b_cs, m.a_ks == 1 ? m.a_rs : m.a_ks};
}

}  // namespace

// cuBLAS sums in its own order (blocked, maybe split), so it may only run where every order
// lands inside the class: no empty extent (cuBLAS refuses N = 0, and K = 0 must give +0), no
// NaN or infinity in an operand (an order can turn the chain's -inf into NaN), and
// K * max|a| * max|b| below half the output type's largest finite value, so that no partial
// sum in any order can overflow (the factor 2 covers rounding). Everything else runs the
// exact kernel, whose result is always inside the class; the context counts both.
bool fast_matmul_admits(Context& ctx, const DevTensor& a, const DevTensor& b, const DevTensor& c, const MatmulSpec& m,
                        bool& admit, DiagnosticSink& diags) {
  admit = false;
  if (m.M == 0 || m.N == 0 || m.K == 0 || m.batch.numel() == 0) return true;
  // One type throughout (mixed types, as the FFN composites pass, are refused: status 15), and
  // leading dimensions cuBLAS accepts: an extent of 1 can leave both strides 1 (status 7).
  if (b.dtype != a.dtype || c.dtype != a.dtype) return true;
  CublasLayout l = cublas_layout(m);
  if (l.ldb < static_cast<long long>(l.b_n ? m.N : m.K) || l.lda < static_cast<long long>(l.a_n ? m.K : m.M)) return true;
  float mx[2] = {0, 0};
  int err = operand_max_abs(a.data(), a.numel(), b.data(), b.numel(), static_cast<int>(a.dtype), mx, ctx.stream());
  if (!ctx.check(err, "operand scan", diags)) return false;
  double limit = 3.3895313892515355e38 / 2;  // the output is f32 or bf16: bf16's max <= f32's
  double bound = static_cast<double>(m.K) * static_cast<double>(mx[0]) * static_cast<double>(mx[1]);
  admit = std::isfinite(mx[0]) && std::isfinite(mx[1]) && bound < limit;
  return true;
}

namespace {

// Batch dims that step through both operands as one dim would ([8, 12] heads of contiguous
// matrices: a_bs[d] = a_bs[d+1] * ext[d+1], the same for b, or both broadcast) merged and
// dims of extent 1 dropped, so such products take one strided batched call instead of a
// loop of single ones.
MatmulSpec merge_batch_dims(const MatmulSpec& m) {
  MatmulSpec r = m;
  if (m.batch.rank <= 1) return r;
  int k = 0;
  for (int d = 0; d < m.batch.rank; ++d) {
    if (m.batch.ext[d] == 1) continue;  // steps nowhere
    if (k > 0) {
      auto e = static_cast<std::int64_t>(m.batch.ext[d]);
      if (r.a_bs[k - 1] == m.a_bs[d] * e && r.b_bs[k - 1] == m.b_bs[d] * e) {
        r.batch.ext[k - 1] *= m.batch.ext[d];
        r.a_bs[k - 1] = m.a_bs[d];
        r.b_bs[k - 1] = m.b_bs[d];
        continue;
      }
    }
    r.batch.ext[k] = m.batch.ext[d];
    r.a_bs[k] = m.a_bs[d];
    r.b_bs[k] = m.b_bs[d];
    ++k;
  }
  r.batch.rank = k;
  return r;
}

}  // namespace

bool fast_matmul(Context& ctx, const DevTensor& a, const DevTensor& b, DevTensor& c, const MatmulSpec& m_in, DiagnosticSink& diags) {
  const MatmulSpec m = merge_batch_dims(m_in);
  auto h = static_cast<cublasHandle_t>(ctx.cublas());
  bool bf = a.dtype == DType::bf16;
  cudaDataType_t in_t = bf ? CUDA_R_16BF : CUDA_R_32F;
  cudaDataType_t out_t = c.dtype == DType::bf16 ? CUDA_R_16BF : c.dtype == DType::f16 ? CUDA_R_16F : CUDA_R_32F;
  cublasComputeType_t comp = CUBLAS_COMPUTE_32F;
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T.
  CublasLayout l = cublas_layout(m);
  cublasOperation_t opb = l.b_n ? CUBLAS_OP_N : CUBLAS_OP_T;
  cublasOperation_t opa = l.a_n ? CUBLAS_OP_N : CUBLAS_OP_T;
  long long ldb = l.ldb, lda = l.lda;
  int M = static_cast<int>(m.M), N = static_cast<int>(m.N), K = static_cast<int>(m.K);
  const float one = 1.0f, zero = 0.0f;
  std::size_t esz = bf ? 2 : 4, osz = dtype_info(c.dtype).block_bytes;
  std::uint64_t batches = m.batch.numel();
  // A regular batch: one batch dim or none, strides as given.
  if (m.batch.rank <= 1) {
    long long sa = m.batch.rank ? m.a_bs[0] : 0, sb = m.batch.rank ? m.b_bs[0] : 0;
    return ctx.check(cublasGemmStridedBatchedEx(h, opb, opa, N, M, K, &one, b.data(), in_t, static_cast<int>(ldb), sb, a.data(),
                                                in_t, static_cast<int>(lda), sa, &zero, c.data(), out_t, N,
                                                static_cast<long long>(m.M * m.N), static_cast<int>(batches ? batches : 1),
                                                comp, CUBLAS_GEMM_DEFAULT),
                     "cublasGemmStridedBatchedEx", diags, true);
  }
  for (std::uint64_t bi = 0; bi < batches; ++bi) {
    std::int64_t ao = 0, bo = 0;
    std::uint64_t rem = bi;
    for (int d = m.batch.rank - 1; d >= 0; --d) {
      std::uint64_t idx = rem % m.batch.ext[d];
      rem /= m.batch.ext[d];
      ao += static_cast<std::int64_t>(idx) * m.a_bs[d];
      bo += static_cast<std::int64_t>(idx) * m.b_bs[d];
    }
    if (!ctx.check(cublasGemmEx(h, opb, opa, N, M, K, &one, static_cast<const char*>(b.data()) + bo * esz, in_t,
                                static_cast<int>(ldb), static_cast<const char*>(a.data()) + ao * esz, in_t, static_cast<int>(lda),
                                &zero, static_cast<char*>(c.data()) + bi * m.M * m.N * osz, out_t, N, comp, CUBLAS_GEMM_DEFAULT),
                   "cublasGemmEx", diags, true))
      return false;
  }
  return true;
}

}  // namespace rung::cuda
