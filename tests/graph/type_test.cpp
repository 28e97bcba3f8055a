#include <gtest/gtest.h>

#include "ir/graph/type.h"

namespace rung {

TEST(TensorType, IdentityIsTheCanonicalHash) {
  TensorType a = tensor(DType::f32, {Dim::symbol("B"), Dim::fixed(784)});
  TensorType b = tensor(DType::f32, {Dim::symbol("B"), Dim::fixed(784)});
  EXPECT_EQ(a.type_id(), b.type_id());
  EXPECT_EQ(a, b);
  // Each field takes part in the identity.
  EXPECT_NE(a.type_id(), tensor(DType::bf16, {Dim::symbol("B"), Dim::fixed(784)}).type_id());
  EXPECT_NE(a.type_id(), tensor(DType::f32, {Dim::symbol("N"), Dim::fixed(784)}).type_id());
  EXPECT_NE(a.type_id(), tensor(DType::f32, {Dim::symbol("B"), Dim::fixed(785)}).type_id());
  EXPECT_NE(a.type_id(), tensor(DType::f32, {Dim::symbol("B"), Dim::fixed(784)}, MemSpace::device).type_id());
  EXPECT_NE(a.type_id(), tensor(DType::f32, {Dim::symbol("B")}).type_id());
}

TEST(TensorType, StaticDimTwoIsNotSymbolTwo) {
  EXPECT_NE(tensor(DType::f32, {Dim::fixed(2)}).type_id(), tensor(DType::f32, {Dim::symbol("2")}).type_id());
}

TEST(TensorType, SizesAndPrinting) {
  TensorType t = tensor(DType::f16, {Dim::fixed(3), Dim::fixed(5)}, MemSpace::pinned);
  EXPECT_EQ(t.element_count(), 15u);
  EXPECT_EQ(t.byte_size(), 30u);
  EXPECT_EQ(t.to_string(), "f16[3, 5] @pinned");
  EXPECT_EQ(tensor(DType::f32, {}).to_string(), "f32");
  EXPECT_FALSE(tensor(DType::f32, {Dim::symbol("B")}).byte_size().has_value());
  EXPECT_FALSE(tensor(DType::f32, {Dim::fixed(1ull << 40), Dim::fixed(1ull << 40)}).element_count().has_value());
}

TEST(DType, QuantizedBlockFormats) {
  EXPECT_EQ(storage_bytes(DType::q8_0, 64), 68u);  // 2 blocks x (2-byte scale + 32 int8)
  EXPECT_EQ(storage_bytes(DType::q4_0, 64), 36u);  // 2 blocks x (2-byte scale + 16 bytes)
  EXPECT_FALSE(storage_bytes(DType::q4_0, 33).has_value());
  EXPECT_EQ(dtype_from_name("bf16"), DType::bf16);
  EXPECT_EQ(dtype_from_name("bool"), DType::boolean);
  EXPECT_FALSE(dtype_from_name("f8").has_value());
  EXPECT_FALSE(dtype_from_code(0).has_value());
  EXPECT_FALSE(dtype_from_code(kDTypeMaxCode + 1).has_value());
  for (std::uint8_t c = 1; c <= kDTypeMaxCode; ++c) EXPECT_EQ(static_cast<std::uint8_t>(dtype_info(*dtype_from_code(c)).dtype), c);
}

}  // namespace rung

#include "ir/graph/type_parse.h"

namespace rung {

TEST(ParseType, InvertsToString) {
  for (const TensorType& t : {tensor(DType::f32, {}), tensor(DType::bf16, {Dim::symbol("B"), Dim::fixed(784)}),
                              tensor(DType::q8_0, {Dim::fixed(64)}, MemSpace::device), tensor(DType::boolean, {Dim::symbol("T_1")})}) {
    std::string err;
    auto back = parse_type(t.to_string(), err);
    ASSERT_TRUE(back) << err;
    EXPECT_EQ(back->type_id(), t.type_id()) << t.to_string();
  }
}

TEST(ParseType, ErrorsSayWhere) {
  std::string err;
  EXPECT_FALSE(parse_type("f33[2]", err));
  EXPECT_NE(err.find("unknown element type `f33`"), std::string::npos);
  EXPECT_FALSE(parse_type("f32[2,", err));
  EXPECT_FALSE(parse_type("f32[]", err));
  EXPECT_FALSE(parse_type("f32[2] @gpu", err));
  EXPECT_NE(err.find("unknown memory space"), std::string::npos);
  EXPECT_FALSE(parse_type("f32[99999999999999999999999]", err));
  EXPECT_FALSE(parse_type("f32[2] junk", err));
}

}  // namespace rung
