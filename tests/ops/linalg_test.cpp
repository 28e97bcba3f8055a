// matmul and linear: the fma chain bit for bit, the four transposed forms, batch
// broadcasting, zeros/NaN/inf, f16 storage, and a property test against binary64.
#include <cmath>
#include <random>

#include "op_test_util.h"
#include "ops/numerics/dot.h"

namespace rung::ops::testing {
namespace {

std::vector<float> randn(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// Transposes the last two dims of a row-major [.., r, c] array.
std::vector<float> transpose(const std::vector<float>& v, std::size_t batch, std::size_t r, std::size_t c) {
  std::vector<float> t(v.size());
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t i = 0; i < r; ++i)
      for (std::size_t j = 0; j < c; ++j) t[b * r * c + j * r + i] = v[b * r * c + i * c + j];
  return t;
}

TEST(Matmul, TheChainIsFusedAtEveryStep) {
  // fma keeps the exact product: (1 + 2^-23)(1 - 2^-23) - 1 = -2^-46, which a separate
  // multiply (rounding the product to 1) would turn into 0.
  HostTensor a = f32({1, 2}, {1.0f, 1.0f + 0x1p-23f});
  HostTensor b = f32({2, 1}, {-1.0f, 1.0f - 0x1p-23f});
  EXPECT_SAME_BITS(eval1("matmul", {a, b}).load_f32(0), -0x1p-46f);
}

TEST(Matmul, SequentialOrderFromPositiveZero) {
  // k increasing: ((0 + 1e8*1) + 1*1) + (-1e8*1) = 0 in f32, while k decreasing gives 1.
  HostTensor a = f32({1, 3}, {1e8f, 1.0f, -1e8f});
  HostTensor b = f32({3, 1}, {1, 1, 1});
  EXPECT_SAME_BITS(eval1("matmul", {a, b}).load_f32(0), 0.0f);
  HostTensor z = eval1("matmul", {f32({1, 2}, {-0.0f, -0.0f}), f32({2, 1}, {1, 1})});
  EXPECT_SAME_BITS(z.load_f32(0), 0.0f);  // the chain starts at +0
  HostTensor k0 = eval1("matmul", {f32({2, 0}, {}), f32({0, 3}, {})});
  EXPECT_EQ(k0.shape(), (Extents{2, 3}));
  for (float v : values_f32(k0)) EXPECT_SAME_BITS(v, 0.0f);
  HostTensor ni = eval1("matmul", {f32({1, 2}, {inff(), 1}), f32({2, 2}, {0, 1, 1, nanf()})});
  EXPECT_TRUE(std::isnan(ni.load_f32(0)));  // inf * 0
  EXPECT_TRUE(std::isnan(ni.load_f32(1)));  // NaN propagates
}

TEST(Matmul, AllFourFormsGiveTheSameBits) {
  const std::size_t B = 3, M = 4, K = 5, N = 6;
  auto A = randn(B * M * K, 1), Bm = randn(B * K * N, 2);
  HostTensor ref = eval1("matmul", {f32({B, M, K}, A), f32({B, K, N}, Bm)});
  HostTensor at = f32({B, K, M}, transpose(A, B, M, K));
  HostTensor bt = f32({B, N, K}, transpose(Bm, B, K, N));
  EXPECT_TRUE(eval1("matmul", {at, f32({B, K, N}, Bm)}, {{"transpose_a", true}}).identical(ref));
  EXPECT_TRUE(eval1("matmul", {f32({B, M, K}, A), bt}, {{"transpose_b", true}}).identical(ref));
  EXPECT_TRUE(eval1("matmul", {at, bt}, {{"transpose_a", true}, {"transpose_b", true}}).identical(ref));
}

TEST(Matmul, BatchDimsBroadcast) {
  auto A = randn(2 * 1 * 2 * 3, 3), Bm = randn(4 * 3 * 2, 4);
  HostTensor y = eval1("matmul", {f32({2, 1, 2, 3}, A), f32({4, 3, 2}, Bm)});
  ASSERT_EQ(y.shape(), (Extents{2, 4, 2, 2}));
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 4; ++j) {
      std::vector<float> a(A.begin() + i * 6, A.begin() + i * 6 + 6), b(Bm.begin() + j * 6, Bm.begin() + j * 6 + 6);
      auto one = values_f32(eval1("matmul", {f32({2, 3}, a), f32({3, 2}, b)}));
      for (std::size_t e = 0; e < 4; ++e) EXPECT_SAME_BITS(y.load_f32((i * 4 + j) * 4 + e), one[e]);
    }
}

TEST(Matmul, WithinTheFmaChainBoundOfBinary64) {
  // |c - exact| <= gamma_K * sum_k |a_k b_k|, gamma_K = K u / (1 - K u), u = 2^-24.
  for (std::size_t K : {1u, 7u, 64u, 1000u}) {
    const std::size_t M = 8, N = 8;
    auto A = randn(M * K, static_cast<unsigned>(K)), Bm = randn(K * N, static_cast<unsigned>(K) + 1);
    HostTensor y = eval1("matmul", {f32({M, K}, A), f32({K, N}, Bm)});
    double u = std::ldexp(1.0, -24), gamma = K * u / (1 - K * u);
    for (std::size_t i = 0; i < M; ++i)
      for (std::size_t j = 0; j < N; ++j) {
        double exact = 0, mag = 0;
        for (std::size_t k = 0; k < K; ++k) {
          exact += static_cast<double>(A[i * K + k]) * Bm[k * N + j];
          mag += std::fabs(static_cast<double>(A[i * K + k]) * Bm[k * N + j]);
        }
        EXPECT_LE(std::fabs(y.load_f32(i * N + j) - exact), gamma * mag + 1e-300) << "K=" << K;
      }
  }
}

TEST(Matmul, HalfInputsRoundOnceAtTheOutput) {
  auto A = randn(4 * 16, 5), Bm = randn(16 * 4, 6);
  HostTensor a = HostTensor::from_f32({4, 16}, A, DType::bf16), b = HostTensor::from_f32({16, 4}, Bm, DType::bf16);
  HostTensor y = eval1("matmul", {a, b});
  ASSERT_EQ(y.dtype(), DType::bf16);
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = 0; j < 4; ++j) {
      float want = num::dot_chain_f32(16, [&](std::uint64_t k) { return a.load_f32(i * 16 + k); },
                                      [&](std::uint64_t k) { return b.load_f32(k * 4 + j); });
      EXPECT_EQ(y.raw<std::uint16_t>(i * 4 + j), num::bf16_from_f32(want));
    }
}

TEST(Linear, BiasIsAddedAfterTheChain) {
  HostTensor x = f32({2, 2}, {1, 2, 3, 4});
  HostTensor w = f32({3, 2}, {1, 0, 0, 1, 1, 1});  // W is [N, K]
  HostTensor b = f32({3}, {0.5f, -0.5f, 100});
  EXPECT_EQ(values_f32(eval1("linear", {x, w, b})), (std::vector<float>{1.5f, 1.5f, 103, 3.5f, 3.5f, 107}));
  EXPECT_EQ(values_f32(eval1("linear", {x, w})), (std::vector<float>{1, 2, 3, 3, 4, 7}));
  // x w = 1 + 2^-11 + 2^-24 (a tie, rounds down); adding b = 2^-25 afterwards cannot lift
  // it, while a chain started from b would round once, up, to 1 + 2^-11 + 2^-23.
  HostTensor one = eval1("linear", {f32({1}, {1.0f + 0x1p-12f}), f32({1, 1}, {1.0f + 0x1p-12f}), f32({1}, {0x1p-25f})});
  EXPECT_SAME_BITS(one.load_f32(0), 1.0f + 0x1p-11f);
  EXPECT_EQ(eval_codes("linear", {x, f32({3, 3}, std::vector<float>(9, 0))}), (std::vector<std::string>{"N0011"}));
  EXPECT_EQ(eval_codes("linear", {x, w, f32({2}, {0, 0})}), (std::vector<std::string>{"N0011"}));
}

TEST(Matmul, F64UsesTheF64Chain) {
  HostTensor y = eval1("matmul", {f64({1, 2}, {1.0, 1.0 + 0x1p-52}), f64({2, 1}, {-1.0, 1.0 - 0x1p-52})});
  EXPECT_EQ(y.raw<double>(0), -0x1p-104);
}

}  // namespace
}  // namespace rung::ops::testing
