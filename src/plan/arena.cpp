// Peak, per-class figures and offset assignment. Offsets: buffers sorted by size (largest
// first, then by allocation order), each placed at the lowest offset of its memory space's
// arena where it overlaps no already placed buffer that is live at the same time.
#include <algorithm>

#include "plan/memory_plan.h"

namespace rung::plan {

void finish(MemoryPlan& plan) {
  const auto end = static_cast<std::uint32_t>(plan.events.size());
  for (auto& b : plan.buffers)
    if (b.free_event == UINT32_MAX) b.free_event = end;

  std::uint64_t live = 0;
  ClassBytes cls{};
  plan.peak = 0;
  plan.peak_site = 0;
  plan.at_peak = {};
  plan.class_max = {};
  plan.no_reuse = 0;
  for (const auto& e : plan.events) {
    const Buffer& b = plan.buffers[e.buffer];
    auto c = static_cast<std::size_t>(b.cls);
    if (e.alloc) {
      live += b.bytes;
      cls[c] += b.bytes;
      plan.no_reuse += b.bytes;
      plan.class_max[c] = std::max(plan.class_max[c], cls[c]);
      if (live > plan.peak) {
        plan.peak = live;
        plan.peak_site = e.at;
        plan.at_peak = cls;
      }
    } else {
      live -= b.bytes;
      cls[c] -= b.bytes;
    }
  }

  std::vector<std::uint32_t> order(plan.buffers.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const Buffer &x = plan.buffers[a], &y = plan.buffers[b];
    return x.bytes != y.bytes ? x.bytes > y.bytes : x.alloc_event < y.alloc_event;
  });
  std::vector<std::uint32_t> placed;
  plan.arenas.clear();
  for (std::uint32_t id : order) {
    Buffer& b = plan.buffers[id];
    // Intervals of placed buffers live at the same time, in the same space, by offset.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> busy;
    for (std::uint32_t o : placed) {
      const Buffer& p = plan.buffers[o];
      if (p.space == b.space && p.alloc_event < b.free_event && b.alloc_event < p.free_event)
        busy.emplace_back(p.offset, p.offset + p.bytes);
    }
    std::sort(busy.begin(), busy.end());
    std::uint64_t at = 0;
    for (const auto& [lo, hi] : busy) {
      if (lo >= at + b.bytes) break;
      at = std::max(at, hi);
    }
    b.offset = at;
    placed.push_back(id);
    auto& arena = plan.arenas[b.space];
    arena = std::max(arena, at + b.bytes);
  }
  plan.arena_total = 0;
  for (const auto& [space, size] : plan.arenas) plan.arena_total += size;
  plan.in_place_dispatches = 0;
  plan.in_place_bytes = 0;
  for (const auto& d : plan.dispatches)
    for (auto o : d.outputs)
      if (std::find(d.inputs.begin(), d.inputs.end(), o) != d.inputs.end()) {
        ++plan.in_place_dispatches;
        plan.in_place_bytes += plan.buffers.at(o).bytes;
      }
}

}  // namespace rung::plan
