#include <gtest/gtest.h>

#include "base/utf8.h"

namespace rung {

TEST(Utf8, AcceptsValid) {
  EXPECT_TRUE(utf8::is_valid("plain ascii"));
  EXPECT_TRUE(utf8::is_valid("Gr\xC3\xBC\xC3\x9F" "e \xE2\x86\x92 \xF0\x9F\x98\x80"));
  char32_t cp;
  EXPECT_EQ(utf8::decode("\xE2\x86\x92", 0, cp), 3u);
  EXPECT_EQ(cp, U'\u2192');
}

TEST(Utf8, RejectsOverlongsSurrogatesAndTruncation) {
  EXPECT_FALSE(utf8::is_valid("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(utf8::is_valid("\xED\xA0\x80"));      // surrogate U+D800
  EXPECT_FALSE(utf8::is_valid("\xF4\x90\x80\x80"));  // > U+10FFFF
  EXPECT_FALSE(utf8::is_valid("ab\xE2\x86"));        // truncated
  EXPECT_FALSE(utf8::is_valid("\x80"));              // lone continuation
  EXPECT_EQ(utf8::first_invalid("ab\xFF" "cd"), 2u);
}

}  // namespace rung
