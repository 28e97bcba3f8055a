// The DLPack structs the Python capsules carry. "dltensor" capsules (what numpy 1.24 and
// torch 1.13 exchange) hold the legacy DLManagedTensor; "dltensor_versioned" ones the DLPack
// v1 DLManagedTensorVersioned. Both embed the same DLTensor. Layouts follow the DLPack
// headers (v0.6 and v1.0), pinned below by size and offset checks.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rung::py_binding::dl {

struct Device {
  std::int32_t device_type;  // 1 CPU, 2 CUDA, 3 CUDA host, 15 WebGPU
  std::int32_t device_id;
};
struct DataType {
  std::uint8_t code;  // 0 int, 1 uint, 2 float, 4 bfloat, 6 bool
  std::uint8_t bits;
  std::uint16_t lanes;
};
struct Tensor {
  void* data;
  Device device;
  std::int32_t ndim;
  DataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // in elements; NULL: compact row-major
  std::uint64_t byte_offset;
};
struct ManagedTensor {  // legacy ("dltensor")
  Tensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(ManagedTensor* self);
};
struct Version {
  std::uint32_t major, minor;
};
inline constexpr std::uint64_t kFlagReadOnly = 1, kFlagIsCopied = 2;
struct ManagedTensorVersioned {  // v1 ("dltensor_versioned")
  Version version;
  void* manager_ctx;
  void (*deleter)(ManagedTensorVersioned* self);
  std::uint64_t flags;
  Tensor dl_tensor;
};

inline constexpr std::int32_t kCPU = 1;
inline constexpr std::uint8_t kInt = 0, kUInt = 1, kFloat = 2, kBfloat = 4, kBool = 6;

static_assert(sizeof(Tensor) == 48 && offsetof(Tensor, ndim) == 16 && offsetof(Tensor, dtype) == 20 &&
              offsetof(Tensor, shape) == 24 && offsetof(Tensor, byte_offset) == 40);
static_assert(sizeof(ManagedTensor) == 64 && offsetof(ManagedTensor, deleter) == 56);
static_assert(sizeof(ManagedTensorVersioned) == 80 && offsetof(ManagedTensorVersioned, flags) == 24 &&
              offsetof(ManagedTensorVersioned, dl_tensor) == 32);

}  // namespace rung::py_binding::dl
