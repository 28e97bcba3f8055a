// The exit codes of every `rung` subcommand (docs/cli.md lists them). One header, so the
// commands and the top-level guard in main.cpp cannot disagree about a number.
#pragma once

namespace rung::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitDiagnostics = 1;  // the input had errors (diagnostics printed)
inline constexpr int kExitUsage = 2;        // the command line was wrong
inline constexpr int kExitPlanRed = 3;      // `rung plan`: the verdict is red (does not fit the budget)
inline constexpr int kExitInternal = 70;    // an internal error caught by main's guard (a bug in rung)

}  // namespace rung::cli
