// Tier fast's guard in front of cuBLAS (cublas_fast.cpp): empty extents, layouts cuBLAS
// refuses, non-finite operands and magnitudes that could overflow run the exact kernel; ordinary products run on cuBLAS.
// Each product is checked against the reference in matmul's fast class, and the context's
// counters say which way each call went. Without a GPU the tests skip loudly.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>

#include "backends/cuda/cuda_context.h"
#include "cuda_cases.h"
#include "ops/compare.h"
#include "ops/evaluate.h"
#include "fast_tier_check.h"

namespace rung {
namespace {

// Runs `op` on the device in tier fast and on the reference; the result must be inside the
// op's fast class (exact bits where the guard chose the exact kernel).
void check(cuda::Context& ctx, const char* op_name, std::vector<ops::HostTensor> in, const AttrMap& attrs, const char* label,
           bool expect_exact) {
  const ops::OpDef* op = ops::op_registry().find(op_name);
  ASSERT_NE(op, nullptr);
  auto before_exact = ctx.fast_matmul_exact, before_cublas = ctx.fast_matmul_cublas;
  std::string error;
  auto r = cuda_test::run_device_and_reference(ctx, *op, in, attrs, error);
  ASSERT_TRUE(r) << label << ": " << error;
  const ops::HostTensor *got = &r->got, *ref = &r->ref;
  ASSERT_EQ(got->shape(), ref->shape()) << label;
  auto v = ops::compare(*got, *ref, op->tolerance.fast, ops::Tier::fast);
  EXPECT_TRUE(v.pass) << label << ": " << v.summary();
  EXPECT_EQ(ctx.fast_matmul_exact - before_exact, expect_exact ? 1u : 0u) << label;
  EXPECT_EQ(ctx.fast_matmul_cublas - before_cublas, expect_exact ? 0u : 1u) << label;
  if (expect_exact) {
    EXPECT_TRUE(got->identical(*ref)) << label << ": the exact kernel must give the reference's bits";
  }
  std::printf("%-44s %-6s %s\n", label, expect_exact ? "exact" : "cublas", v.summary().c_str());
}

AttrMap mm_attrs(bool ta, bool tb) { return AttrMap{{"transpose_a", AttrValue(ta)}, {"transpose_b", AttrValue(tb)}}; }

TEST(CudaFastGuard, ZeroExtentsRunTheExactKernel) {
  auto ctx = cuda_test::fast_context("tier fast guard");
  if (!ctx) GTEST_SKIP() << "no CUDA device";
  using cuda_test::random_tensor;
  // N = 0 (the conformance case cuBLAS refused with status 7), M = 0, and K = 0 (+0 everywhere).
  check(*ctx, "matmul", {random_tensor(DType::bf16, {4, 31}, 1), random_tensor(DType::bf16, {4, 0}, 2)}, mm_attrs(true, false),
        "matmul bf16[4,31]^T x bf16[4,0]", true);
  check(*ctx, "matmul", {random_tensor(DType::f32, {0, 9}, 3), random_tensor(DType::f32, {9, 5}, 4)}, mm_attrs(false, false),
        "matmul f32[0,9] x f32[9,5]", true);
  check(*ctx, "matmul", {random_tensor(DType::f32, {6, 0}, 5), random_tensor(DType::f32, {0, 5}, 6)}, mm_attrs(false, false),
        "matmul f32[6,0] x f32[0,5] (K = 0)", true);
  check(*ctx, "matmul", {random_tensor(DType::bf16, {2, 3, 0}, 7), random_tensor(DType::bf16, {2, 0, 4}, 8)},
        mm_attrs(false, false), "matmul bf16[2,3,0] x bf16[2,0,4] (K = 0)", true);
  check(*ctx, "linear", {random_tensor(DType::f32, {3, 0}, 9), random_tensor(DType::f32, {4, 0}, 10)}, {},
        "linear f32[3,0] W f32[4,0] (K = 0)", true);
  // K = 1 leaves both strides of W 1: the leading dimension cuBLAS would get (1 < N) it refuses.
  check(*ctx, "linear", {random_tensor(DType::f32, {5, 1}, 11, false), random_tensor(DType::f32, {64, 1}, 12, false)}, {},
        "linear f32[5,1] W f32[64,1] (K = 1)", true);
}

TEST(CudaFastGuard, NonFiniteOperandsRunTheExactKernel) {
  auto ctx = cuda_test::fast_context("tier fast guard");
  if (!ctx) GTEST_SKIP() << "no CUDA device";
  using cuda_test::random_tensor;
  const float inf = std::numeric_limits<float>::infinity();
  for (DType dt : {DType::f32, DType::bf16}) {
    // The shape of the failing conformance case: [257,7] x [3,7]^T, with -inf, +inf and NaN.
    auto a = random_tensor(dt, {257, 7}, 21, false), b = random_tensor(dt, {3, 7}, 22, false);
    a.store_f32(5, -inf);
    a.store_f32(40, inf);
    b.store_f32(3, -inf);
    check(*ctx, "matmul", {a, b}, mm_attrs(false, true), dt == DType::f32 ? "matmul f32 +-inf" : "matmul bf16 +-inf", true);
    auto c = random_tensor(dt, {64, 33}, 23, false);
    c.store_f32(100, std::nanf(""));
    check(*ctx, "matmul", {random_tensor(dt, {17, 64}, 24, false), c}, mm_attrs(false, false),
          dt == DType::f32 ? "matmul f32 NaN in b" : "matmul bf16 NaN in b", true);
    // Finite operands whose products can overflow in some order: K * max|a| * max|b| is too large.
    auto big = random_tensor(dt, {8, 16}, 25, false);
    big.store_f32(0, 1e20f);
    auto big2 = random_tensor(dt, {16, 8}, 26, false);
    big2.store_f32(0, -3e19f);
    check(*ctx, "matmul", {big, big2}, mm_attrs(false, false), dt == DType::f32 ? "matmul f32 overflow risk" : "matmul bf16 overflow risk",
          true);
  }
  // The conformance suite's own special values (NaN, ±inf, ±0, subnormals) through linear.
  check(*ctx, "linear", {random_tensor(DType::f32, {257, 7}, 31), random_tensor(DType::f32, {3, 7}, 32)}, {},
        "linear f32 specials", true);
}

TEST(CudaFastGuard, OrdinaryProductsStayOnCublas) {
  auto ctx = cuda_test::fast_context("tier fast guard");
  if (!ctx) GTEST_SKIP() << "no CUDA device";
  using cuda_test::random_tensor;
  for (DType dt : {DType::f32, DType::bf16})
    check(*ctx, "matmul", {random_tensor(dt, {257, 7}, 41, false), random_tensor(dt, {3, 7}, 42, false)}, mm_attrs(false, true),
          dt == DType::f32 ? "matmul f32 finite" : "matmul bf16 finite", false);
}

}  // namespace
}  // namespace rung
