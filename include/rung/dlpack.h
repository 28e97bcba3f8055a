/* rung's own DLPack header: the DLPack v1 layout under Rung-prefixed names, so it can sit
 * beside any dlpack.h (Debian's libdlpack-dev is 0.6: no versioned struct, no bool code, no
 * WebGPU device). C11 and C++; every size and offset is pinned below, so a struct filled by
 * another DLPack implementation (numpy, PyTorch, JAX) is read as that implementation wrote it.
 *
 * Exchange rules (include/rung.h, docs/api-c.md):
 * - shape and strides count elements; strides NULL = compact row-major;
 * - a consumer that meets an unknown major version reads nothing else and calls only the
 *   deleter (when it is not NULL);
 * - rung's exports are read-only host tensors (flag bit 0 set).
 * Python capsules hold the legacy struct under the name "dltensor" (numpy 1.24, torch 1.13)
 * and the versioned one under "dltensor_versioned". */
#ifndef RUNG_DLPACK_H_
#define RUNG_DLPACK_H_

#include <stddef.h>
#include <stdint.h>

#define RUNG_DLPACK_MAJOR_VERSION 1u
#define RUNG_DLPACK_MINOR_VERSION 0u

/* RungDLDevice.device_type: DLPack's codes. */
#define RUNG_DL_CPU 1
#define RUNG_DL_CUDA 2
#define RUNG_DL_CUDA_HOST 3
#define RUNG_DL_WEBGPU 15

/* RungDLDataType.code: DLPack's codes (bits and lanes complete the type). */
#define RUNG_DL_INT 0u
#define RUNG_DL_UINT 1u
#define RUNG_DL_FLOAT 2u
#define RUNG_DL_BFLOAT 4u
#define RUNG_DL_BOOL 6u

/* RungDLManagedTensorVersioned.flags */
#define RUNG_DL_FLAG_READ_ONLY ((uint64_t)1 << 0)
#define RUNG_DL_FLAG_IS_COPIED ((uint64_t)1 << 1)
#define RUNG_DL_FLAG_SUBBYTE_PADDED ((uint64_t)1 << 2)

#ifdef __cplusplus
extern "C" {
#endif

typedef struct RungDLPackVersion {
  uint32_t major;
  uint32_t minor;
} RungDLPackVersion;

typedef struct RungDLDevice {
  int32_t device_type; /* RUNG_DL_CPU, ... (DLPack's enum, an int) */
  int32_t device_id;
} RungDLDevice;

typedef struct RungDLDataType {
  uint8_t code;   /* RUNG_DL_INT, ... */
  uint8_t bits;   /* 8, 16, 32, 64; bool is 8 */
  uint16_t lanes; /* 1 */
} RungDLDataType;

typedef struct RungDLTensor {
  void* data; /* the element at index 0 is at (char*)data + byte_offset */
  RungDLDevice device;
  int32_t ndim;
  RungDLDataType dtype;
  int64_t* shape;   /* ndim extents */
  int64_t* strides; /* ndim strides in elements, or NULL: compact row-major */
  uint64_t byte_offset;
} RungDLTensor;

/* The legacy managed tensor (DLPack before 1.0; capsule name "dltensor"). */
typedef struct RungDLManagedTensor {
  RungDLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(struct RungDLManagedTensor* self);
} RungDLManagedTensor;

/* The versioned managed tensor (DLPack 1.x; capsule name "dltensor_versioned"). */
typedef struct RungDLManagedTensorVersioned {
  RungDLPackVersion version;
  void* manager_ctx;
  void (*deleter)(struct RungDLManagedTensorVersioned* self);
  uint64_t flags; /* RUNG_DL_FLAG_* */
  RungDLTensor dl_tensor;
} RungDLManagedTensorVersioned;

#ifdef __cplusplus
}
#endif

/* The layout, pinned: LP64 (x86-64, aarch64) and ILP32 with 8-byte int64 alignment (wasm32). */
#ifdef __cplusplus
#define RUNG_DL_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define RUNG_DL_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

RUNG_DL_STATIC_ASSERT(sizeof(RungDLPackVersion) == 8, "DLPackVersion is two u32");
RUNG_DL_STATIC_ASSERT(sizeof(RungDLDevice) == 8, "DLDevice is two i32");
RUNG_DL_STATIC_ASSERT(sizeof(RungDLDataType) == 4, "DLDataType is u8, u8, u16");
RUNG_DL_STATIC_ASSERT(offsetof(RungDLDataType, bits) == 1 && offsetof(RungDLDataType, lanes) == 2, "DLDataType fields");
RUNG_DL_STATIC_ASSERT(offsetof(RungDLDevice, device_id) == 4, "DLDevice fields");
#if UINTPTR_MAX == UINT64_MAX
RUNG_DL_STATIC_ASSERT(offsetof(RungDLTensor, device) == 8, "DLTensor.device");
RUNG_DL_STATIC_ASSERT(offsetof(RungDLTensor, ndim) == 16, "DLTensor.ndim");
RUNG_DL_STATIC_ASSERT(offsetof(RungDLTensor, dtype) == 20, "DLTensor.dtype");
RUNG_DL_STATIC_ASSERT(offsetof(RungDLTensor, shape) == 24, "DLTensor.shape");
RUNG_DL_STATIC_ASSERT(offsetof(RungDLTensor, strides) == 32, "DLTensor.strides");
RUNG_DL_STATIC_ASSERT(offsetof(RungDLTensor, byte_offset) == 40, "DLTensor.byte_offset");
RUNG_DL_STATIC_ASSERT(sizeof(RungDLTensor) == 48, "DLTensor size");
RUNG_DL_STATIC_ASSERT(offsetof(RungDLManagedTensor, manager_ctx) == 48, "DLManagedTensor.manager_ctx");
RUNG_DL_STATIC_ASSERT(offsetof(RungDLManagedTensor, deleter) == 56, "DLManagedTensor.deleter");
RUNG_DL_STATIC_ASSERT(sizeof(RungDLManagedTensor) == 64, "DLManagedTensor size");
RUNG_DL_STATIC_ASSERT(offsetof(RungDLManagedTensorVersioned, manager_ctx) == 8, "versioned.manager_ctx");
RUNG_DL_STATIC_ASSERT(offsetof(RungDLManagedTensorVersioned, deleter) == 16, "versioned.deleter");
RUNG_DL_STATIC_ASSERT(offsetof(RungDLManagedTensorVersioned, flags) == 24, "versioned.flags");
RUNG_DL_STATIC_ASSERT(offsetof(RungDLManagedTensorVersioned, dl_tensor) == 32, "versioned.dl_tensor");
RUNG_DL_STATIC_ASSERT(sizeof(RungDLManagedTensorVersioned) == 80, "versioned size");
#elif UINTPTR_MAX == UINT32_MAX && defined(__wasm32__)
RUNG_DL_STATIC_ASSERT(offsetof(RungDLTensor, device) == 4, "DLTensor.device");
RUNG_DL_STATIC_ASSERT(offsetof(RungDLTensor, ndim) == 12, "DLTensor.ndim");
RUNG_DL_STATIC_ASSERT(offsetof(RungDLTensor, dtype) == 16, "DLTensor.dtype");
RUNG_DL_STATIC_ASSERT(offsetof(RungDLTensor, shape) == 20, "DLTensor.shape");
RUNG_DL_STATIC_ASSERT(offsetof(RungDLTensor, strides) == 24, "DLTensor.strides");
RUNG_DL_STATIC_ASSERT(offsetof(RungDLTensor, byte_offset) == 32, "DLTensor.byte_offset");
RUNG_DL_STATIC_ASSERT(sizeof(RungDLTensor) == 40, "DLTensor size");
RUNG_DL_STATIC_ASSERT(offsetof(RungDLManagedTensorVersioned, manager_ctx) == 8, "versioned.manager_ctx");
RUNG_DL_STATIC_ASSERT(offsetof(RungDLManagedTensorVersioned, deleter) == 12, "versioned.deleter");
RUNG_DL_STATIC_ASSERT(offsetof(RungDLManagedTensorVersioned, flags) == 16, "versioned.flags");
RUNG_DL_STATIC_ASSERT(offsetof(RungDLManagedTensorVersioned, dl_tensor) == 24, "versioned.dl_tensor");
RUNG_DL_STATIC_ASSERT(sizeof(RungDLManagedTensorVersioned) == 64, "versioned size");
#endif

#endif /* RUNG_DLPACK_H_ */
