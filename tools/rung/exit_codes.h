// The exit codes beyond the three every subcommand shares (kExitOk 0, kExitDiagnostics 1,
// kExitUsage 2, in command.h); docs/cli.md lists them all. One place, so `rung plan` and
// the top-level guard in main.cpp cannot disagree about a number.
#pragma once

namespace rung::cli {

inline constexpr int kExitPlanRed = 3;    // `rung plan`: the verdict is red (does not fit the budget)
inline constexpr int kExitInternal = 70;  // an internal error caught by main's guard (a bug in rung)

}  // namespace rung::cli
