// Small text utilities shared by diagnostics ("did you mean ...?").
#pragma once

#include <cstddef>
#include <string_view>

namespace rung {
// Levenshtein distance (insertions, deletions, substitutions all cost 1). With a `bound`,
// any distance above it is returned as bound + 1, in O(bound * length) time: "did you
// mean" only wants near names, and two 64K-character names must not take seconds.
std::size_t edit_distance(std::string_view a, std::string_view b, std::size_t bound = static_cast<std::size_t>(-1) / 2);
}  // namespace rung
