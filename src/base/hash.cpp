#include "base/hash.h"

#include <array>
#include <cstring>

#include "base/check.h"

namespace rung {

std::string Hash256::hex() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(64, '0');
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    out[2 * i] = kDigits[bytes[i] >> 4];
    out[2 * i + 1] = kDigits[bytes[i] & 0xF];
  }
  return out;
}

std::optional<Hash256> Hash256::from_hex(std::string_view hex) {
  if (hex.size() != 64) return std::nullopt;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  Hash256 h;
  for (std::size_t i = 0; i < 32; ++i) {
    int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    h.bytes[i] = static_cast<std::uint8_t>(hi << 4 | lo);
  }
  return h;
}

std::size_t Hash256Hasher::operator()(const Hash256& h) const noexcept {
  std::size_t v;
  std::memcpy(&v, h.bytes.data(), sizeof v);  // already uniformly distributed
  return v;
}

namespace {

// Keccak-f[1600] (FIPS 202, section 3): 24 rounds of theta, rho, pi, chi and iota on 25
// 64-bit lanes. Lanes are read and written little-endian byte by byte, so the digest does not
// depend on the host's byte order.
constexpr std::uint64_t kRoundConstants[24] = {
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL, 0x8000000080008000ULL, 0x000000000000808bULL,
    0x0000000080000001ULL, 0x8000000080008081ULL, 0x8000000000008009ULL, 0x000000000000008aULL, 0x0000000000000088ULL,
    0x0000000080008009ULL, 0x000000008000000aULL, 0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL,
    0x8000000000008003ULL, 0x8000000000008002ULL, 0x8000000000000080ULL, 0x000000000000800aULL, 0x800000008000000aULL,
    0x8000000080008081ULL, 0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL};
// rho's rotation and pi's destination for lanes visited in pi's cycle from (1, 0).
constexpr int kRho[24] = {1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 2, 14, 27, 41, 56, 8, 25, 43, 62, 18, 39, 61, 20, 44};
constexpr int kPi[24] = {10, 7, 11, 17, 18, 3, 5, 16, 8, 21, 24, 4, 15, 23, 19, 13, 12, 2, 20, 14, 22, 9, 6, 1};

inline std::uint64_t rotl(std::uint64_t v, int n) { return (v << n) | (v >> (64 - n)); }

// On a local copy of the lanes with every inner loop unrolled: the compiler then keeps the
// state in registers (about 5x faster than through the array).
void keccak_f1600(std::array<std::uint64_t, 25>& state) {
  std::uint64_t a[25];
  for (int i = 0; i < 25; ++i) a[i] = state[static_cast<std::size_t>(i)];
  for (std::uint64_t rc : kRoundConstants) {
    std::uint64_t c[5];
#pragma GCC unroll 5
    for (int x = 0; x < 5; ++x) c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
#pragma GCC unroll 5
    for (int x = 0; x < 5; ++x) {
      const std::uint64_t d = c[(x + 4) % 5] ^ rotl(c[(x + 1) % 5], 1);
#pragma GCC unroll 5
      for (int y = 0; y < 25; y += 5) a[y + x] ^= d;
    }
    std::uint64_t carry = a[1];
#pragma GCC unroll 24
    for (int i = 0; i < 24; ++i) {
      std::uint64_t next = a[kPi[i]];
      a[kPi[i]] = rotl(carry, kRho[i]);
      carry = next;
    }
#pragma GCC unroll 5
    for (int y = 0; y < 25; y += 5) {
      const std::uint64_t r0 = a[y], r1 = a[y + 1], r2 = a[y + 2], r3 = a[y + 3], r4 = a[y + 4];
      a[y] = r0 ^ (~r1 & r2);
      a[y + 1] = r1 ^ (~r2 & r3);
      a[y + 2] = r2 ^ (~r3 & r4);
      a[y + 3] = r3 ^ (~r4 & r0);
      a[y + 4] = r4 ^ (~r0 & r1);
    }
    a[0] ^= rc;
  }
  for (int i = 0; i < 25; ++i) state[static_cast<std::size_t>(i)] = a[i];
}

inline void xor_byte(std::array<std::uint64_t, 25>& a, std::size_t i, std::uint8_t b) {
  a[i / 8] ^= std::uint64_t{b} << (8 * (i % 8));
}

// The sponge: 25 lanes and how many bytes of the current block are absorbed.
struct Sponge {
  std::array<std::uint64_t, 25> lanes{};
  std::size_t pos = 0;
};
constexpr std::size_t kRate = 136;  // bytes absorbed per permutation: (1600 - 2 * 256) / 8

}  // namespace

Sha3_256::Sha3_256() : ctx_(new Sponge) {}
Sha3_256::~Sha3_256() { delete static_cast<Sponge*>(ctx_); }

void Sha3_256::update(std::span<const std::uint8_t> data) {
  RUNG_CHECK(!finished_, "update after finish");
  Sponge& s = *static_cast<Sponge*>(ctx_);
  std::size_t i = 0;
  while (i < data.size()) {
    if (s.pos % 8 == 0 && data.size() - i >= 8) {  // a whole lane at a time while aligned to one
      std::uint64_t lane = 0;
      for (int k = 7; k >= 0; --k) lane = lane << 8 | data[i + static_cast<std::size_t>(k)];
      s.lanes[s.pos / 8] ^= lane;
      s.pos += 8;
      i += 8;
    } else {
      xor_byte(s.lanes, s.pos++, data[i++]);
    }
    if (s.pos == kRate) {
      keccak_f1600(s.lanes);
      s.pos = 0;
    }
  }
}

void Sha3_256::update(std::string_view data) {
  update(std::span(reinterpret_cast<const std::uint8_t*>(data.data()), data.size()));
}

Hash256 Sha3_256::finish() {
  RUNG_CHECK(!finished_, "finish called twice");
  finished_ = true;
  Sponge& s = *static_cast<Sponge*>(ctx_);
  // SHA3's domain bits 01, then pad10*1 (FIPS 202, B.2: 0x06 ... 0x80, one byte 0x86 if adjacent).
  xor_byte(s.lanes, s.pos, 0x06);
  xor_byte(s.lanes, kRate - 1, 0x80);
  keccak_f1600(s.lanes);
  Hash256 h;
  for (std::size_t i = 0; i < h.bytes.size(); ++i) h.bytes[i] = static_cast<std::uint8_t>(s.lanes[i / 8] >> (8 * (i % 8)));
  return h;
}

Hash256 sha3_256(std::span<const std::uint8_t> data) {
  Sha3_256 s;
  s.update(data);
  return s.finish();
}

Hash256 sha3_256(std::string_view data) {
  Sha3_256 s;
  s.update(data);
  return s.finish();
}

}  // namespace rung
