// Sparse family: CSR products by hand and against dense matmul bit for bit, construction
// from dense and COO, and every structural fault of a CSR matrix as a clear diagnostic.
#include "op_test_util.h"

namespace rung::ops::testing {
namespace {

using V = std::vector<std::int64_t>;

std::vector<HostTensor> eval_all(std::string_view op, std::vector<HostTensor> in, const AttrMap& attrs = {}) {
  DiagnosticSink d;
  auto out = evaluate(op, in, attrs, d);
  if (!out) {
    ADD_FAILURE() << op << ": " << (d.empty() ? "?" : d.all().front().message);
    return {};
  }
  return *out;
}

std::string failure(std::string_view op, std::vector<HostTensor> in, const AttrMap& attrs = {}) {
  DiagnosticSink d;
  evaluate(op, in, attrs, d);
  return d.empty() ? "" : d.all().front().code + " " + d.all().front().message;
}

// A = [[1, 0, 2], [0, 0, 0], [0, 3, 0]]
std::vector<HostTensor> small_csr(DType idx = DType::i64) {
  return {i64({4}, {0, 2, 2, 3}, idx), i64({3}, {0, 2, 1}, idx), f32({3}, {1, 2, 3})};
}

TEST(Csr, MatmulAndMatvecByHand) {
  auto a = small_csr();
  HostTensor y = eval1("csr_matmul", {a[0], a[1], a[2], f32({3, 2}, {1, 10, 2, 20, 3, 30})});
  EXPECT_EQ(y.shape(), (Extents{3, 2}));
  EXPECT_EQ(values_f32(y), (std::vector<float>{7, 70, 0, 0, 6, 60}));
  auto b = small_csr(DType::i32);
  HostTensor v = eval1("csr_matvec", {b[0], b[1], b[2], f32({3}, {1, 2, 3})});
  EXPECT_EQ(values_f32(v), (std::vector<float>{7, 0, 6}));
}

// Deterministic sparse test matrix: about a third of the entries non-zero.
HostTensor sparse_dense(std::uint64_t M, std::uint64_t K, std::uint32_t seed, DType dt = DType::f32) {
  std::vector<double> v(M * K);
  std::uint32_t s = seed;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = (s >> 30) == 0 ? (static_cast<double>(s >> 8) / 16777216.0 - 0.5) * 3.0 + 0.01 : 0.0;
  }
  return HostTensor::from_f64({M, K}, v, dt);
}

// Property: the chain over stored entries is matmul's chain with the zero terms removed, so
// for finite B (and A's stored entries non-zero) SpMM equals dense matmul bit for bit.
TEST(Csr, SpmmEqualsDenseMatmulOfTheDensifiedMatrix) {
  for (DType dt : {DType::f32, DType::f64, DType::bf16}) {
    HostTensor dense = sparse_dense(17, 40, 5, dt);
    auto csr = eval_all("csr_from_dense", {dense});
    ASSERT_EQ(csr.size(), 3u);
    HostTensor B = HostTensor::from_f64({40, 9}, [] {
      std::vector<double> b(360);
      for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<double>((i * 7919) % 1000) / 250.0 - 2.0;
      return b;
    }(), dt);
    HostTensor sp = eval1("csr_matmul", {csr[0], csr[1], csr[2], B});
    HostTensor dm = eval1("matmul", {eval1("csr_to_dense", {csr[0], csr[1], csr[2]}, {{"n_cols", 40}}), B});
    EXPECT_TRUE(sp.identical(dm)) << dtype_name(dt);
    EXPECT_TRUE(sp.identical(eval1("csr_matmul", {csr[0], csr[1], csr[2], B})));  // repeatable
  }
}

TEST(Csr, FromDenseKeepsNaNDropsZeros) {
  HostTensor x = f32({2, 3}, {0.0f, -0.0f, 5.0f, nanf(), 0.0f, -1.0f});
  auto csr = eval_all("csr_from_dense", {x}, {{"index_dtype", DType::i32}});
  ASSERT_EQ(csr.size(), 3u);
  EXPECT_EQ(csr[0].dtype(), DType::i32);
  EXPECT_EQ(values_i64(csr[0]), (V{0, 1, 3}));
  EXPECT_EQ(values_i64(csr[1]), (V{2, 0, 2}));
  auto v = values_f32(csr[2]);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0], 5.0f);
  EXPECT_EQ(bits(v[1]), 0x7FC00000u);
  EXPECT_EQ(v[2], -1.0f);
  HostTensor back = eval1("csr_to_dense", {csr[0], csr[1], csr[2]}, {{"n_cols", 3}});
  auto b = values_f32(back);
  EXPECT_EQ(bits(b[1]), 0u);  // -0 was not stored: +0 comes back
  EXPECT_EQ(b[2], 5.0f);
  EXPECT_EQ(bits(b[3]), 0x7FC00000u);
  auto empty = eval_all("csr_from_dense", {f32({0, 4}, {})});
  EXPECT_EQ(values_i64(empty[0]), (V{0}));
  EXPECT_EQ(empty[1].numel(), 0u);
}

TEST(Csr, FromCooSortsAndSumsDuplicatesCanonically) {
  // (1, 2) three times: the canonical tree gives (1e8 + -1e8) + 1 = 1, a sequential sum 0.
  HostTensor rows = i64({6}, {2, 1, 0, 1, 1, 2}), cols = i64({6}, {0, 2, 1, 2, 2, 0});
  HostTensor vals = f32({6}, {4, 1e8f, 7, 1, -1e8f, 0});
  auto csr = eval_all("csr_from_coo", {rows, cols, vals}, {{"n_rows", 4}, {"n_cols", 3}});
  ASSERT_EQ(csr.size(), 3u);
  EXPECT_EQ(values_i64(csr[0]), (V{0, 1, 2, 3, 3}));
  EXPECT_EQ(values_i64(csr[1]), (V{1, 2, 0}));
  EXPECT_EQ(values_f32(csr[2]), (std::vector<float>{7, 1, 4}));  // (2, 0): 4 + 0 (explicit zero summed in)
  EXPECT_EQ(failure("csr_from_coo", {rows, cols, vals}, {{"n_rows", 2}, {"n_cols", 3}}),
            "N0012 `csr_from_coo` refused its input: row index 2 of entry 0 is out of range [0, 2)");
  EXPECT_EQ(eval_codes("csr_from_coo", {rows, cols, vals}, {{"n_rows", 4}, {"n_cols", 2}}), std::vector<std::string>{"N0012"});
}

TEST(Csr, MalformedStructureIsAClearError) {
  HostTensor vals = f32({3}, {1, 2, 3}), B = f32({3, 1}, {1, 1, 1});
  auto msg = [&](V indptr, V indices) {
    return failure("csr_matmul", {i64({static_cast<std::uint64_t>(indptr.size())}, indptr), i64({3}, indices), vals, B});
  };
  const std::string pre = "N0012 `csr_matmul` refused its input: ";
  EXPECT_EQ(msg({1, 2, 2, 3}, {0, 2, 1}), pre + "indptr[0] is 1, must be 0");
  EXPECT_EQ(msg({0, 2, 1, 3}, {0, 2, 1}), pre + "indptr is not monotone: indptr[1] = 2 > indptr[2] = 1");
  EXPECT_EQ(msg({0, 2, 2, 2}, {0, 2, 1}), pre + "indptr[3] = 2 but there are 3 stored entries");
  EXPECT_EQ(msg({0, 2, 2, 3}, {0, 3, 1}), pre + "column index 3 in row 0 (entry 1) is out of range [0, 3)");
  EXPECT_EQ(msg({0, 2, 2, 3}, {0, 2, -1}), pre + "column index -1 in row 2 (entry 2) is out of range [0, 3)");
  EXPECT_EQ(msg({0, 2, 2, 3}, {2, 0, 1}),
            pre + "column indices of row 0 are not strictly increasing at entry 1 (0 after 2); CSR rows must be sorted "
                  "without duplicates");
  EXPECT_EQ(msg({0, 2, 2, 3}, {1, 1, 1}).substr(0, 5), "N0012");
  EXPECT_EQ(msg({0, 2, 2, 3}, {0, 2, 1}), "");
  EXPECT_EQ(failure("csr_to_dense", small_csr(), {{"n_cols", 2}}).substr(0, 5), "N0012");
}

TEST(Csr, ShapeRuleErrors) {
  auto a = small_csr();
  EXPECT_EQ(eval_codes("csr_matmul", {a[0], a[1], f32({2}, {1, 2}), f32({3, 1}, {1, 1, 1})}), std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval_codes("csr_matmul", {a[0], a[1], a[2], f32({3}, {1, 1, 1})}), std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval_codes("csr_matvec", {i64({4}, {0, 2, 2, 3}, DType::u8), i64({3}, {0, 2, 1}, DType::u8), a[2],
                                      f32({3}, {1, 1, 1})}),
            std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval_codes("csr_matvec", {i64({0}, {}), i64({0}, {}), f32({0}, {}), f32({3}, {1, 1, 1})}),
            std::vector<std::string>{"N0011"});
  EXPECT_EQ(eval_codes("csr_from_dense", {f32({3}, {1, 2, 3})}), std::vector<std::string>{"N0011"});
}

TEST(Csr, EmptyMatrixAndEmptyRows) {
  HostTensor y = eval1("csr_matmul", {i64({1}, {0}), i64({0}, {}), f32({0}, {}), f32({4, 2}, std::vector<float>(8, 1))});
  EXPECT_EQ(y.shape(), (Extents{0, 2}));
  HostTensor z = eval1("csr_matvec", {i64({3}, {0, 0, 0}), i64({0}, {}), f32({0}, {}), f32({2}, {inff(), nanf()})});
  EXPECT_EQ(values_f32(z), (std::vector<float>{0, 0}));  // no stored entry reads x
}

}  // namespace
}  // namespace rung::ops::testing
