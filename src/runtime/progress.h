// Progress of long work (conforming kernels before a run, ...), reported through a callback
// so the library never writes to a terminal itself: the CLI prints it (one updating line on
// a TTY, plain lines otherwise), and the public API will hand the callback to its caller.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace rung::runtime {

struct Progress {
  std::string_view phase;  // what is being done: "conforming"
  std::uint64_t done = 0;  // items finished; the item below is number done + 1
  std::uint64_t total = 0;
  std::string item;        // the item now started ("softmax f32"); empty once done == total
};

// Called when an item starts, and once more with done == total when the phase ends. Empty:
// nobody listens.
using ProgressFn = std::function<void(const Progress&)>;

}  // namespace rung::runtime
