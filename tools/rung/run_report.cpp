// What `rung run` prints about a run (also `rung replay`, which shows the run it replays).
#include "run_report.h"

#include <set>

namespace rung::cli {

void print_streams(const std::vector<StreamStats>& streams, std::FILE* out) {
  for (const auto& st : streams)
    std::fprintf(out, "%s\n", st.chunk ? ("streamed     `" + st.region + "`: " + std::to_string(st.rows) + " rows in chunks of " +
                                          std::to_string(st.chunk)).c_str()
                                      : ("not streamed " + st.why + " (runs whole)").c_str());
}

void print_run_text(const RunResult& r, const std::string& backend, std::FILE* out) {
  std::fprintf(out, "fingerprint  %s\ngraph        %s\nblockir      %s\nentry        %s (tier %s, backend %s)\n", r.fingerprint.c_str(),
              r.graph_fingerprint.c_str(), r.blockir.c_str(), r.entry.c_str(), r.tier.c_str(), r.backend.c_str());
  const MemoryStats& m = r.stats.memory;
  std::string mem_line = "memory       measured " + std::to_string(m.measured_peak) + " bytes";
  if (m.planned_peak) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "memory       planned %llu, measured %llu bytes (delta %+.2f%%)",
                  static_cast<unsigned long long>(*m.planned_peak), static_cast<unsigned long long>(m.measured_peak), m.delta_percent);
    mem_line = buf;
    if (!m.not_counted.empty()) mem_line += "; host and " + backend + " buffers, not counted: " + m.not_counted;
  } else if (!m.no_plan.empty()) {
    mem_line += " (no plan: " + m.no_plan + ")";
  }
  std::fprintf(out, "%s\n", mem_line.c_str());
  // Regions the policy placed off the requested backend (host scalars, capability, budget,
  // load threshold): visible here and kept in the record.
  for (const auto& d : r.stats.placements)
    std::fprintf(out, "placement    %s -> %s: %s%s\n", d.scope.c_str(), d.backend.c_str(), d.reason.c_str(),
                d.times > 1 ? (" (x" + std::to_string(d.times) + ")").c_str() : "");
  if (r.stats.shadow) std::fprintf(out, "%s\n", r.stats.shadow->summary.c_str());
  if (const auto& t = r.stats.transfers)  // a device backend: what crossed the bus (kept in the record)
    std::fprintf(out, "transfers    to device %llu bytes in %llu uploads, from device %llu bytes in %llu downloads\n",
                static_cast<unsigned long long>(t->to_device_bytes), static_cast<unsigned long long>(t->uploads),
                static_cast<unsigned long long>(t->from_device_bytes), static_cast<unsigned long long>(t->downloads));
  // Fused elementwise regions a device backend generated kernels for, and any it ran op by op.
  if (const auto& kernels = r.stats.generated_kernels; !kernels.empty()) {
    std::set<std::string> distinct;
    std::vector<std::string> detours;
    for (const auto& [region, id] : kernels) {
      if (id.rfind("op by op", 0) == 0) detours.push_back(region + ": " + id);
      else distinct.insert(id);
    }
    std::fprintf(out, "fused        %zu regions as one generated kernel each (%zu distinct kernels), %zu op by op\n",
                kernels.size() - detours.size(), distinct.size(), detours.size());
    for (const auto& d : detours) std::fprintf(out, "fused        %s\n", d.c_str());
  }
  if (!r.reproducibility.empty()) std::fprintf(out, "reproducible %s\n", r.reproducibility.c_str());
}

void print_output_line(std::size_t i, const Output& o, const std::string& path, std::FILE* out) {
  std::fprintf(out, "output %zu     %s: %s  sha3 %s%s\n", i, o.name.c_str(), o.tensor.type().c_str(), o.tensor.hash().c_str(),
               path.empty() ? "" : ("  -> " + path).c_str());
}

nlohmann::json memory_json(const MemoryStats& m) {
  nlohmann::json j = {{"measured_peak", m.measured_peak}};
  if (m.planned_peak) {
    if (!m.not_counted.empty()) j["not_counted"] = m.not_counted;
    j["planned_peak"] = *m.planned_peak;
    j["delta_percent"] = m.delta_percent;
  }
  return j;
}

}  // namespace rung::cli
