#include "runtime/memory_meter.h"

#include "base/check.h"

namespace rung::runtime {
namespace {
thread_local MemoryMeter* current = nullptr;
}

void MemoryMeter::allocate(std::uint64_t bytes) {
  live_ += bytes;
  ++allocations_;
  if (live_ > peak_) peak_ = live_;
}

void MemoryMeter::release(std::uint64_t bytes) {
  RUNG_CHECK(bytes <= live_, "memory meter released more bytes than it holds");
  live_ -= bytes;
}

MemoryMeter* active_meter() { return current; }

ScopedMeter::ScopedMeter(MemoryMeter* m) : previous_(current) { current = m; }
ScopedMeter::~ScopedMeter() { current = previous_; }

}  // namespace rung::runtime
