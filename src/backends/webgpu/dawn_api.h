// The subset of the standard WebGPU C API (webgpu.h of the WGPUStringView / callback-info /
// wgpuInstanceWaitAny era) that rung uses, declared here so the build needs no Dawn headers:
// libwebgpu_wrapper.so (npm `bun-webgpu-linux-x64`) is opened with dlopen at run time.
// Layouts follow that header for LP64; the static_asserts pin the sizes and offsets measured
// against the shipped build (see ../shared/design/WEBGPU-NOTES.md), so a header drift shows
// up as a compile error instead of memory corruption.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rung::webgpu::api {

using Bool = std::uint32_t;  // WGPUBool is 4 bytes
using Flags = std::uint64_t;  // buffer usage, map mode, shader stage

struct Opaque;
using Instance = Opaque*;
using Adapter = Opaque*;
using Device = Opaque*;
using Queue = Opaque*;
using Buffer = Opaque*;
using ShaderModule = Opaque*;
using ComputePipeline = Opaque*;
using BindGroupLayout = Opaque*;
using BindGroup = Opaque*;
using CommandEncoder = Opaque*;
using CommandBuffer = Opaque*;
using ComputePassEncoder = Opaque*;
using PipelineLayout = Opaque*;

inline constexpr std::size_t kStrlen = SIZE_MAX;         // WGPU_STRLEN
inline constexpr std::uint64_t kWholeSize = UINT64_MAX;  // WGPU_WHOLE_SIZE

// Enums are 32-bit; status enums start at Success = 1.
enum : std::uint32_t { kStatusSuccess = 1 };
enum : std::uint32_t { kCallbackModeWaitAnyOnly = 1, kCallbackModeAllowProcessEvents = 2, kCallbackModeAllowSpontaneous = 3 };
enum : std::uint32_t { kWaitStatusSuccess = 1, kWaitStatusTimedOut = 2 };
enum : std::uint32_t { kSTypeShaderSourceWGSL = 2 };
enum : std::uint32_t { kFeatureLevelCore = 2 };
enum : std::uint32_t { kPowerPreferenceHighPerformance = 2 };
enum BackendType : std::uint32_t {
  kBackendUndefined = 0, kBackendNull = 1, kBackendWebGPU = 2, kBackendD3D11 = 3, kBackendD3D12 = 4,
  kBackendMetal = 5, kBackendVulkan = 6, kBackendOpenGL = 7, kBackendOpenGLES = 8,
};
enum AdapterType : std::uint32_t { kAdapterDiscrete = 1, kAdapterIntegrated = 2, kAdapterCPU = 3, kAdapterUnknown = 4 };
enum ErrorType : std::uint32_t { kErrorNone = 1, kErrorValidation = 2, kErrorOutOfMemory = 3, kErrorInternal = 4, kErrorUnknown = 5 };

inline constexpr Flags kBufferUsageMapRead = 0x1;
inline constexpr Flags kBufferUsageCopySrc = 0x4;
inline constexpr Flags kBufferUsageCopyDst = 0x8;
inline constexpr Flags kBufferUsageStorage = 0x80;
inline constexpr Flags kMapModeRead = 0x1;

struct StringView {
  const char* data;
  std::size_t length;
};

struct ChainedStruct {
  const ChainedStruct* next;
  std::uint32_t sType;
};

struct Future {
  std::uint64_t id;
};

struct FutureWaitInfo {
  Future future;
  Bool completed;
};

struct InstanceCapabilities {
  ChainedStruct* nextInChain;
  Bool timedWaitAnyEnable;
  std::size_t timedWaitAnyMaxCount;
};

struct InstanceDescriptor {
  const ChainedStruct* nextInChain;
  InstanceCapabilities capabilities;
};

struct RequestAdapterOptions {
  const ChainedStruct* nextInChain;
  std::uint32_t featureLevel;
  std::uint32_t powerPreference;
  Bool forceFallbackAdapter;
  std::uint32_t backendType;
  void* compatibleSurface;
};

struct AdapterInfo {
  ChainedStruct* nextInChain;
  StringView vendor;
  StringView architecture;
  StringView device;
  StringView description;
  std::uint32_t backendType;
  std::uint32_t adapterType;
  std::uint32_t vendorID;
  std::uint32_t deviceID;
  std::uint32_t subgroupMinSize;
  std::uint32_t subgroupMaxSize;
};

// No SupportedLimits wrapper in this build: the same struct is read from the adapter and
// passed as requiredLimits.
struct Limits {
  ChainedStruct* nextInChain;
  std::uint32_t maxTextureDimension1D;
  std::uint32_t maxTextureDimension2D;
  std::uint32_t maxTextureDimension3D;
  std::uint32_t maxTextureArrayLayers;
  std::uint32_t maxBindGroups;
  std::uint32_t maxBindGroupsPlusVertexBuffers;
  std::uint32_t maxBindingsPerBindGroup;
  std::uint32_t maxDynamicUniformBuffersPerPipelineLayout;
  std::uint32_t maxDynamicStorageBuffersPerPipelineLayout;
  std::uint32_t maxSampledTexturesPerShaderStage;
  std::uint32_t maxSamplersPerShaderStage;
  std::uint32_t maxStorageBuffersPerShaderStage;
  std::uint32_t maxStorageTexturesPerShaderStage;
  std::uint32_t maxUniformBuffersPerShaderStage;
  std::uint64_t maxUniformBufferBindingSize;
  std::uint64_t maxStorageBufferBindingSize;
  std::uint32_t minUniformBufferOffsetAlignment;
  std::uint32_t minStorageBufferOffsetAlignment;
  std::uint32_t maxVertexBuffers;
  std::uint64_t maxBufferSize;
  std::uint32_t maxVertexAttributes;
  std::uint32_t maxVertexBufferArrayStride;
  std::uint32_t maxInterStageShaderVariables;
  std::uint32_t maxColorAttachments;
  std::uint32_t maxColorAttachmentBytesPerSample;
  std::uint32_t maxComputeWorkgroupStorageSize;
  std::uint32_t maxComputeInvocationsPerWorkgroup;
  std::uint32_t maxComputeWorkgroupSizeX;
  std::uint32_t maxComputeWorkgroupSizeY;
  std::uint32_t maxComputeWorkgroupSizeZ;
  std::uint32_t maxComputeWorkgroupsPerDimension;
  std::uint32_t maxImmediateSize;
};

using RequestAdapterCallback = void (*)(std::uint32_t status, Adapter adapter, StringView message, void* ud1, void* ud2);
using RequestDeviceCallback = void (*)(std::uint32_t status, Device device, StringView message, void* ud1, void* ud2);
using DeviceLostCallback = void (*)(const Device* device, std::uint32_t reason, StringView message, void* ud1, void* ud2);
using UncapturedErrorCallback = void (*)(const Device* device, std::uint32_t type, StringView message, void* ud1, void* ud2);
using BufferMapCallback = void (*)(std::uint32_t status, StringView message, void* ud1, void* ud2);
using QueueWorkDoneCallback = void (*)(std::uint32_t status, StringView message, void* ud1, void* ud2);

template <typename Fn>
struct CallbackInfo {  // request adapter / device, buffer map, queue work done, device lost
  const ChainedStruct* nextInChain;
  std::uint32_t mode;
  Fn callback;
  void* userdata1;
  void* userdata2;
};

struct UncapturedErrorCallbackInfo {  // no mode: it may fire at any time
  const ChainedStruct* nextInChain;
  UncapturedErrorCallback callback;
  void* userdata1;
  void* userdata2;
};

struct QueueDescriptor {
  const ChainedStruct* nextInChain;
  StringView label;
};

struct DeviceDescriptor {
  const ChainedStruct* nextInChain;
  StringView label;
  std::size_t requiredFeatureCount;
  const std::uint32_t* requiredFeatures;
  const Limits* requiredLimits;
  QueueDescriptor defaultQueue;
  CallbackInfo<DeviceLostCallback> deviceLostCallbackInfo;
  UncapturedErrorCallbackInfo uncapturedErrorCallbackInfo;
};

struct BufferDescriptor {
  const ChainedStruct* nextInChain;
  StringView label;
  Flags usage;
  std::uint64_t size;
  Bool mappedAtCreation;
};

struct ShaderSourceWGSL {
  ChainedStruct chain;
  StringView code;
};

struct ShaderModuleDescriptor {
  const ChainedStruct* nextInChain;
  StringView label;
};

struct ComputeState {
  const ChainedStruct* nextInChain;
  ShaderModule module;
  StringView entryPoint;
  std::size_t constantCount;
  const void* constants;
};

struct ComputePipelineDescriptor {
  const ChainedStruct* nextInChain;
  StringView label;
  PipelineLayout layout;  // null: layout derived from the shader
  ComputeState compute;
};

struct BindGroupEntry {
  const ChainedStruct* nextInChain;
  std::uint32_t binding;
  Buffer buffer;
  std::uint64_t offset;
  std::uint64_t size;
  void* sampler;
  void* textureView;
};

struct BindGroupDescriptor {
  const ChainedStruct* nextInChain;
  StringView label;
  BindGroupLayout layout;
  std::size_t entryCount;
  const BindGroupEntry* entries;
};

static_assert(sizeof(StringView) == 16);
static_assert(sizeof(FutureWaitInfo) == 16);
static_assert(sizeof(InstanceDescriptor) == 32);
static_assert(sizeof(RequestAdapterOptions) == 32);
static_assert(sizeof(AdapterInfo) == 96 && offsetof(AdapterInfo, backendType) == 72);
static_assert(sizeof(Limits) == 152, "WGPULimits of this Dawn build is 152 bytes");
static_assert(offsetof(Limits, maxUniformBufferBindingSize) == 64 && offsetof(Limits, maxStorageBufferBindingSize) == 72);
static_assert(offsetof(Limits, maxBufferSize) == 96 && offsetof(Limits, maxComputeWorkgroupStorageSize) == 124);
static_assert(offsetof(Limits, maxComputeWorkgroupsPerDimension) == 144 && offsetof(Limits, maxImmediateSize) == 148);
static_assert(sizeof(CallbackInfo<BufferMapCallback>) == 40);
static_assert(sizeof(UncapturedErrorCallbackInfo) == 32);
static_assert(sizeof(DeviceDescriptor) == 144 && offsetof(DeviceDescriptor, deviceLostCallbackInfo) == 72);
static_assert(sizeof(BufferDescriptor) == 48 && offsetof(BufferDescriptor, usage) == 24);
static_assert(sizeof(ShaderSourceWGSL) == 32);
static_assert(sizeof(ComputeState) == 48);
static_assert(sizeof(ComputePipelineDescriptor) == 80 && offsetof(ComputePipelineDescriptor, compute) == 32);
static_assert(sizeof(BindGroupEntry) == 56 && offsetof(BindGroupEntry, offset) == 24);
static_assert(sizeof(BindGroupDescriptor) == 48);

// The functions, resolved by name from the library (dawn_library.cpp).
struct Functions {
  Instance (*createInstance)(const InstanceDescriptor*);
  Future (*instanceRequestAdapter)(Instance, const RequestAdapterOptions*, CallbackInfo<RequestAdapterCallback>);
  std::uint32_t (*instanceWaitAny)(Instance, std::size_t, FutureWaitInfo*, std::uint64_t timeout_ns);
  void (*instanceProcessEvents)(Instance);
  void (*instanceRelease)(Instance);
  std::uint32_t (*adapterGetInfo)(Adapter, AdapterInfo*);
  void (*adapterInfoFreeMembers)(AdapterInfo);
  std::uint32_t (*adapterGetLimits)(Adapter, Limits*);
  Future (*adapterRequestDevice)(Adapter, const DeviceDescriptor*, CallbackInfo<RequestDeviceCallback>);
  void (*adapterRelease)(Adapter);
  std::uint32_t (*deviceGetLimits)(Device, Limits*);
  Queue (*deviceGetQueue)(Device);
  Buffer (*deviceCreateBuffer)(Device, const BufferDescriptor*);
  ShaderModule (*deviceCreateShaderModule)(Device, const ShaderModuleDescriptor*);
  ComputePipeline (*deviceCreateComputePipeline)(Device, const ComputePipelineDescriptor*);
  BindGroup (*deviceCreateBindGroup)(Device, const BindGroupDescriptor*);
  CommandEncoder (*deviceCreateCommandEncoder)(Device, const void*);
  void (*deviceRelease)(Device);
  void (*deviceDestroy)(Device);
  BindGroupLayout (*computePipelineGetBindGroupLayout)(ComputePipeline, std::uint32_t);
  void (*computePipelineRelease)(ComputePipeline);
  void (*bindGroupLayoutRelease)(BindGroupLayout);
  void (*bindGroupRelease)(BindGroup);
  void (*shaderModuleRelease)(ShaderModule);
  ComputePassEncoder (*commandEncoderBeginComputePass)(CommandEncoder, const void*);
  void (*commandEncoderCopyBufferToBuffer)(CommandEncoder, Buffer, std::uint64_t, Buffer, std::uint64_t, std::uint64_t);
  CommandBuffer (*commandEncoderFinish)(CommandEncoder, const void*);
  void (*commandEncoderRelease)(CommandEncoder);
  void (*commandBufferRelease)(CommandBuffer);
  void (*computePassEncoderSetPipeline)(ComputePassEncoder, ComputePipeline);
  void (*computePassEncoderSetBindGroup)(ComputePassEncoder, std::uint32_t, BindGroup, std::size_t, const std::uint32_t*);
  void (*computePassEncoderDispatchWorkgroups)(ComputePassEncoder, std::uint32_t, std::uint32_t, std::uint32_t);
  void (*computePassEncoderEnd)(ComputePassEncoder);
  void (*computePassEncoderRelease)(ComputePassEncoder);
  void (*queueSubmit)(Queue, std::size_t, const CommandBuffer*);
  void (*queueWriteBuffer)(Queue, Buffer, std::uint64_t, const void*, std::size_t);
  Future (*queueOnSubmittedWorkDone)(Queue, CallbackInfo<QueueWorkDoneCallback>);
  void (*queueRelease)(Queue);
  Future (*bufferMapAsync)(Buffer, Flags, std::size_t, std::size_t, CallbackInfo<BufferMapCallback>);
  const void* (*bufferGetConstMappedRange)(Buffer, std::size_t, std::size_t);
  void (*bufferUnmap)(Buffer);
  void (*bufferDestroy)(Buffer);
  void (*bufferRelease)(Buffer);
};

}  // namespace rung::webgpu::api
