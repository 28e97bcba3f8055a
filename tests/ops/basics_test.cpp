// End-to-end checks of one op per family through evaluate(): hand-computed values.
#include "op_test_util.h"

namespace rung::ops::testing {
namespace {

TEST(Basics, AddBroadcastsRowsAndColumns) {
  HostTensor y = eval1("add", {f32({2, 1}, {10, 20}), f32({3}, {1, 2, 3})});
  EXPECT_EQ(y.shape(), (Extents{2, 3}));
  EXPECT_EQ(values_f32(y), (std::vector<float>{11, 12, 13, 21, 22, 23}));
}

TEST(Basics, ExpOfSmallIntegers) {
  HostTensor y = eval1("exp", {f32({3}, {0.0f, 1.0f, -1.0f})});
  auto v = values_f32(y);
  EXPECT_SAME_BITS(v[0], 1.0f);
  EXPECT_SAME_BITS(v[1], 2.71828182845904523536f);  // e rounded to f32
  EXPECT_SAME_BITS(v[2], 0.36787944117144233f);
}

TEST(Basics, SumOverAxes) {
  HostTensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(values_f32(eval1("sum", {x})), (std::vector<float>{21}));
  EXPECT_EQ(values_f32(eval1("sum", {x}, {{"axes", std::vector<std::int64_t>{0}}})), (std::vector<float>{5, 7, 9}));
  HostTensor k = eval1("sum", {x}, {{"axes", std::vector<std::int64_t>{1}}, {"keepdims", true}});
  EXPECT_EQ(k.shape(), (Extents{2, 1}));
  EXPECT_EQ(values_f32(k), (std::vector<float>{6, 15}));
}

TEST(Basics, MatmulTwoByTwo) {
  HostTensor y = eval1("matmul", {f32({2, 2}, {1, 2, 3, 4}), f32({2, 2}, {5, 6, 7, 8})});
  EXPECT_EQ(values_f32(y), (std::vector<float>{19, 22, 43, 50}));
}

TEST(Basics, BadInputsAreDiagnosticsNotCrashes) {
  EXPECT_EQ(eval_codes("nope", {}), (std::vector<std::string>{"N0010"}));
  EXPECT_EQ(eval_codes("add", {f32({2}, {1, 2}), f32({3}, {1, 2, 3})}), (std::vector<std::string>{"N0011"}));
  EXPECT_EQ(eval_codes("exp", {i64({1}, {1})}), (std::vector<std::string>{"N0011"}));
}

}  // namespace
}  // namespace rung::ops::testing
