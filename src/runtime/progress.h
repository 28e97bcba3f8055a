// Progress of long work (a loop of a run, the kernels conformed before a first run): the
// runtime reports through a callback and never prints itself, so a CLI shows it on stderr,
// a test counts it and a library user can ignore it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace rung::runtime {

struct Progress {
  std::string phase;        // what is running, e.g. "[train] for loop", "[main] while loop"
  std::int64_t done = 0;    // steps or iterations finished
  std::int64_t total = -1;  // -1: unknown (a while loop)
  double elapsed_s = 0;     // since the phase began
  bool finished = false;    // the last report of this phase
};
using ProgressFn = std::function<void(const Progress&)>;

}  // namespace rung::runtime
