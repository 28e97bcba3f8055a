// A tensor in host memory, as the reference kernels read and write it: element type, static
// shape, and the elements as contiguous row-major little-endian bytes (the same layout as a
// `const` node's value). f16 and bf16 are storage types: `load_f32` widens exactly and
// `store_f32` rounds to nearest even.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ir/graph/type.h"

namespace rung::ops {

using Extents = std::vector<std::uint64_t>;

//
// Copies are deep (value semantics). `share()` is the O(1) copy for executors that pass
// large values around (the region walk): the two tensors hold the same bytes until either is
// written through a non-const accessor (`bytes()`, `set_raw`, `store_*`,
// `canonicalize_nans`), which first gives the writer its own copy. A mutable span taken
// before a `share()` must not be written after it.
class HostTensor {
 public:
  HostTensor() = default;
  // Zero-filled. RUNG_CHECKs that the byte size is representable (callers check untrusted
  // sizes first with `checked_bytes`).
  HostTensor(DType dtype, Extents shape);
  HostTensor(DType dtype, Extents shape, std::vector<std::uint8_t> bytes);  // RUNG_CHECKs the length
  // The elements are unspecified: for a kernel that writes every element (saves the zero
  // fill, a whole extra pass over memory for large outputs).
  static HostTensor uninitialized(DType dtype, Extents shape);

  HostTensor(const HostTensor& o);
  HostTensor& operator=(const HostTensor& o);
  HostTensor(HostTensor&& o) noexcept { take(o); }
  HostTensor& operator=(HostTensor&& o) noexcept {
    if (this != &o) take(o);
    return *this;
  }
  ~HostTensor() = default;

  HostTensor share() const;  // same bytes, no copy (see above); a moved-from tensor is empty
  // Someone else's bytes used in place (the public API's zero-copy inputs): never written,
  // since every writer first copies them; `release` runs when the last sharer goes.
  // RUNG_CHECKs the length (callers check untrusted sizes first).
  static HostTensor adopt(DType dtype, Extents shape, const void* data, std::size_t bytes, std::function<void()> release);
  bool adopted() const;  // the bytes are someone else's (adopt), not yet copied

  static std::optional<std::uint64_t> checked_bytes(DType dtype, const Extents& shape);

  // Convenience constructors for tests and tools; values are rounded to `dtype`.
  static HostTensor from_f32(Extents shape, std::span<const float> values, DType dtype = DType::f32);
  static HostTensor from_f64(Extents shape, std::span<const double> values, DType dtype = DType::f64);
  static HostTensor from_i64(Extents shape, std::span<const std::int64_t> values, DType dtype = DType::i64);
  static HostTensor scalar_f32(float v) { return from_f32({}, std::span<const float>(&v, 1)); }

  DType dtype() const { return dtype_; }
  const Extents& shape() const { return shape_; }
  std::size_t rank() const { return shape_.size(); }
  std::uint64_t numel() const;
  TensorType type() const;  // static dims, host memory

  std::span<std::uint8_t> bytes() { return {writable(), size_}; }
  std::span<const std::uint8_t> bytes() const { return {data_, size_}; }

  // Typed access to element i (plain dtypes only; RUNG_CHECKed).
  float load_f32(std::uint64_t i) const;   // f32, f16, bf16 (exact widening)
  void store_f32(std::uint64_t i, float v);  // f32, f16, bf16 (RNE narrowing)
  double load_f64(std::uint64_t i) const;  // any float dtype (exact widening)
  void store_f64(std::uint64_t i, double v);  // any float dtype (one RNE rounding)
  std::int64_t load_i64(std::uint64_t i) const;  // signed ints, bool; unsigned up to u32
  std::uint64_t load_u64(std::uint64_t i) const;  // unsigned ints, bool
  void store_int(std::uint64_t i, std::uint64_t two_complement_bits);  // integer dtypes, truncating
  bool load_bool(std::uint64_t i) const;
  void store_bool(std::uint64_t i, bool v);

  template <typename T> T raw(std::uint64_t i) const;     // the stored representation
  template <typename T> void set_raw(std::uint64_t i, T v);

  // Replace every NaN by the dtype's canonical quiet NaN (outputs are compared bit for bit).
  void canonicalize_nans();

  // Bit-for-bit equality of dtype, shape and bytes.
  bool identical(const HostTensor& o) const {
    return dtype_ == o.dtype_ && shape_ == o.shape_ && size_ == o.size_ && (size_ == 0 || std::memcmp(data_, o.data_, size_) == 0);
  }

  // "f32[2, 3] [[1, 2, 3], [4, 5, 6]]", elements printed shortest round-trip; at most
  // `max_elems` elements before "...".
  std::string to_string(std::size_t max_elems = 64) const;

 private:
  struct Buffer;  // the bytes: an adopted vector or an uninitialised array
  std::uint8_t* writable() {
    if (buf_ && (buf_.use_count() > 1 || is_foreign())) unshare();
    return data_;
  }
  void unshare();
  bool is_foreign() const;
  void take(HostTensor& o) {
    dtype_ = o.dtype_;
    shape_ = std::move(o.shape_);
    buf_ = std::move(o.buf_);
    data_ = o.data_;
    size_ = o.size_;
    o.shape_.clear();
    o.data_ = nullptr;
    o.size_ = 0;
  }

  DType dtype_ = DType::f32;
  Extents shape_;
  std::shared_ptr<Buffer> buf_;
  std::uint8_t* data_ = nullptr;  // buf_'s bytes, cached
  std::size_t size_ = 0;
};

template <typename T> T HostTensor::raw(std::uint64_t i) const {
  T v;
  std::memcpy(&v, data_ + i * sizeof(T), sizeof(T));
  return v;
}
template <typename T> void HostTensor::set_raw(std::uint64_t i, T v) {
  std::memcpy(writable() + i * sizeof(T), &v, sizeof(T));
}

std::uint64_t element_count(const Extents& shape);  // 1 for rank 0
std::string extents_to_string(const Extents& shape);

}  // namespace rung::ops
