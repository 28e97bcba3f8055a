// Domain-separation prefixes: the bytes hashed before a canonical encoding, so that a node,
// a region, a graph and a type can never share a hash even if their encodings collided.
// Changing any of these changes every fingerprint (the golden test guards them).
#pragma once

#include <string_view>

namespace rung::domain {
using namespace std::string_view_literals;
inline constexpr std::string_view kNode = "rung/graphir/node\0"sv;
inline constexpr std::string_view kRegion = "rung/graphir/region\0"sv;
inline constexpr std::string_view kGraph = "rung/graphir/graph\0"sv;
inline constexpr std::string_view kType = "rung/graphir/type\0"sv;
}  // namespace rung::domain
