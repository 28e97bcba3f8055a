// Checks of command-line values shared by several subcommands (defined in main.cpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/diagnostic.h"

namespace rung::cli {

// The choice closest to `got` by edit distance, if one is close enough to be a likely typo
// ("" otherwise): for "did you mean" notes on names the command line got wrong.
std::string closest_choice(std::string_view got, const std::vector<std::string>& choices);

// Checks a --tier value: C0012 (with the closest tier) when it names none. Empty passes.
bool check_tier_option(const std::string& tier, DiagnosticSink& diags);

}  // namespace rung::cli
