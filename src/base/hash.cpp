#include "base/hash.h"

#include <openssl/evp.h>

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

Sha3_256::Sha3_256() : ctx_(EVP_MD_CTX_new()) {
  RUNG_CHECK(ctx_ != nullptr, "EVP_MD_CTX_new failed");
  RUNG_CHECK(EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(ctx_), EVP_sha3_256(), nullptr) == 1,
             "SHA3-256 unavailable in this OpenSSL");
}

Sha3_256::~Sha3_256() { EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_)); }

void Sha3_256::update(std::span<const std::uint8_t> data) {
  RUNG_CHECK(!finished_, "update after finish");
  if (data.empty()) return;
  RUNG_CHECK(EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), data.data(), data.size()) == 1,
             "EVP_DigestUpdate failed");
}

void Sha3_256::update(std::string_view data) {
  update(std::span(reinterpret_cast<const std::uint8_t*>(data.data()), data.size()));
}

Hash256 Sha3_256::finish() {
  RUNG_CHECK(!finished_, "finish called twice");
  finished_ = true;
  Hash256 h;
  unsigned int len = 0;
  RUNG_CHECK(EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(ctx_), h.bytes.data(), &len) == 1 && len == 32,
             "EVP_DigestFinal_ex failed");
  return h;
}

Hash256 sha3_256(std::span<const std::uint8_t> data) {
  // One context per thread, re-initialised per digest: creating an EVP context costs more
  // than hashing a typical node's few hundred bytes.
  struct Ctx {
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    const EVP_MD* md = EVP_sha3_256();
    ~Ctx() { EVP_MD_CTX_free(ctx); }
  };
  thread_local Ctx c;
  RUNG_CHECK(c.ctx != nullptr, "EVP_MD_CTX_new failed");
  Hash256 h;
  unsigned int len = 0;
  RUNG_CHECK(EVP_DigestInit_ex(c.ctx, c.md, nullptr) == 1 && EVP_DigestUpdate(c.ctx, data.data(), data.size()) == 1 &&
                 EVP_DigestFinal_ex(c.ctx, h.bytes.data(), &len) == 1 && len == 32,
             "SHA3-256 failed");
  return h;
}

Hash256 sha3_256(std::string_view data) {
  Sha3_256 s;
  s.update(data);
  return s.finish();
}

}  // namespace rung
