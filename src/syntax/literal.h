// The values of literal tokens, for the stages after parsing. The lexer has already
// reported malformed literals; these return nullopt for them rather than guess.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rung::syntax {

// `42`, `1_000`, `0x2A`, `0b101`, `0o17`.
std::optional<std::uint64_t> int_value(std::string_view text);
// `1.5`, `1e-3`, `2_000.5`: correctly rounded to the nearest double.
std::optional<double> float_value(std::string_view text);
// `"a\tb\u{1F600}"` with its quotes: the UTF-8 bytes it denotes.
std::optional<std::string> string_value(std::string_view text);

}  // namespace rung::syntax
