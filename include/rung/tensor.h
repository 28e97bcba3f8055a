// Tensors at the API boundary: a borrowed description of someone's memory (TensorView) and an
// owning, immutable, reference-counted value (Tensor). Elements are row-major; strides, when
// given, count elements (as DLPack does), and empty strides mean compact row-major.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "rung/diagnostics.h"
#include "rung/dtype.h"
#include "rung/export.h"

namespace rung {

enum class DeviceKind : std::int32_t { cpu = 1, cuda = 2, cuda_host = 3, webgpu = 15 };  // DLPack's codes
struct Device {
  DeviceKind kind = DeviceKind::cpu;
  std::int32_t id = 0;
};

// Someone else's memory, described; valid only for the call it is passed to.
struct TensorView {
  DType dtype = DType::f32;
  std::span<const std::int64_t> shape;
  std::span<const std::int64_t> strides;  // in elements; empty: compact row-major
  const void* data = nullptr;
  Device device;
};

// Called once when rung no longer needs memory it borrowed.
using Release = std::function<void()>;

class RUNG_API Tensor {
 public:
  Tensor();  // empty: rank 0, no bytes, f32 (a placeholder, never an input)
  ~Tensor();
  Tensor(const Tensor&);
  Tensor& operator=(const Tensor&);
  Tensor(Tensor&&) noexcept;
  Tensor& operator=(Tensor&&) noexcept;

  // The elements copied into memory rung owns; any strides (negative too) are walked. M0007
  // for a null pointer with elements, a negative extent or a size past 64 bits; M0008 for
  // memory of another device.
  static Result<Tensor> copy(const TensorView& view);
  // The caller's memory used in place, never written (rung copies before it would write);
  // `release` runs when the last rung reference goes. Compact row-major only: M0006 otherwise.
  static Result<Tensor> borrow(const TensorView& view, Release release = {});
  // Little-endian bytes of a compact row-major tensor, taken over (no copy). M0007 when the
  // length does not match.
  static Result<Tensor> from_bytes(DType dtype, std::vector<std::int64_t> shape, std::vector<std::uint8_t> bytes);
  // A .npy file (any of numpy's plain dtypes; C order; big-endian files are converted).
  static Result<Tensor> load_npy(const std::string& path);
  Status save_npy(const std::string& path) const;

  DType dtype() const;
  const std::vector<std::int64_t>& shape() const;
  std::size_t rank() const;
  std::uint64_t numel() const;
  std::uint64_t byte_size() const;
  const void* data() const;  // compact row-major little-endian bytes
  TensorView view() const;   // valid while this tensor lives
  bool borrowed() const;     // the bytes are the caller's (Tensor::borrow)
  bool same_bits(const Tensor& other) const;

  std::string type() const;        // "f32[2, 3]"
  std::string hash() const;        // SHA3-256 of dtype, shape and bytes, hex: what `rung run` prints
  std::string numpy_repr() const;  // as NumPy's repr prints it (quantized dtypes: a note)

  struct Impl;
  explicit Tensor(std::shared_ptr<const Impl> impl);
  const Impl& impl() const { return *impl_; }

 private:
  std::shared_ptr<const Impl> impl_;
};

}  // namespace rung
