#include "conformance/codec.h"

#include <chrono>
#include <ctime>

#include "base/utf8.h"

namespace rung::conformance {

bool read_str(ByteReader& r, std::string& out) {
  std::uint32_t n;
  std::span<const std::uint8_t> b;
  if (!r.u32(n) || n > (1u << 20) || !r.take(n, b)) return false;
  out.assign(b.begin(), b.end());
  return utf8::is_valid(out);
}

void write_profile(CanonicalWriter& w, const runtime::DeviceProfile& p) {
  w.str(p.backend);
  w.str(p.device);
  w.u64(p.facts.size());
  for (const auto& [k, v] : p.facts) {
    w.str(k);
    w.str(v);
  }
}

bool read_profile(ByteReader& r, runtime::DeviceProfile& p) {
  std::uint64_t n;
  if (!read_str(r, p.backend) || !read_str(r, p.device) || !r.u64(n) || n > 4096) return false;
  for (std::uint64_t i = 0; i < n; ++i) {
    std::string k, v;
    if (!read_str(r, k) || !read_str(r, v)) return false;
    p.facts[k] = v;
  }
  return true;
}

std::string utc_now() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace rung::conformance
