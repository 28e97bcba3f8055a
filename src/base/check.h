// Internal invariants. rung has two error channels (STYLE.md §12): user errors are
// Diagnostics with a code and a location; a failed RUNG_CHECK is a bug in rung itself,
// reported with file:line and aborted on, never shown to the user as their mistake.
#pragma once

namespace rung::detail {
[[noreturn]] void internal_error(const char* file, int line, const char* condition, const char* message);
}  // namespace rung::detail

#define RUNG_CHECK(cond, msg)                                              \
  do {                                                                     \
    if (!(cond)) ::rung::detail::internal_error(__FILE__, __LINE__, #cond, msg); \
  } while (0)

#define RUNG_UNREACHABLE(msg) ::rung::detail::internal_error(__FILE__, __LINE__, "unreachable", msg)
