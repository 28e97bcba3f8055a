// Byte-level editing of .keg files for tests and the fuzzer: find a section, patch its
// table entry or content, and recompute checksums so an edit reaches the section parsers
// instead of stopping at the checksum check.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "base/hash.h"
#include "ir/graph/keg_format.h"

namespace rung::keg_surgery {

using Bytes = std::vector<std::uint8_t>;

inline std::uint64_t get_le(const Bytes& b, std::size_t at, int n) {
  std::uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= std::uint64_t{b.at(at + i)} << (8 * i);
  return v;
}
inline void put_le(Bytes& b, std::size_t at, std::uint64_t v, int n) {
  for (int i = 0; i < n; ++i) b.at(at + i) = static_cast<std::uint8_t>(v >> (8 * i));
}

inline std::uint32_t section_count(const Bytes& b) { return static_cast<std::uint32_t>(get_le(b, 12, 4)); }
inline std::uint64_t table_offset(const Bytes& b) { return get_le(b, 16, 8); }
inline std::size_t entry_at(const Bytes& b, std::uint32_t i) { return table_offset(b) + std::size_t{i} * keg::kEntrySize; }

// Byte offset of the table entry for `kind`, if the table is readable.
inline std::optional<std::size_t> find_entry(const Bytes& b, keg::SectionKind kind) {
  if (b.size() < keg::kHeaderSize) return std::nullopt;
  std::uint32_t n = section_count(b);
  std::uint64_t t = table_offset(b);
  if (n > keg::kMaxSections || t > b.size() || std::uint64_t{n} * keg::kEntrySize > b.size() - t) return std::nullopt;
  for (std::uint32_t i = 0; i < n; ++i)
    if (get_le(b, entry_at(b, i), 4) == static_cast<std::uint32_t>(kind)) return entry_at(b, i);
  return std::nullopt;
}
inline std::uint64_t section_offset(const Bytes& b, keg::SectionKind k) { return get_le(b, *find_entry(b, k) + 8, 8); }
inline std::uint64_t section_length(const Bytes& b, keg::SectionKind k) { return get_le(b, *find_entry(b, k) + 16, 8); }

// Recomputes every section checksum whose range lies inside the file.
inline void repair_checksums(Bytes& b) {
  if (b.size() < keg::kHeaderSize) return;
  std::uint32_t n = section_count(b);
  std::uint64_t t = table_offset(b);
  if (n > keg::kMaxSections || t > b.size() || std::uint64_t{n} * keg::kEntrySize > b.size() - t) return;
  for (std::uint32_t i = 0; i < n; ++i) {
    std::size_t e = entry_at(b, i);
    std::uint64_t off = get_le(b, e + 8, 8), len = get_le(b, e + 16, 8);
    if (off > b.size() || len > b.size() - off) continue;
    Hash256 h = sha3_256(std::span(b.data() + off, len));
    std::memcpy(b.data() + e + 24, h.bytes.data(), 32);
  }
}

}  // namespace rung::keg_surgery
