#include "progress_printer.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

namespace rung::cli {

runtime::ProgressFn stderr_progress() {
  struct State {
    bool tty = isatty(fileno(stderr)) != 0;
    std::chrono::steady_clock::time_point start;
    bool shown = false;  // a line is on the terminal
  };
  auto st = std::make_shared<State>();
  return [st](const runtime::Progress& p) {
    auto now = std::chrono::steady_clock::now();
    if (p.done == 0) st->start = now;
    const bool ending = p.done >= p.total;
    // Only phases that last: nothing is printed during the first second.
    if (now - st->start < std::chrono::seconds(1) && !st->shown) return;
    if (st->tty) {
      // \r and erase-line: the line is rewritten in place, and cleared when the phase ends.
      std::string line = ending ? "" : std::string(p.phase) + " " + std::to_string(p.done + 1) + "/" + std::to_string(p.total) +
                                           (p.item.empty() ? "" : ": " + p.item);
      std::fprintf(stderr, "\r\033[K%s", line.c_str());
      st->shown = !ending;
    } else if (!ending) {
      std::fprintf(stderr, "%.*s %llu/%llu: %s\n", static_cast<int>(p.phase.size()), p.phase.data(),
                   static_cast<unsigned long long>(p.done + 1), static_cast<unsigned long long>(p.total), p.item.c_str());
    }
    std::fflush(stderr);
  };
}

}  // namespace rung::cli
