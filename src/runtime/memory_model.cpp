#include "runtime/memory_model.h"

#include <map>
#include <mutex>

namespace rung::runtime {

namespace {
struct Models {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<DeviceMemoryModel>, std::less<>> by_backend;
};
Models& models() {
  static Models m;
  return m;
}
}  // namespace

const DeviceMemoryModel* device_memory_model(std::string_view backend) {
  Models& m = models();
  std::lock_guard lock(m.mutex);
  auto it = m.by_backend.find(backend);
  return it == m.by_backend.end() ? nullptr : it->second.get();
}

void register_device_memory_model(std::string backend, std::unique_ptr<DeviceMemoryModel> model) {
  Models& m = models();
  std::lock_guard lock(m.mutex);
  m.by_backend[std::move(backend)] = std::move(model);
}

}  // namespace rung::runtime
