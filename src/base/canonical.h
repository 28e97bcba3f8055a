// The canonical binary encoding: the one byte form every hash in rung is computed over.
//
//   integers  fixed width, little-endian (u8, u16, u32, u64; i64 as two's complement u64)
//   f64       its IEEE-754 bit pattern as u64 (so -0.0 and 0.0, and NaN payloads, differ)
//   bool      one byte, 0 or 1
//   string    u32 byte length, then the bytes; must be valid UTF-8
//   bytes     u64 byte length, then the bytes
//   map       u32 entry count, then entries sorted by key bytes (memcmp order), keys unique
//
// The encoding is documented in docs/graph-ir.md; a change to it changes every hash, and
// the golden-fingerprint test exists to catch that.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/hash.h"

namespace rung {

class CanonicalWriter {
 public:
  void u8(std::uint8_t v) { out_.push_back(v); }
  void u16(std::uint16_t v) { put_le(v, 2); }
  void u32(std::uint32_t v) { put_le(v, 4); }
  void u64(std::uint64_t v) { put_le(v, 8); }
  void i64(std::int64_t v) { u64(static_cast<std::uint64_t>(v)); }
  void f64(double v) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    u64(bits);
  }
  void boolean(bool v) { u8(v ? 1 : 0); }
  void str(std::string_view s);  // RUNG_CHECKs valid UTF-8: callers validate user text first
  void bytes(std::span<const std::uint8_t> b);
  void hash(const Hash256& h) { raw(h.bytes); }
  void raw(std::span<const std::uint8_t> b) { out_.insert(out_.end(), b.begin(), b.end()); }
  void raw(std::string_view s) { out_.insert(out_.end(), s.begin(), s.end()); }

  // Patch a u32/u64 written earlier at `offset` (used for length fields known only later).
  void patch_u32(std::size_t offset, std::uint32_t v);
  void patch_u64(std::size_t offset, std::uint64_t v);

  std::size_t size() const { return out_.size(); }
  const std::vector<std::uint8_t>& data() const { return out_; }
  std::vector<std::uint8_t> take() { return std::move(out_); }

 private:
  void put_le(std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  std::vector<std::uint8_t> out_;
};

// A bounds-checked cursor over untrusted bytes. Every read either succeeds completely or
// fails without moving and without touching memory past the end; callers turn failures
// into diagnostics that name the offset.
class ByteReader {
 public:
  explicit ByteReader(std::span<const std::uint8_t> data, std::size_t base_offset = 0)
      : data_(data), base_(base_offset) {}

  bool u8(std::uint8_t& v) { return get_le(v, 1); }
  bool u16(std::uint16_t& v) { return get_le(v, 2); }
  bool u32(std::uint32_t& v) { return get_le(v, 4); }
  bool u64(std::uint64_t& v) { return get_le(v, 8); }
  bool i64(std::int64_t& v) {
    std::uint64_t u;
    if (!u64(u)) return false;
    v = static_cast<std::int64_t>(u);
    return true;
  }
  bool f64(double& v) {
    std::uint64_t u;
    if (!u64(u)) return false;
    std::memcpy(&v, &u, sizeof v);
    return true;
  }
  bool hash(Hash256& h);
  bool take(std::size_t n, std::span<const std::uint8_t>& out);

  std::size_t pos() const { return pos_; }                  // within this reader
  std::size_t file_offset() const { return base_ + pos_; }  // within the whole file
  std::size_t remaining() const { return data_.size() - pos_; }
  bool at_end() const { return pos_ == data_.size(); }

 private:
  template <typename T>
  bool get_le(T& v, std::size_t n) {
    if (remaining() < n) return false;
    std::uint64_t acc = 0;
    for (std::size_t i = 0; i < n; ++i) acc |= std::uint64_t{data_[pos_ + i]} << (8 * i);
    v = static_cast<T>(acc);
    pos_ += n;
    return true;
  }
  std::span<const std::uint8_t> data_;
  std::size_t base_;
  std::size_t pos_ = 0;
};

}  // namespace rung
