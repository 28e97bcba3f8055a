#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "base/canonical.h"

namespace rung {

TEST(Canonical, IntegersAreFixedWidthLittleEndian) {
  CanonicalWriter w;
  w.u8(0xAB);
  w.u16(0x0102);
  w.u32(0x03040506);
  w.u64(0x0708090A0B0C0D0Eull);
  w.i64(-1);
  std::vector<std::uint8_t> want = {0xAB, 0x02, 0x01, 0x06, 0x05, 0x04, 0x03, 0x0E, 0x0D, 0x0C, 0x0B,
                                    0x0A, 0x09, 0x08, 0x07, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
  EXPECT_EQ(w.data(), want);
}

TEST(Canonical, StringsAreLengthPrefixed) {
  CanonicalWriter w;
  w.str("ab");
  w.str("");
  std::vector<std::uint8_t> want = {2, 0, 0, 0, 'a', 'b', 0, 0, 0, 0};
  EXPECT_EQ(w.data(), want);
}

TEST(Canonical, FloatsEncodeTheirBitsSoSignedZerosDiffer) {
  CanonicalWriter a, b;
  a.f64(0.0);
  b.f64(-0.0);
  EXPECT_NE(a.data(), b.data());
  EXPECT_EQ(b.data().back(), 0x80);
}

TEST(ByteReader, ReadsBackAndRefusesPastEnd) {
  CanonicalWriter w;
  w.u32(42);
  w.u16(7);
  ByteReader r(w.data(), 100);
  std::uint32_t a = 0;
  std::uint16_t b = 0;
  std::uint64_t c = 0;
  ASSERT_TRUE(r.u32(a));
  EXPECT_EQ(a, 42u);
  EXPECT_EQ(r.file_offset(), 104u);
  EXPECT_FALSE(r.u64(c));  // only 2 bytes left: fails without moving
  EXPECT_EQ(r.pos(), 4u);
  ASSERT_TRUE(r.u16(b));
  EXPECT_EQ(b, 7u);
  EXPECT_TRUE(r.at_end());
  std::span<const std::uint8_t> s;
  EXPECT_FALSE(r.take(1, s));
}

}  // namespace rung
