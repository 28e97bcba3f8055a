#include "plan/memory_plan.h"

namespace rung::plan {

std::string_view class_name(AllocClass c) {
  switch (c) {
    case AllocClass::parameters: return "parameters";
    case AllocClass::master_weights: return "master weights (f32)";
    case AllocClass::activations: return "activations (kept for backward)";
    case AllocClass::gradients: return "gradients";
    case AllocClass::optimizer_state: return "optimizer state";
    case AllocClass::inputs: return "inputs";
    case AllocClass::working: return "working buffers";
  }
  return "?";
}

std::string_view device_name(Device d) {
  switch (d) {
    case Device::cpu: return "cpu";
    case Device::cuda: return "cuda";
    case Device::webgpu: return "webgpu";
  }
  return "?";
}

std::optional<Device> device_from_name(std::string_view name) {
  if (name == "cpu") return Device::cpu;
  if (name == "cuda") return Device::cuda;
  if (name == "webgpu") return Device::webgpu;
  return std::nullopt;
}

}  // namespace rung::plan
