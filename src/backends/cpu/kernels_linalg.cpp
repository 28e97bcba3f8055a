// matmul (four transposed forms, broadcast batch dims) and linear on the exact GEMM
// (simd_gemm.cpp): f32/f64 operands are read in place; f16/bf16 are widened exactly to f32,
// multiplied with the same chains, and rounded once at the output, as the reference does.
#include "backends/cpu/cpu_kernel.h"
#include "backends/cpu/gemm.h"
#include "backends/cpu/rows.h"
#include "ops/elementwise_driver.h"

namespace rung::cpu {

namespace {

using ops::Extents;
using ops::HostTensor;

// The elements of t as compute type T: the storage itself, or a widened copy.
template <typename T> const T* whole(const HostTensor& t, std::vector<T>& buf) {
  return load_row<T>(t, 0, t.numel(), buf);
}

template <typename T> void matmul_typed(CpuContext& c) {
  const HostTensor &A = c.k.inputs[0], &B = c.k.inputs[1];
  HostTensor& Y = c.k.outputs[0];
  bool ta = c.k.attrs.boolean("transpose_a"), tb = c.k.attrs.boolean("transpose_b");
  const Extents &ea = A.shape(), &eb = B.shape();
  std::uint64_t ra = ea[ea.size() - 2], ca = ea[ea.size() - 1];
  std::uint64_t rb = eb[eb.size() - 2], cb = eb[eb.size() - 1];
  std::uint64_t M = ta ? ca : ra, K = ta ? ra : ca, N = tb ? rb : cb;
  std::vector<T> bufa, bufb, bufy;
  const T* pa = whole<T>(A, bufa);
  const T* pb = whole<T>(B, bufb);
  T* py = out_row<T>(Y, 0, Y.numel(), bufy);
  Extents batch_a(ea.begin(), ea.end() - 2), batch_b(eb.begin(), eb.end() - 2);
  Extents batch_y(Y.shape().begin(), Y.shape().end() - 2);
  std::vector<GemmArgs<T>> work;
  ops::for_each_broadcast<2>(batch_y, {&batch_a, &batch_b}, [&](std::uint64_t bi, const std::array<std::uint64_t, 2>& o) {
    GemmArgs<T> g;
    g.M = M, g.N = N, g.K = K;
    g.a = pa + o[0] * ra * ca;
    g.a_rs = ta ? 1 : ca;
    g.a_ks = ta ? ca : 1;
    g.b = pb + o[1] * rb * cb;
    g.b_ks = tb ? 1 : cb;
    g.b_cs = tb ? cb : 1;
    g.c = py + bi * M * N;
    g.ldc = N;
    work.push_back(g);
  });
  gemm_batch(c.pool, work);
  store_row<T>(Y, 0, Y.numel(), py);
}

void matmul_kernel(CpuContext& c) {
  if (c.k.inputs[0].dtype() == DType::f64) matmul_typed<double>(c);
  else matmul_typed<float>(c);
}

template <typename T> void linear_typed(CpuContext& c) {
  const HostTensor &X = c.k.inputs[0], &W = c.k.inputs[1];
  HostTensor& Y = c.k.outputs[0];
  std::uint64_t K = W.shape()[1], N = W.shape()[0];
  std::uint64_t rows = N == 0 ? 0 : Y.numel() / N;
  std::vector<T> bx, bw, by, bb;
  GemmArgs<T> g;
  g.M = rows, g.N = N, g.K = K;
  g.a = whole<T>(X, bx);
  g.a_rs = K, g.a_ks = 1;
  g.b = whole<T>(W, bw);
  g.b_ks = 1, g.b_cs = K;
  T* py = out_row<T>(Y, 0, Y.numel(), by);
  g.c = py, g.ldc = N;
  gemm_batch(c.pool, {g});
  if (c.k.has_input(2)) {  // the bias after the chain: one rounded add
    const T* bias = whole<T>(c.k.inputs[2], bb);
    c.pool.parallel_for(rows, row_grain(N, kElemGrain), [&](std::uint64_t r0, std::uint64_t r1) {
      for (std::uint64_t r = r0; r < r1; ++r)
        for (std::uint64_t n = 0; n < N; ++n) py[r * N + n] = py[r * N + n] + bias[n];
    });
  }
  store_row<T>(Y, 0, Y.numel(), py);
}

void linear_kernel(CpuContext& c) {
  if (c.k.inputs[0].dtype() == DType::f64) linear_typed<double>(c);
  else linear_typed<float>(c);
}

}  // namespace

void register_linalg_kernels(ops::OpRegistry& r) {
  // The GEMM writes every element of C (K = 0 included: empty chains are +0).
  add_kernel(r, "matmul", matmul_kernel, Impl::simd, Outputs::overwritten);
  add_kernel(r, "linear", linear_kernel, Impl::simd, Outputs::overwritten);
}

}  // namespace rung::cpu
