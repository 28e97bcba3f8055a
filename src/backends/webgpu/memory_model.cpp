#include "backends/webgpu/memory_model.h"

#include "backends/webgpu/executor.h"
#include "backends/webgpu/wgsl/kernel.h"
#include "runtime/memory_model.h"

namespace rung::webgpu {

namespace {

std::uint64_t buffer_bytes(std::uint64_t bytes) {  // Device::create_buffer's rounding
  std::uint64_t padded = (bytes + 3) / 4 * 4;
  return padded == 0 ? 4 : padded;
}

class WebGpuMemoryModel final : public runtime::DeviceMemoryModel {
 public:
  std::uint64_t value_bytes(const runtime::ValueShape& v) const override {
    return buffer_bytes(device_words(v.dtype, v.shape) * 4);
  }
  std::vector<std::uint64_t> scratch_bytes(const ops::OpDef& op, const std::vector<runtime::ValueShape>& inputs,
                                           const AttrMap& attrs, bool& ok) const override {
    std::vector<TensorDesc> in, out;
    for (const auto& v : inputs) in.push_back(TensorDesc{v.dtype, v.shape});
    DiagnosticSink quiet;
    // The W3C default limits (no device at planning time): windows change dispatches, not buffers.
    auto p = program_for_types(op, in, attrs, DeviceCaps{}, out, quiet);
    std::vector<std::uint64_t> b;
    if (!p) {
      ok = false;
      return b;
    }
    for (auto words : p->scratch_words) b.push_back(buffer_bytes(words * 4));
    if (p->can_fail) b.push_back(4);  // the status word's read-back staging
    return b;
  }
  std::uint64_t staging_bytes(const runtime::ValueShape& v) const override {
    return buffer_bytes(device_words(v.dtype, v.shape) * 4);
  }
  std::string left_out() const override {
    return "Dawn's own allocations (queue write staging, pipelines, shader modules), the host-side conversion copies of "
           "one tensor at a time during upload and read-back, and the programs of data-dependent result sizes";
  }
};

}  // namespace

void register_webgpu_memory_model() {
  static const bool done = [] {
    runtime::register_device_memory_model("webgpu", std::make_unique<WebGpuMemoryModel>());
    return true;
  }();
  (void)done;
}

}  // namespace rung::webgpu
