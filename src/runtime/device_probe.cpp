#include "runtime/device_probe.h"

#include <fstream>
#include <thread>
#include <unistd.h>

#if defined(__aarch64__)
#include <sys/auxv.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace rung::runtime {

std::string DeviceInfo::to_string() const {
  std::string s = kind + ": " + name + " (" + std::to_string(compute_units) + " units, " +
                  std::to_string(memory_bytes >> 20) + " MiB";
  for (const auto& [k, v] : facts) s += ", " + k + "=" + v;
  return s + ")";
}

namespace {

// The first "key : value" line of /proc/cpuinfo whose key is `key`.
std::string cpuinfo_field(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string k = line.substr(0, colon);
    while (!k.empty() && (k.back() == ' ' || k.back() == '\t')) k.pop_back();
    if (k != key) continue;
    std::string v = line.substr(colon + 1);
    while (!v.empty() && v.front() == ' ') v.erase(v.begin());
    return v;
  }
  return {};
}

}  // namespace

std::vector<std::string> cpu_features() {
  std::vector<std::string> f;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
#define RUNG_CPU_FEATURE(name) \
  if (__builtin_cpu_supports(name)) f.push_back(name);
  RUNG_CPU_FEATURE("sse2") RUNG_CPU_FEATURE("ssse3") RUNG_CPU_FEATURE("sse4.1") RUNG_CPU_FEATURE("sse4.2")
  RUNG_CPU_FEATURE("avx") RUNG_CPU_FEATURE("avx2") RUNG_CPU_FEATURE("fma")
#if defined(__clang__) && __clang_major__ < 15  // clang 14 (the fuzz build) lacks "f16c" here: CPUID 1, ECX bit 29
  if (unsigned a, b, c, d; __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 29))) f.push_back("f16c");
#else
  RUNG_CPU_FEATURE("f16c")
#endif
  RUNG_CPU_FEATURE("bmi2")
  RUNG_CPU_FEATURE("avx512f") RUNG_CPU_FEATURE("avx512dq") RUNG_CPU_FEATURE("avx512bw") RUNG_CPU_FEATURE("avx512vl")
  RUNG_CPU_FEATURE("avx512vnni") RUNG_CPU_FEATURE("avx512bf16")
#undef RUNG_CPU_FEATURE
#elif defined(__aarch64__)
  unsigned long hw = getauxval(AT_HWCAP);
  if (hw & (1ul << 1)) f.push_back("asimd");
  if (hw & (1ul << 9)) f.push_back("fphp");
  if (hw & (1ul << 10)) f.push_back("asimdhp");
  if (hw & (1ul << 20)) f.push_back("asimddp");
  if (hw & (1ul << 22)) f.push_back("sve");
#endif
  return f;
}

DeviceInfo probe_cpu() {
  DeviceInfo d;
  d.kind = "cpu";
  d.name = cpuinfo_field("model name");
#if defined(__aarch64__)
  d.facts["arch"] = "aarch64";
  if (d.name.empty()) {
    std::string impl = cpuinfo_field("CPU implementer"), part = cpuinfo_field("CPU part");
    d.name = impl.empty() ? "aarch64 cpu" : "aarch64 implementer " + impl + " part " + part;
  }
#elif defined(__x86_64__)
  d.facts["arch"] = "x86_64";
#else
  d.facts["arch"] = "other";
#endif
  if (d.name.empty()) d.name = "unknown cpu";
  std::string features;
  for (const auto& f : cpu_features()) features += (features.empty() ? "" : " ") + f;
  d.facts["features"] = features;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  d.compute_units = cores > 0 ? static_cast<std::uint32_t>(cores) : std::max(1u, std::thread::hardware_concurrency());
  long pages = sysconf(_SC_PHYS_PAGES), avail = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) d.memory_bytes = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
  if (avail > 0 && page > 0) d.available_bytes = static_cast<std::uint64_t>(avail) * static_cast<std::uint64_t>(page);
  return d;
}

void DeviceRegistry::add_probe(std::string kind, Probe p) {
  for (auto& [k, existing] : probes_)
    if (k == kind) {
      existing = std::move(p);
      return;
    }
  probes_.emplace_back(std::move(kind), std::move(p));
}

std::vector<DeviceInfo> DeviceRegistry::probe_all() const {
  std::vector<DeviceInfo> out;
  for (const auto& [kind, probe] : probes_)
    for (auto& d : probe()) out.push_back(std::move(d));
  return out;
}

DeviceRegistry& device_registry() {
  static DeviceRegistry* r = [] {
    auto* reg = new DeviceRegistry;
    reg->add_probe("cpu", [] { return std::vector<DeviceInfo>{probe_cpu()}; });
    return reg;
  }();
  return *r;
}

}  // namespace rung::runtime
