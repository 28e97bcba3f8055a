// Tier fast attention (k_attention_flash.cu and its guard in cuda_ops_nn.cpp): bf16/f16
// operands with D == Dv of 64 or 128 and no mask tensor run the flash kernel, inside the op's
// fast class; everything else (f32, masks, other head dims, non-finite operands, magnitudes
// that could overflow) runs the exact kernel and gives the reference's bits. The context's
// counters say which way each call went. Without a GPU the tests skip loudly.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "backends/cuda/cuda_context.h"
#include "cuda_cases.h"
#include "ops/compare.h"
#include "ops/evaluate.h"
#include "fast_tier_check.h"

namespace rung {
namespace {

void check(cuda::Context& ctx, std::vector<ops::HostTensor> in, const AttrMap& attrs, const std::string& label, bool expect_flash) {
  const ops::OpDef* op = ops::op_registry().find("attention");
  ASSERT_NE(op, nullptr);
  auto before_flash = ctx.fast_attention_flash, before_exact = ctx.fast_attention_exact;
  std::string error;
  auto r = cuda_test::run_device_and_reference(ctx, *op, in, attrs, error);
  ASSERT_TRUE(r) << label << ": " << error;
  const ops::HostTensor *got = &r->got, *ref = &r->ref;
  auto v = ops::compare(*got, *ref, op->tolerance.fast, ops::Tier::fast);
  EXPECT_TRUE(v.pass) << label << ": " << v.summary();
  EXPECT_EQ(ctx.fast_attention_flash - before_flash, expect_flash ? 1u : 0u) << label;
  EXPECT_EQ(ctx.fast_attention_exact - before_exact, expect_flash ? 0u : 1u) << label;
  if (!expect_flash) {
    EXPECT_TRUE(got->identical(*ref)) << label << ": the exact kernel must give the reference's bits";
  }
  std::printf("%-52s %-6s %s\n", label.c_str(), expect_flash ? "flash" : "exact", v.summary().c_str());
}

ops::HostTensor R(DType dt, ops::Extents s, std::uint64_t seed, bool specials = false) {
  return cuda_test::random_tensor(dt, std::move(s), seed, specials);
}

TEST(CudaFastAttention, FlashInsideTheClass) {
  auto ctx = cuda_test::fast_context("tier fast attention");
  if (!ctx) GTEST_SKIP() << "no CUDA device";
  AttrMap none, open{{"causal", AttrValue(false)}};
  std::uint64_t s = 100;
  for (DType dt : {DType::bf16, DType::f16}) {
    std::string n(dtype_name(dt));
    check(*ctx, {R(dt, {2, 3, 200, 64}, s++), R(dt, {2, 3, 200, 64}, s++), R(dt, {2, 3, 200, 64}, s++)}, none, "causal 200 D 64 " + n, true);
    check(*ctx, {R(dt, {2, 130, 128}, s++), R(dt, {2, 257, 128}, s++), R(dt, {2, 257, 128}, s++)}, open, "Sq 130 Sk 257 D 128 " + n,
          true);
    check(*ctx, {R(dt, {1, 100, 64}, s++), R(dt, {1, 40, 64}, s++), R(dt, {1, 40, 64}, s++)}, none, "causal Sq 100 > Sk 40 " + n, true);
    check(*ctx, {R(dt, {3, 1, 64}, s++), R(dt, {2, 1, 70, 64}, s++), R(dt, {1, 70, 64}, s++)}, open, "broadcast batch, one query " + n,
          true);
  }
}

TEST(CudaFastAttention, GuardSendsTheRestToTheExactKernel) {
  auto ctx = cuda_test::fast_context("tier fast attention");
  if (!ctx) GTEST_SKIP() << "no CUDA device";
  AttrMap none;
  std::uint64_t s = 200;
  DType bf = DType::bf16;
  check(*ctx, {R(DType::f32, {2, 90, 64}, s++), R(DType::f32, {2, 90, 64}, s++), R(DType::f32, {2, 90, 64}, s++)}, none, "f32 operands",
        false);
  check(*ctx, {R(bf, {2, 90, 32}, s++), R(bf, {2, 90, 32}, s++), R(bf, {2, 90, 32}, s++)}, none, "head dim 32", false);
  check(*ctx, {R(bf, {2, 90, 64}, s++), R(bf, {2, 90, 64}, s++), R(bf, {2, 90, 64}, s++), R(DType::boolean, {90, 90}, s++)}, none,
        "bool mask", false);
  check(*ctx, {R(bf, {2, 90, 64}, s++, true), R(bf, {2, 90, 64}, s++, true), R(bf, {2, 90, 64}, s++, true)}, none,
        "specials (NaN, inf)", false);
  auto big = R(bf, {2, 90, 64}, s++);
  big.store_f32(5, 3e38f);
  check(*ctx, {R(bf, {2, 90, 64}, s++), R(bf, {2, 90, 64}, s++), big}, none, "|v| that could overflow a sum", false);
}

// The attention backward's products have two batch dims ([B, H]); cuBLAS takes them as one
// strided batch where they step like one dim, and loops where they do not (a broadcast).
TEST(CudaFastAttention, MatmulsWithTwoBatchDims) {
  auto ctx = cuda_test::fast_context("tier fast attention");
  if (!ctx) GTEST_SKIP() << "no CUDA device";
  const ops::OpDef* op = ops::op_registry().find("matmul");
  struct Case {
    ops::Extents a, b;
    bool ta, tb;
    const char* label;
  };
  std::uint64_t seed = 300;
  for (const Case& c : {Case{{2, 3, 40, 16}, {2, 3, 16, 24}, false, false, "[2,3] batch"},
                        Case{{2, 3, 40, 16}, {2, 3, 40, 24}, true, false, "[2,3] batch, a transposed"},
                        Case{{2, 3, 40, 16}, {2, 3, 24, 16}, false, true, "[2,3] batch, b transposed"},
                        Case{{2, 3, 40, 16}, {1, 3, 16, 24}, false, false, "b broadcast over the first batch dim"},
                        Case{{2, 1, 40, 16}, {2, 1, 16, 24}, false, false, "a batch dim of 1"}}) {
    for (DType dt : {DType::bf16, DType::f32}) {
      std::vector<ops::HostTensor> in{R(dt, c.a, seed++), R(dt, c.b, seed++)};
      AttrMap at{{"transpose_a", AttrValue(c.ta)}, {"transpose_b", AttrValue(c.tb)}};
      auto before = ctx->fast_matmul_cublas;
      std::string error;
      auto r = cuda_test::run_device_and_reference(*ctx, *op, in, at, error);
      ASSERT_TRUE(r) << c.label << ": " << error;
      auto v = ops::compare(r->got, r->ref, op->tolerance.fast, ops::Tier::fast);
      EXPECT_TRUE(v.pass) << c.label << " " << dtype_name(dt) << ": " << v.summary();
      EXPECT_EQ(ctx->fast_matmul_cublas - before, 1u) << c.label;
    }
  }
}

}  // namespace
}  // namespace rung
