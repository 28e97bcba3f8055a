#include "base/canonical.h"

#include <limits>

#include "base/check.h"
#include "base/utf8.h"

namespace rung {

void CanonicalWriter::str(std::string_view s) {
  RUNG_CHECK(utf8::is_valid(s), "canonical strings must be valid UTF-8 (validate user text first)");
  RUNG_CHECK(s.size() <= std::numeric_limits<std::uint32_t>::max(), "string longer than 4 GiB");
  u32(static_cast<std::uint32_t>(s.size()));
  raw(s);
}

void CanonicalWriter::bytes(std::span<const std::uint8_t> b) {
  u64(b.size());
  raw(b);
}

void CanonicalWriter::patch_u32(std::size_t offset, std::uint32_t v) {
  RUNG_CHECK(offset + 4 <= out_.size(), "patch out of range");
  for (int i = 0; i < 4; ++i) out_[offset + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

void CanonicalWriter::patch_u64(std::size_t offset, std::uint64_t v) {
  RUNG_CHECK(offset + 8 <= out_.size(), "patch out of range");
  for (int i = 0; i < 8; ++i) out_[offset + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

bool ByteReader::hash(Hash256& h) {
  std::span<const std::uint8_t> b;
  if (!take(32, b)) return false;
  std::memcpy(h.bytes.data(), b.data(), 32);
  return true;
}

bool ByteReader::take(std::size_t n, std::span<const std::uint8_t>& out) {
  if (remaining() < n) return false;
  out = data_.subspan(pos_, n);
  pos_ += n;
  return true;
}

}  // namespace rung
