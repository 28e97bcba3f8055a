// Progress of long work (a loop of a run, the kernels conformed before a first run): the
// runtime reports through a callback and never prints itself, so a CLI shows it on stderr,
// a test counts it and a library user can ignore it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace rung::runtime {

struct Progress {
  std::string phase;        // what is running: "conforming", "[train] for loop", "[main] while loop"
  std::int64_t done = 0;    // items, steps or iterations finished
  std::int64_t total = -1;  // -1: unknown (a while loop)
  std::string item;         // the item now started ("softmax f32"); empty when there is none
  double elapsed_s = 0;     // since the phase began (loops)
  bool finished = false;    // the last report of this phase
};

// Empty: nobody listens. Items report when they start, and once more when the phase ends.
using ProgressFn = std::function<void(const Progress&)>;

}  // namespace rung::runtime
