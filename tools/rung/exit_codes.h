// Every exit code of the CLI, in one place so that subcommands and the top-level guard in
// main.cpp cannot disagree about a number; docs/cli.md lists them all.
#pragma once

namespace rung::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitDiagnostics = 1;  // the input had errors (diagnostics printed)
inline constexpr int kExitUsage = 2;        // the command line was wrong
inline constexpr int kExitPlanRed = 3;      // `rung plan`: the verdict is red (does not fit the budget)
inline constexpr int kExitInternal = 70;    // a bug in rung (Z0001): something escaped every check

}  // namespace rung::cli
