// Comparisons (IEEE: NaN unordered, -0 == +0), logical ops and where/select.
#include "op_test_util.h"

namespace rung::ops::testing {
namespace {

std::vector<std::int64_t> cmp(std::string_view op, std::vector<float> a, std::vector<float> b) {
  auto n = a.size();
  HostTensor y = eval1(op, {f32({n}, a), f32({n}, b)});
  EXPECT_EQ(y.dtype(), DType::boolean);
  return values_i64(y);
}

TEST(Compare, IeeeSemantics) {
  std::vector<float> a = {1, -0.0f, nanf(), nanf(), -inff(), 2};
  std::vector<float> b = {2, 0.0f, nanf(), 1, -inff(), 1};
  EXPECT_EQ(cmp("eq", a, b), (std::vector<std::int64_t>{0, 1, 0, 0, 1, 0}));
  EXPECT_EQ(cmp("ne", a, b), (std::vector<std::int64_t>{1, 0, 1, 1, 0, 1}));
  EXPECT_EQ(cmp("lt", a, b), (std::vector<std::int64_t>{1, 0, 0, 0, 0, 0}));
  EXPECT_EQ(cmp("le", a, b), (std::vector<std::int64_t>{1, 1, 0, 0, 1, 0}));
  EXPECT_EQ(cmp("gt", a, b), (std::vector<std::int64_t>{0, 0, 0, 0, 0, 1}));
  EXPECT_EQ(cmp("ge", a, b), (std::vector<std::int64_t>{0, 1, 0, 0, 1, 1}));
}

TEST(Compare, IntegersBoolsAndBroadcasting) {
  HostTensor y = eval1("lt", {i64({3}, {-1, 5, 7}, DType::i8), i64({1}, {5}, DType::i8)});
  EXPECT_EQ(values_i64(y), (std::vector<std::int64_t>{1, 0, 0}));
  HostTensor u = eval1("gt", {i64({2}, {0, 200}, DType::u8), i64({2}, {255, 100}, DType::u8)});
  EXPECT_EQ(values_i64(u), (std::vector<std::int64_t>{0, 1}));
  HostTensor b = eval1("eq", {i64({2}, {1, 0}, DType::boolean), i64({2}, {1, 1}, DType::boolean)});
  EXPECT_EQ(values_i64(b), (std::vector<std::int64_t>{1, 0}));
  EXPECT_EQ(eval_codes("lt", {i64({1}, {1}, DType::boolean), i64({1}, {0}, DType::boolean)}),
            (std::vector<std::string>{"N0011"}));  // bools are not ordered
}

TEST(Logical, TruthTables) {
  HostTensor a = i64({4}, {0, 0, 1, 1}, DType::boolean), b = i64({4}, {0, 1, 0, 1}, DType::boolean);
  EXPECT_EQ(values_i64(eval1("logical_and", {a, b})), (std::vector<std::int64_t>{0, 0, 0, 1}));
  EXPECT_EQ(values_i64(eval1("logical_or", {a, b})), (std::vector<std::int64_t>{0, 1, 1, 1}));
  EXPECT_EQ(values_i64(eval1("logical_xor", {a, b})), (std::vector<std::int64_t>{0, 1, 1, 0}));
  EXPECT_EQ(values_i64(eval1("logical_not", {a})), (std::vector<std::int64_t>{1, 1, 0, 0}));
  EXPECT_EQ(eval_codes("logical_and", {f32({1}, {1}), f32({1}, {1})}), (std::vector<std::string>{"N0011"}));
}

TEST(Where, SelectsWithBroadcastingAndCopiesBits) {
  HostTensor cond = i64({2, 1}, {1, 0}, DType::boolean);
  HostTensor a = f32({3}, {-0.0f, 1, 2});
  HostTensor b = scalar(9.0f);
  HostTensor y = eval1("where", {cond, a, b});
  EXPECT_EQ(y.shape(), (Extents{2, 3}));
  auto v = values_f32(y);
  EXPECT_SAME_BITS(v[0], -0.0f);
  EXPECT_EQ(v, (std::vector<float>{-0.0f, 1, 2, 9, 9, 9}));
  HostTensor yi = eval1("where", {i64({2}, {0, 1}, DType::boolean), i64({2}, {1, 2}), i64({2}, {3, 4})});
  EXPECT_EQ(values_i64(yi), (std::vector<std::int64_t>{3, 2}));
  EXPECT_EQ(eval_codes("where", {f32({1}, {1}), a, a}), (std::vector<std::string>{"N0011"}));  // cond must be bool
  EXPECT_EQ(eval_codes("where", {cond, a, i64({1}, {1})}), (std::vector<std::string>{"N0011"}));  // a, b share T
}

}  // namespace
}  // namespace rung::ops::testing
