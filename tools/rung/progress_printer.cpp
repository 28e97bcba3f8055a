#include "progress_printer.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

namespace rung::cli {

ProgressCallback stderr_progress() {
  struct State {
    bool tty = isatty(fileno(stderr)) != 0;
    std::chrono::steady_clock::time_point start;
    bool shown = false;  // a line is on the terminal
  };
  auto st = std::make_shared<State>();
  return [st](const Progress& p) {
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

// Loop progress on stderr (runtime/progress.h): the count, of the total when it is known
// (a for loop), else so far (a while loop), with the time and rate.
void print_loop_progress(const Progress& p) {
  double rate = p.elapsed_s > 0 ? static_cast<double>(p.done) / p.elapsed_s : 0.0;
  if (p.finished)
    std::fprintf(stderr, "  %s done: %lld iterations in %.1f s\n", p.phase.c_str(), static_cast<long long>(p.done), p.elapsed_s);
  else if (p.total >= 0)
    std::fprintf(stderr, "  %s: step %lld/%lld, %.1f s, %.1f steps/s\n", p.phase.c_str(), static_cast<long long>(p.done),
                 static_cast<long long>(p.total), p.elapsed_s, rate);
  else
    std::fprintf(stderr, "  %s: iteration %lld (no known end), %.1f s, %.1f iterations/s\n", p.phase.c_str(),
                 static_cast<long long>(p.done), p.elapsed_s, rate);
}

ProgressCallback run_progress() {
  auto conforming = stderr_progress();
  return [conforming](const Progress& p) {
    if (p.phase == "conforming") conforming(p);
    else print_loop_progress(p);
  };
}

}  // namespace rung::cli
