#include "plan/exec_plan.h"

#include <algorithm>
#include <cstdio>

#include "base/canonical.h"
#include "plan/size.h"

namespace rung::plan {
namespace {
constexpr std::string_view kDomain{"rung/plan/exec\0", 15};

std::string ids_text(const std::vector<std::uint32_t>& ids, const MemoryPlan& plan) {
  std::string s;
  for (auto id : ids) {
    const Buffer& b = plan.buffers[id];
    s += (s.empty() ? "" : ", ") + ("b" + std::to_string(id)) + "@" + std::string(memspace_name(b.space)) + "+" + std::to_string(b.offset);
  }
  return s;
}
bool in_place(const Dispatch& d) {
  for (auto o : d.outputs)
    if (std::find(d.inputs.begin(), d.inputs.end(), o) != d.inputs.end()) return true;
  return false;
}
}  // namespace

Hash256 exec_plan_hash(const MemoryPlan& plan) {
  CanonicalWriter w;
  w.raw(kDomain);
  w.str(device_name(plan.device));
  w.str(plan.entry);
  w.u32(static_cast<std::uint32_t>(plan.buffers.size()));
  for (const auto& b : plan.buffers) {
    w.u64(b.bytes);
    w.u8(static_cast<std::uint8_t>(b.cls));
    w.u8(static_cast<std::uint8_t>(b.space));
    w.u64(b.offset);
    w.str(b.type);
    w.u32(b.alloc_event);
    w.u32(b.free_event);
    w.u32(b.tiles);
  }
  w.u32(static_cast<std::uint32_t>(plan.dispatches.size()));
  for (const auto& d : plan.dispatches) {
    w.str(d.region);
    w.u32(d.node);
    w.str(d.op);
    w.u32(static_cast<std::uint32_t>(d.inputs.size()));
    for (auto i : d.inputs) w.u32(i);
    w.u32(static_cast<std::uint32_t>(d.outputs.size()));
    for (auto o : d.outputs) w.u32(o);
    w.u32(d.tiles);
  }
  return sha3_256(w.data());
}

nlohmann::json to_json(const MemoryPlan& plan, const Assessment* a) {
  using nlohmann::json;
  json classes = json::array();
  for (std::size_t c = 0; c < kClassCount; ++c)
    classes.push_back({{"class", class_name(static_cast<AllocClass>(c))}, {"at_peak", plan.at_peak[c]}, {"max", plan.class_max[c]}});
  json arenas = json::object();
  for (const auto& [space, size] : plan.arenas) arenas[std::string(memspace_name(space))] = size;
  json buffers = json::array();
  for (const auto& b : plan.buffers)
    buffers.push_back({{"id", b.id}, {"bytes", b.bytes}, {"class", class_name(b.cls)}, {"space", memspace_name(b.space)},
                       {"offset", b.offset}, {"type", b.type}, {"what", b.what}, {"alloc_event", b.alloc_event},
                       {"free_event", b.free_event}, {"tiles", b.tiles}});
  json dispatches = json::array();
  for (const auto& d : plan.dispatches)
    dispatches.push_back({{"region", d.region}, {"node", d.node}, {"op", d.op}, {"inputs", d.inputs}, {"outputs", d.outputs},
                          {"shapes", d.shapes}, {"tiles", d.tiles}});
  json tilings = json::array();
  for (const auto& t : plan.tilings) tilings.push_back({{"dispatch", t.dispatch}, {"largest", t.largest}, {"tiles", t.tiles}, {"why", t.why}});
  json streams = json::array();
  for (const auto& st : plan.streams)
    streams.push_back({{"region", st.region}, {"rows", st.rows}, {"chunk", st.chunk}, {"why", st.why}});
  json j = {{"format", "rung-exec-plan"}, {"version", 1}, {"hash", exec_plan_hash(plan).hex()},
            {"device", device_name(plan.device)}, {"entry", plan.entry}, {"peak", plan.peak},
            {"peak_at", plan.sites.empty() ? std::string() : plan.sites[plan.peak_site].text},
            {"classes", classes}, {"arenas", arenas}, {"arena_total", plan.arena_total}, {"no_reuse", plan.no_reuse},
            {"in_place", {{"dispatches", plan.in_place_dispatches}, {"bytes", plan.in_place_bytes}}},
            {"batch_dim", plan.batch_dim}, {"batch", plan.batch_extent}, {"tilings", tilings}, {"streams", streams},
            {"buffers", buffers}, {"dispatches", dispatches}};
  if (a) {
    json sugg = json::array();
    for (const auto& s : a->suggestions) sugg.push_back({{"change", s.what}, {"peak", s.peak}, {"required", s.required}, {"fits", s.fits}});
    j["verdict"] = {{"verdict", verdict_name(a->verdict)}, {"budget", a->budget}, {"budget_source", a->budget_source},
                    {"required", a->required}, {"reasons", a->reasons}, {"warnings", a->warnings}, {"suggestions", sugg}};
  }
  return j;
}

std::string summary_text(const MemoryPlan& plan) {
  std::string s;
  char line[256];
  std::snprintf(line, sizeof line, "%-34s %14s %14s\n", "class", "at peak", "class max");
  s += line;
  for (std::size_t c = 0; c < kClassCount; ++c) {
    std::snprintf(line, sizeof line, "%-34s %14s %14s\n", std::string(class_name(static_cast<AllocClass>(c))).c_str(),
                  format_bytes(plan.at_peak[c]).c_str(), format_bytes(plan.class_max[c]).c_str());
    s += line;
  }
  s += "peak          " + format_bytes(plan.peak) + " (" + std::to_string(plan.peak) + " bytes) live at once\n";
  s += "where         " + (plan.sites.empty() ? std::string("-") : plan.sites[plan.peak_site].text) + "\n";
  for (const auto& [space, size] : plan.arenas)
    s += "arena " + std::string(memspace_name(space)) + std::string(8 - std::min<std::size_t>(8, memspace_name(space).size()), ' ') +
         format_bytes(size) + " (" + std::to_string(size) + " bytes, offsets assigned with reuse)\n";
  s += "no reuse      " + format_bytes(plan.no_reuse) + " (every buffer its own memory)\n";
  s += "dispatches    " + std::to_string(plan.dispatches.size()) + ", buffers " + std::to_string(plan.buffers.size()) + "\n";
  s += "in place      " + std::to_string(plan.in_place_dispatches) + " dispatches write into a dying operand's buffer (" +
       format_bytes(plan.in_place_bytes) + " not allocated)\n";
  if (!plan.batch_dim.empty()) s += "batch dim     " + plan.batch_dim + " = " + std::to_string(plan.batch_extent) + "\n";
  for (const auto& t : plan.tilings)
    s += (t.tiles ? "tiled         " + std::to_string(t.tiles) + " tiles: " : std::string("cannot tile   ")) + t.why + "\n";
  for (const auto& st : plan.streams)
    s += st.chunk ? "streamed      `" + st.region + "`: " + std::to_string(st.rows) + " rows in chunks of " + std::to_string(st.chunk) + "\n"
                  : "not streamed  " + st.why + " (runs whole on " + std::to_string(st.rows) + " rows)\n";
  if (!plan.left_out.empty()) s += "not counted   " + plan.left_out + "\n";
  s += "exec plan     sha3 " + exec_plan_hash(plan).hex() + "\n";
  return s;
}

std::string dispatch_text(const MemoryPlan& plan) {
  std::string s = "exec plan " + exec_plan_hash(plan).hex() + "  device " + std::string(device_name(plan.device)) + "  entry " +
                  plan.entry + "\n";
  for (const auto& [space, size] : plan.arenas) s += "arena " + std::string(memspace_name(space)) + " " + std::to_string(size) + " bytes\n";
  for (std::size_t i = 0; i < plan.dispatches.size(); ++i) {
    const Dispatch& d = plan.dispatches[i];
    std::string shapes;
    for (const auto& sh : d.shapes) shapes += (shapes.empty() ? "" : ", ") + sh;
    s += "#" + std::to_string(i) + " " + d.region + " node " + std::to_string(d.node) + " " + d.op + " (" + ids_text(d.inputs, plan) +
         ") -> (" + ids_text(d.outputs, plan) + ") " + shapes + (in_place(d) ? "  in place" : "") + (d.tiles > 1 ? "  tiles " + std::to_string(d.tiles) : "") + "\n";
  }
  return s;
}

}  // namespace rung::plan
