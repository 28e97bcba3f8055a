// Counts the bytes of tensor values an executor holds, and their peak, so a run can report
// measured memory next to the plan's prediction (src/plan). What counts: every value a
// region interpreter produces (node outputs, freed after their last use), every value a
// BlockIR frame holds in a slot (until its last use, overwritten, or the frame returns), and the entry
// function's arguments. Region and callee parameters are borrowed from their caller and are
// not counted again; neither are the transient copies made to hand operands to a kernel.
//
// A meter is activated for the current thread with ScopedMeter; with none active, the
// hooks cost one thread-local load.
#pragma once

#include <cstdint>

#include "ops/host_tensor.h"

namespace rung::runtime {

class MemoryMeter {
 public:
  void allocate(std::uint64_t bytes);
  void release(std::uint64_t bytes);
  std::uint64_t live() const { return live_; }
  std::uint64_t peak() const { return peak_; }
  std::uint64_t allocations() const { return allocations_; }

 private:
  std::uint64_t live_ = 0, peak_ = 0, allocations_ = 0;
};

// The meter active on this thread, or null.
MemoryMeter* active_meter();

class ScopedMeter {
 public:
  explicit ScopedMeter(MemoryMeter* m);
  ~ScopedMeter();
  ScopedMeter(const ScopedMeter&) = delete;
  ScopedMeter& operator=(const ScopedMeter&) = delete;

 private:
  MemoryMeter* previous_;
};

// Hooks for executors: no-ops without an active meter.
inline void meter_allocate(const ops::HostTensor& t) {
  if (MemoryMeter* m = active_meter()) m->allocate(t.bytes().size());
}
inline void meter_release(const ops::HostTensor& t) {
  if (MemoryMeter* m = active_meter()) m->release(t.bytes().size());
}

}  // namespace rung::runtime
