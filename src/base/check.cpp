#include "base/check.h"

#include <cstdio>
#include <cstdlib>

namespace rung::detail {
void internal_error(const char* file, int line, const char* condition, const char* message) {
  std::fprintf(stderr,
               "rung: internal error (a bug in rung, not in your input): %s\n"
               "  check `%s` failed at %s:%d\n"
               "  please report it with the command that led here\n",
               message, condition, file, line);
  std::abort();
}
}  // namespace rung::detail
