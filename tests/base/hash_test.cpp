#include <gtest/gtest.h>

#include "base/hash.h"

namespace rung {

// FIPS 202 test vectors.
TEST(Sha3, EmptyString) {
  EXPECT_EQ(sha3_256("").hex(), "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a");
}

TEST(Sha3, Abc) {
  EXPECT_EQ(sha3_256("abc").hex(), "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532");
}

TEST(Sha3, IncrementalEqualsOneShot) {
  std::string data(10000, '\0');
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 31 + 7);
  Sha3_256 s;
  s.update(std::string_view(data).substr(0, 137));
  s.update(std::string_view(data).substr(137));
  EXPECT_EQ(s.finish(), sha3_256(data));
}

TEST(Hash256, HexRoundTrip) {
  Hash256 h = sha3_256("rung");
  auto back = Hash256::from_hex(h.hex());
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, h);
  EXPECT_FALSE(Hash256::from_hex("zz").has_value());
  EXPECT_FALSE(Hash256::from_hex(std::string(64, 'g')).has_value());
  EXPECT_EQ(h.short_hex().size(), 12u);
}

}  // namespace rung
