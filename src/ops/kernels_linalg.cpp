#include "ops/compute_type.h"
#include "ops/kernels_linalg.h"

#include "ops/elementwise_driver.h"
#include "ops/numerics/dot.h"
#include "ops/shape_rules.h"

namespace rung::ops {

namespace {

std::string mat_dims(const Shape& s) { return shape_to_string(s); }

}  // namespace

ShapeResult rule_matmul(const ShapeArgs& a) {
  const Shape& sa = a.inputs[0].shape;
  const Shape& sb = a.inputs[1].shape;
  if (sa.size() < 2 || sb.size() < 2)
    return ShapeResult::fail("matmul needs operands of rank >= 2, got " + mat_dims(sa) + " and " + mat_dims(sb) +
                             " (reshape a vector to [1, K] or [K, 1])");
  bool ta = a.attrs.boolean("transpose_a"), tb = a.attrs.boolean("transpose_b");
  const Dim& m = ta ? sa[sa.size() - 1] : sa[sa.size() - 2];
  const Dim& ka = ta ? sa[sa.size() - 2] : sa[sa.size() - 1];
  const Dim& kb = tb ? sb[sb.size() - 1] : sb[sb.size() - 2];
  const Dim& n = tb ? sb[sb.size() - 2] : sb[sb.size() - 1];
  if (!same_dim(ka, kb))
    return ShapeResult::fail("contraction dims differ: " + ka.to_string() + " (a " + mat_dims(sa) +
                             (ta ? ", transposed" : "") + ") vs " + kb.to_string() + " (b " + mat_dims(sb) +
                             (tb ? ", transposed" : "") + ")");
  Shape batch_a(sa.begin(), sa.end() - 2), batch_b(sb.begin(), sb.end() - 2);
  std::vector<Shape> batches{batch_a, batch_b};
  std::string err;
  auto batch = broadcast_shapes(batches, err);
  if (!batch) return ShapeResult::fail("batch dims: " + err);
  batch->push_back(m);
  batch->push_back(n);
  return ShapeResult::ok({*batch});
}

ShapeResult rule_linear(const ShapeArgs& a) {
  const Shape& sx = a.inputs[0].shape;
  const Shape& sw = a.inputs[1].shape;
  if (sx.empty()) return ShapeResult::fail("linear needs x of rank >= 1");
  if (sw.size() != 2) return ShapeResult::fail("linear needs W of shape [N, K], got " + mat_dims(sw));
  if (!same_dim(sx.back(), sw[1]))
    return ShapeResult::fail("x's last dim " + sx.back().to_string() + " differs from W's K = " + sw[1].to_string() +
                             " (W is [N, K]; y = x W^T + b)");
  if (a.inputs.size() > 2) {
    const Shape& sb = a.inputs[2].shape;
    if (sb.size() != 1 || !same_dim(sb[0], sw[0]))
      return ShapeResult::fail("bias must have shape [" + sw[0].to_string() + "], got " + mat_dims(sb));
  }
  Shape y(sx.begin(), sx.end() - 1);
  y.push_back(sw[0]);
  return ShapeResult::ok({y});
}

namespace {

// One output element: the fma chain over k, in the compute type of the dtype.
template <typename T>
T chain(const HostTensor& A, std::uint64_t a0, std::uint64_t astride, const HostTensor& B, std::uint64_t b0,
        std::uint64_t bstride, std::uint64_t K) {
  if constexpr (std::is_same_v<T, double>) {
    return num::dot_chain_f64(K, [&](std::uint64_t k) { return A.raw<double>(a0 + k * astride); },
                              [&](std::uint64_t k) { return B.raw<double>(b0 + k * bstride); });
  } else {
    return num::dot_chain_f32(K, [&](std::uint64_t k) { return A.load_f32(a0 + k * astride); },
                              [&](std::uint64_t k) { return B.load_f32(b0 + k * bstride); });
  }
}

using compute::store;

template <typename T> void matmul_typed(KernelContext& c) {
  const HostTensor& A = c.inputs[0];
  const HostTensor& B = c.inputs[1];
  HostTensor& Y = c.outputs[0];
  bool ta = c.attrs.boolean("transpose_a"), tb = c.attrs.boolean("transpose_b");
  const Extents& ea = A.shape();
  const Extents& eb = B.shape();
  std::uint64_t ra = ea[ea.size() - 2], ca = ea[ea.size() - 1];
  std::uint64_t rb = eb[eb.size() - 2], cb = eb[eb.size() - 1];
  std::uint64_t M = ta ? ca : ra, K = ta ? ra : ca, N = tb ? rb : cb;
  // Element (i, k) of op(A) and (k, j) of op(B) within one matrix, and their k strides.
  std::uint64_t a_row = ta ? 1 : ca, a_k = ta ? ca : 1;
  std::uint64_t b_k = tb ? 1 : cb, b_col = tb ? cb : 1;
  Extents batch_a(ea.begin(), ea.end() - 2), batch_b(eb.begin(), eb.end() - 2);
  Extents batch_y(Y.shape().begin(), Y.shape().end() - 2);
  std::uint64_t mat_a = ra * ca, mat_b = rb * cb, mat_y = M * N;
  for_each_broadcast<2>(batch_y, {&batch_a, &batch_b}, [&](std::uint64_t bi, const std::array<std::uint64_t, 2>& o) {
    std::uint64_t abase = o[0] * mat_a, bbase = o[1] * mat_b, ybase = bi * mat_y;
    for (std::uint64_t i = 0; i < M; ++i)
      for (std::uint64_t j = 0; j < N; ++j)
        store<T>(Y, ybase + i * N + j, chain<T>(A, abase + i * a_row, a_k, B, bbase + j * b_col, b_k, K));
  });
}

template <typename T> void linear_typed(KernelContext& c) {
  const HostTensor& X = c.inputs[0];
  const HostTensor& W = c.inputs[1];
  HostTensor& Y = c.outputs[0];
  std::uint64_t K = W.shape()[1], N = W.shape()[0];
  std::uint64_t rows = K == 0 ? element_count(Extents(X.shape().begin(), X.shape().end() - 1)) : X.numel() / K;
  for (std::uint64_t r = 0; r < rows; ++r)
    for (std::uint64_t n = 0; n < N; ++n) {
      T acc = chain<T>(X, r * K, 1, W, n * K, 1, K);
      if (c.has_input(2)) {
        if constexpr (std::is_same_v<T, double>) acc = acc + c.inputs[2].raw<double>(n);
        else acc = acc + c.inputs[2].load_f32(n);
      }
      store<T>(Y, r * N + n, acc);
    }
}

}  // namespace

void matmul_kernel(KernelContext& c) {
  if (c.inputs[0].dtype() == DType::f64) matmul_typed<double>(c);
  else matmul_typed<float>(c);
}

void linear_kernel(KernelContext& c) {
  if (c.inputs[0].dtype() == DType::f64) linear_typed<double>(c);
  else linear_typed<float>(c);
}

}  // namespace rung::ops
