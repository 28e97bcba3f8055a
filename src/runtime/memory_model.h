// What a device backend allocates besides the values a program computes, for the memory
// plan (src/plan): a backend that keeps a region's values on its device (webgpu) describes
// its buffers here — the device layout of a tensor (word size, padding), the temporaries one
// op's kernels use, the staging buffer a result is read back through — and the planner,
// told which regions run on the device, plans those buffers next to the host's. Backends
// register a model by name; no model (cpu, reference) means the host walk is the whole plan.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph/attr.h"
#include "ir/graph/dtype.h"
#include "ops/op_def.h"

namespace rung::runtime {

struct ValueShape {
  DType dtype = DType::f32;
  std::vector<std::uint64_t> shape;
};

class DeviceMemoryModel {
 public:
  virtual ~DeviceMemoryModel() = default;
  // Bytes of the device buffer that holds one value (an uploaded argument, a node's result).
  virtual std::uint64_t value_bytes(const ValueShape& v) const = 0;
  // Buffers one application of `op` allocates while it runs and frees when it returns
  // (statistics, status words), each one's bytes; `ok` false when the model cannot tell.
  virtual std::vector<std::uint64_t> scratch_bytes(const ops::OpDef& op, const std::vector<ValueShape>& inputs,
                                                   const AttrMap& attrs, bool& ok) const = 0;
  // The staging buffer a result is read back through (held while it is copied).
  virtual std::uint64_t staging_bytes(const ValueShape& v) const = 0;
  // What the plan does not count of this backend's memory, for the plan's summary.
  virtual std::string left_out() const = 0;
};

// The model a backend registered, or null (host backends).
const DeviceMemoryModel* device_memory_model(std::string_view backend);
void register_device_memory_model(std::string backend, std::unique_ptr<DeviceMemoryModel> model);

}  // namespace rung::runtime
