#include "syntax/literal.h"

#include <gtest/gtest.h>

namespace rung::syntax {
namespace {

TEST(Literal, Integers) {
  EXPECT_EQ(int_value("42"), 42u);
  EXPECT_EQ(int_value("1_000_000"), 1000000u);
  EXPECT_EQ(int_value("0x2A"), 42u);
  EXPECT_EQ(int_value("0XfF"), 255u);
  EXPECT_EQ(int_value("0b1010_1010"), 170u);
  EXPECT_EQ(int_value("0o17"), 15u);
  EXPECT_EQ(int_value("18446744073709551615"), UINT64_MAX);
  EXPECT_FALSE(int_value("18446744073709551616"));
  EXPECT_FALSE(int_value("0x"));
  EXPECT_FALSE(int_value("0b2"));
  EXPECT_FALSE(int_value("12abc"));
}

TEST(Literal, FloatsRoundCorrectly) {
  EXPECT_EQ(float_value("1.5"), 1.5);
  EXPECT_EQ(float_value("1e-3"), 1e-3);
  EXPECT_EQ(float_value("2E+10"), 2e10);
  EXPECT_EQ(float_value("1_000.25"), 1000.25);
  EXPECT_EQ(float_value("0.1"), 0.1);  // the double nearest 0.1, as the C++ literal
  EXPECT_FALSE(float_value("1e"));
  EXPECT_FALSE(float_value("1.5f32"));
}

TEST(Literal, Strings) {
  EXPECT_EQ(string_value(R"("plain")"), "plain");
  EXPECT_EQ(string_value(R"("a\n\t\\\"\r")"), "a\n\t\\\"\r");
  EXPECT_EQ(string_value(R"("\0")"), std::string(1, '\0'));
  EXPECT_EQ(string_value(R"("\u{41}\u{e9}\u{1F600}")"), "A\xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_FALSE(string_value(R"("\q")"));
  EXPECT_FALSE(string_value(R"("\u{D800}")"));
  EXPECT_FALSE(string_value(R"("open)"));
}

}  // namespace
}  // namespace rung::syntax
