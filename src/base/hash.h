// SHA3-256 (FIPS 202; rung's own Keccak, no OpenSSL, so wasm32 gets the same fingerprints) and
// the 32-byte digest type every content address uses (nodes, regions, graphs, types, kernels).
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace rung {

struct Hash256 {
  std::array<std::uint8_t, 32> bytes{};

  // Spelled out (not `= default`): libc++ 13 (emscripten 3.1.6) has no <=> for std::array.
  // memcmp's unsigned byte order is the defaulted member-wise order.
  bool operator==(const Hash256& o) const { return bytes == o.bytes; }
  std::strong_ordering operator<=>(const Hash256& o) const { return std::memcmp(bytes.data(), o.bytes.data(), bytes.size()) <=> 0; }
  std::string hex() const;
  std::string short_hex(std::size_t nibbles = 12) const { return hex().substr(0, nibbles); }
  static std::optional<Hash256> from_hex(std::string_view hex);
};

struct Hash256Hasher {
  std::size_t operator()(const Hash256& h) const noexcept;
};

// Incremental SHA3-256. Not copyable; one digest per object.
class Sha3_256 {
 public:
  Sha3_256();
  ~Sha3_256();
  Sha3_256(const Sha3_256&) = delete;
  Sha3_256& operator=(const Sha3_256&) = delete;

  void update(std::span<const std::uint8_t> data);
  void update(std::string_view data);
  Hash256 finish();

 private:
  void* ctx_;  // the Keccak state and the absorbed block position (hash.cpp's Sponge)
  bool finished_ = false;
};

Hash256 sha3_256(std::span<const std::uint8_t> data);
Hash256 sha3_256(std::string_view data);

}  // namespace rung
