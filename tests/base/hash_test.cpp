#include <gtest/gtest.h>

#include <openssl/evp.h>

#include <random>

#include "base/hash.h"

namespace rung {

// FIPS 202 test vectors.
TEST(Sha3, EmptyString) {
  EXPECT_EQ(sha3_256("").hex(), "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a");
}

TEST(Sha3, Abc) {
  EXPECT_EQ(sha3_256("abc").hex(), "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532");
}

TEST(Sha3, LongerVectors) {
  EXPECT_EQ(sha3_256(std::string(1000000, 'a')).hex(), "5c8875ae474a3634ba4fd55ec85bffd661f32aca75c6d699d0cdcb6c115891c1");
  EXPECT_EQ(sha3_256(std::string(200, '\xa3')).hex(), "79f38adec5c20307a98ef76e8324afbfd46cfd81b22e3973c65fa1bd9de31787");
  EXPECT_EQ(sha3_256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq").hex(),
            "41c0dba2a9d6240849100376a8235e2c82e1b9998a999e21db32dd97496d3376");
}

// rung's Keccak against OpenSSL's SHA3-256 on every length around the 136-byte block (the
// padding's two cases: 0x06 and 0x80 in one byte at length 135 mod 136) and random inputs
// fed in random pieces, so fingerprints made before rung had its own are unchanged.
TEST(Sha3, EqualsOpenSsl) {
  auto openssl = [](const std::string& m) {
    Hash256 h;
    unsigned len = 0;
    EVP_MD_CTX* c = EVP_MD_CTX_new();
    EXPECT_TRUE(EVP_DigestInit_ex(c, EVP_sha3_256(), nullptr) == 1 && EVP_DigestUpdate(c, m.data(), m.size()) == 1 &&
                EVP_DigestFinal_ex(c, h.bytes.data(), &len) == 1 && len == 32);
    EVP_MD_CTX_free(c);
    return h;
  };
  std::mt19937 rng(5);
  for (std::size_t n = 0; n < 700; ++n) {
    std::string m(n, '\0');
    for (auto& ch : m) ch = static_cast<char>(rng());
    ASSERT_EQ(sha3_256(m), openssl(m)) << "length " << n;
    Sha3_256 s;
    for (std::size_t i = 0; i < n;) {
      std::size_t piece = std::min<std::size_t>(n - i, rng() % 20);
      s.update(std::string_view(m).substr(i, piece));
      i += piece;
    }
    ASSERT_EQ(s.finish(), openssl(m)) << "length " << n << " in pieces";
  }
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
