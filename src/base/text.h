// Small text utilities shared by diagnostics ("did you mean ...?").
#pragma once

#include <cstddef>
#include <string_view>

namespace rung {
// Levenshtein distance (insertions, deletions, substitutions all cost 1).
std::size_t edit_distance(std::string_view a, std::string_view b);
}  // namespace rung
