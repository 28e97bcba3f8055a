// The device registry and capability probes: what this machine offers to run on. The CPU
// probe is built in (model, architecture, SIMD features, logical cores, memory); device
// backends (cuda, webgpu) add their own probe with `device_registry().add_probe`. The
// execution policy reads these facts (memory budget), and backends put them in their
// DeviceProfile, so a receipt or a run record says exactly what computed a result.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace rung::runtime {

struct DeviceInfo {
  std::string kind;                          // "cpu", "cuda", "webgpu"
  std::string name;                          // "Intel(R) Xeon(R) ...", "NVIDIA H200"
  std::uint32_t compute_units = 0;           // logical cores, SMs, ...
  std::uint64_t memory_bytes = 0;            // total memory the device can address
  std::uint64_t available_bytes = 0;         // free now (0: unknown)
  std::map<std::string, std::string> facts;  // "arch", "features", ... (sorted: deterministic)
  std::string to_string() const;
};

// The host CPU: /proc/cpuinfo and the compiler's cpuid view (x86-64) or the auxiliary
// vector (aarch64) for features, sysconf for cores and memory.
DeviceInfo probe_cpu();
// "avx2 avx512f fma ..." as probe_cpu reports them, in a fixed order.
std::vector<std::string> cpu_features();

class DeviceRegistry {
 public:
  using Probe = std::function<std::vector<DeviceInfo>()>;
  void add_probe(std::string kind, Probe p);
  // Every device every probe finds (the CPU first).
  std::vector<DeviceInfo> probe_all() const;

 private:
  std::vector<std::pair<std::string, Probe>> probes_;
};

DeviceRegistry& device_registry();

}  // namespace rung::runtime
