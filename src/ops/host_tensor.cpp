#include "ops/host_tensor.h"

#include <bit>
#include <charconv>

#include "base/charconv.h"
#include "base/check.h"
#include "ops/numerics/half.h"

namespace rung::ops {

static_assert(std::endian::native == std::endian::little, "HostTensor stores little-endian bytes as is");

std::uint64_t element_count(const Extents& shape) {
  std::uint64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::string extents_to_string(const Extents& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::optional<std::uint64_t> HostTensor::checked_bytes(DType dtype, const Extents& shape) {
  std::uint64_t n = 1;
  for (auto d : shape) {
    if (d != 0 && n > UINT64_MAX / d) return std::nullopt;
    n *= d;
  }
  return storage_bytes(dtype, n);
}

struct HostTensor::Buffer {
  std::vector<std::uint8_t> vec;       // adopted or zero-filled bytes
  std::unique_ptr<std::uint8_t[]> raw;  // or an uninitialised array
  std::function<void()> release;       // or someone else's bytes (adopt): given back here
  bool foreign = false;
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() {
    if (release) release();
  }
};

HostTensor HostTensor::adopt(DType dtype, Extents shape, const void* data, std::size_t bytes, std::function<void()> release) {
  auto n = checked_bytes(dtype, shape);
  RUNG_CHECK(n.has_value() && *n == bytes && (data != nullptr || bytes == 0), "adopted bytes do not match dtype and shape");
  HostTensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.buf_ = std::make_shared<Buffer>();
  t.buf_->release = std::move(release);
  t.buf_->foreign = true;
  // Never written through: writable() copies foreign bytes first.
  t.data_ = static_cast<std::uint8_t*>(const_cast<void*>(data));
  t.size_ = bytes;
  return t;
}

bool HostTensor::is_foreign() const { return buf_ && buf_->foreign; }
bool HostTensor::adopted() const { return is_foreign(); }

HostTensor::HostTensor(DType dtype, Extents shape) : dtype_(dtype), shape_(std::move(shape)) {
  auto n = checked_bytes(dtype_, shape_);
  RUNG_CHECK(n.has_value(), "tensor size not representable");
  buf_ = std::make_shared<Buffer>();
  buf_->vec.assign(static_cast<std::size_t>(*n), 0);
  data_ = buf_->vec.data();
  size_ = buf_->vec.size();
}

HostTensor::HostTensor(DType dtype, Extents shape, std::vector<std::uint8_t> bytes) : dtype_(dtype), shape_(std::move(shape)) {
  auto n = checked_bytes(dtype_, shape_);
  RUNG_CHECK(n.has_value() && *n == bytes.size(), "byte length does not match dtype and shape");
  buf_ = std::make_shared<Buffer>();
  buf_->vec = std::move(bytes);
  data_ = buf_->vec.data();
  size_ = buf_->vec.size();
}

HostTensor HostTensor::uninitialized(DType dtype, Extents shape) {
  auto n = checked_bytes(dtype, shape);
  RUNG_CHECK(n.has_value(), "tensor size not representable");
  HostTensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.buf_ = std::make_shared<Buffer>();
  t.buf_->raw = std::unique_ptr<std::uint8_t[]>(new std::uint8_t[static_cast<std::size_t>(*n)]);  // uninitialised, as make_unique_for_overwrite (not in libc++ 13)
  t.data_ = t.buf_->raw.get();
  t.size_ = static_cast<std::size_t>(*n);
  return t;
}

HostTensor::HostTensor(const HostTensor& o) : dtype_(o.dtype_), shape_(o.shape_) {
  if (!o.buf_) return;
  buf_ = std::make_shared<Buffer>();
  buf_->raw = std::unique_ptr<std::uint8_t[]>(new std::uint8_t[o.size_]);
  if (o.size_) std::memcpy(buf_->raw.get(), o.data_, o.size_);
  data_ = buf_->raw.get();
  size_ = o.size_;
}

HostTensor& HostTensor::operator=(const HostTensor& o) {
  if (this != &o) {
    HostTensor copy(o);
    take(copy);
  }
  return *this;
}

HostTensor HostTensor::share() const {
  HostTensor t;
  t.dtype_ = dtype_;
  t.shape_ = shape_;
  t.buf_ = buf_;
  t.data_ = data_;
  t.size_ = size_;
  return t;
}

void HostTensor::unshare() {
  HostTensor copy(*this);
  buf_ = std::move(copy.buf_);
  data_ = copy.data_;
  copy.data_ = nullptr;
}

HostTensor HostTensor::from_f32(Extents shape, std::span<const float> values, DType dtype) {
  HostTensor t(dtype, std::move(shape));
  RUNG_CHECK(values.size() == t.numel(), "value count does not match the shape");
  for (std::size_t i = 0; i < values.size(); ++i) t.store_f64(i, values[i]);
  return t;
}

HostTensor HostTensor::from_f64(Extents shape, std::span<const double> values, DType dtype) {
  HostTensor t(dtype, std::move(shape));
  RUNG_CHECK(values.size() == t.numel(), "value count does not match the shape");
  for (std::size_t i = 0; i < values.size(); ++i) t.store_f64(i, values[i]);
  return t;
}

HostTensor HostTensor::from_i64(Extents shape, std::span<const std::int64_t> values, DType dtype) {
  HostTensor t(dtype, std::move(shape));
  RUNG_CHECK(values.size() == t.numel(), "value count does not match the shape");
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (dtype == DType::boolean) t.store_bool(i, values[i] != 0);
    else t.store_int(i, static_cast<std::uint64_t>(values[i]));
  }
  return t;
}

std::uint64_t HostTensor::numel() const { return element_count(shape_); }

TensorType HostTensor::type() const {
  TensorType t;
  t.dtype = dtype_;
  for (auto d : shape_) t.shape.push_back(Dim::fixed(d));
  return t;
}

float HostTensor::load_f32(std::uint64_t i) const {
  switch (dtype_) {
    case DType::f32: return raw<float>(i);
    case DType::f16: return num::f32_from_f16(raw<std::uint16_t>(i));
    case DType::bf16: return num::f32_from_bf16(raw<std::uint16_t>(i));
    default: RUNG_UNREACHABLE("load_f32 on a non-f32-like tensor");
  }
}

void HostTensor::store_f32(std::uint64_t i, float v) {
  switch (dtype_) {
    case DType::f32: set_raw<float>(i, v); return;
    case DType::f16: set_raw<std::uint16_t>(i, num::f16_from_f32(v)); return;
    case DType::bf16: set_raw<std::uint16_t>(i, num::bf16_from_f32(v)); return;
    default: RUNG_UNREACHABLE("store_f32 on a non-f32-like tensor");
  }
}

double HostTensor::load_f64(std::uint64_t i) const {
  if (dtype_ == DType::f64) return raw<double>(i);
  return load_f32(i);
}

void HostTensor::store_f64(std::uint64_t i, double v) {
  switch (dtype_) {
    case DType::f64: set_raw<double>(i, v); return;
    case DType::f32: set_raw<float>(i, static_cast<float>(v)); return;  // one RNE rounding
    case DType::f16: set_raw<std::uint16_t>(i, num::f16_from_f64(v)); return;
    case DType::bf16: set_raw<std::uint16_t>(i, num::bf16_from_f64(v)); return;
    default: RUNG_UNREACHABLE("store_f64 on a non-float tensor");
  }
}

std::int64_t HostTensor::load_i64(std::uint64_t i) const {
  switch (dtype_) {
    case DType::i64: return raw<std::int64_t>(i);
    case DType::i32: return raw<std::int32_t>(i);
    case DType::i16: return raw<std::int16_t>(i);
    case DType::i8: return raw<std::int8_t>(i);
    case DType::u32: return raw<std::uint32_t>(i);
    case DType::u16: return raw<std::uint16_t>(i);
    case DType::u8: return raw<std::uint8_t>(i);
    case DType::boolean: return raw<std::uint8_t>(i) != 0;
    default: RUNG_UNREACHABLE("load_i64 on a tensor that is not a signed or narrow integer");
  }
}

std::uint64_t HostTensor::load_u64(std::uint64_t i) const {
  switch (dtype_) {
    case DType::u64: return raw<std::uint64_t>(i);
    case DType::u32: return raw<std::uint32_t>(i);
    case DType::u16: return raw<std::uint16_t>(i);
    case DType::u8: return raw<std::uint8_t>(i);
    case DType::boolean: return raw<std::uint8_t>(i) != 0;
    default: RUNG_UNREACHABLE("load_u64 on a tensor that is not unsigned");
  }
}

void HostTensor::store_int(std::uint64_t i, std::uint64_t v) {
  switch (dtype_) {
    case DType::i64: case DType::u64: set_raw<std::uint64_t>(i, v); return;
    case DType::i32: case DType::u32: set_raw<std::uint32_t>(i, static_cast<std::uint32_t>(v)); return;
    case DType::i16: case DType::u16: set_raw<std::uint16_t>(i, static_cast<std::uint16_t>(v)); return;
    case DType::i8: case DType::u8: set_raw<std::uint8_t>(i, static_cast<std::uint8_t>(v)); return;
    default: RUNG_UNREACHABLE("store_int on a non-integer tensor");
  }
}

bool HostTensor::load_bool(std::uint64_t i) const {
  RUNG_CHECK(dtype_ == DType::boolean, "load_bool on a non-bool tensor");
  return data_[i] != 0;
}

void HostTensor::store_bool(std::uint64_t i, bool v) {
  RUNG_CHECK(dtype_ == DType::boolean, "store_bool on a non-bool tensor");
  writable()[i] = v ? 1 : 0;
}

void HostTensor::canonicalize_nans() {
  std::uint64_t n = numel();
  switch (dtype_) {
    case DType::f32:
      for (std::uint64_t i = 0; i < n; ++i)
        if (num::is_nan(raw<float>(i))) set_raw<std::uint32_t>(i, num::kCanonicalNanF32);
      return;
    case DType::f64:
      for (std::uint64_t i = 0; i < n; ++i)
        if (num::is_nan(raw<double>(i))) set_raw<std::uint64_t>(i, num::kCanonicalNanF64);
      return;
    case DType::f16:
      for (std::uint64_t i = 0; i < n; ++i)
        if ((raw<std::uint16_t>(i) & 0x7FFF) > 0x7C00) set_raw<std::uint16_t>(i, num::kCanonicalNanF16);
      return;
    case DType::bf16:
      for (std::uint64_t i = 0; i < n; ++i)
        if ((raw<std::uint16_t>(i) & 0x7FFF) > 0x7F80) set_raw<std::uint16_t>(i, num::kCanonicalNanBF16);
      return;
    default: return;
  }
}

namespace {

template <typename T> std::string shortest(T v) {
  char buf[64];
  auto r = charconv::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string element_string(const HostTensor& t, std::uint64_t i) {
  switch (t.dtype()) {
    case DType::f64: return shortest(t.raw<double>(i));
    case DType::f32: case DType::f16: case DType::bf16: {
      float v = t.load_f32(i);
      return num::is_nan(v) ? "nan" : num::is_inf(v) ? (v > 0 ? "inf" : "-inf") : shortest(v);
    }
    case DType::boolean: return t.load_bool(i) ? "true" : "false";
    case DType::u64: return std::to_string(t.load_u64(i));
    case DType::q8_0: case DType::q4_0: return "?";
    default: return std::to_string(t.load_i64(i));
  }
}

}  // namespace

std::string HostTensor::to_string(std::size_t max_elems) const {
  std::string s = std::string(dtype_name(dtype_)) + extents_to_string(shape_) + " ";
  if (dtype_info(dtype_).is_quantized) return s + "<" + std::to_string(size_) + " bytes>";
  std::uint64_t n = numel();
  std::size_t printed = 0;
  // Walk elements in row-major order, opening and closing brackets at dimension boundaries.
  std::vector<std::uint64_t> idx(shape_.size(), 0);
  if (shape_.empty()) return s + element_string(*this, 0);
  for (std::size_t d = 0; d < shape_.size(); ++d) s += "[";
  if (n == 0) {
    for (std::size_t d = 0; d < shape_.size(); ++d) s += "]";
    return s;
  }
  for (std::uint64_t i = 0; i < n; ++i) {
    if (printed == max_elems) { s += "..."; break; }
    s += element_string(*this, i);
    ++printed;
    std::size_t d = shape_.size();
    int closed = 0;
    while (d > 0) {
      --d;
      if (++idx[d] < shape_[d]) break;
      idx[d] = 0;
      s += "]";
      ++closed;
    }
    if (i + 1 < n) {
      s += ", ";
      for (int c = 0; c < closed; ++c) s += "[";
    }
  }
  if (printed == max_elems && printed < n) {
    // Every bracket is open again at the top of an iteration: close them all.
    for (std::size_t d = 0; d < shape_.size(); ++d) s += "]";
  }
  return s;
}

}  // namespace rung::ops
