// The thread count the CPU benches run with: RUNG_CPU_THREADS, else 2 (the CI machine's
// cores), so rung and its peer are measured on the same number of cores.
#pragma once

#include <cstdlib>

namespace rung::bench {

inline unsigned cpu_threads() {
  if (const char* s = std::getenv("RUNG_CPU_THREADS")) return static_cast<unsigned>(std::atoi(s));
  return 2;
}

}  // namespace rung::bench
