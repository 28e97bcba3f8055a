// UTF-8 validation and decoding (RFC 3629: no overlongs, no surrogates, max U+10FFFF).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace rung::utf8 {

// Decodes one scalar value at `s[pos]`. Returns its byte length (1..4) and stores the
// code point, or returns 0 when the bytes there are not valid UTF-8.
std::size_t decode(std::string_view s, std::size_t pos, char32_t& cp);

bool is_valid(std::string_view s);

// `s` with every byte that is not part of valid UTF-8 replaced by U+FFFD, so it can go
// into JSON (diagnostics quote file names, tokens and headers byte for byte).
std::string scrub(std::string_view s);

// Offset of the first invalid byte, or s.size() when the whole string is valid.
std::size_t first_invalid(std::string_view s);

}  // namespace rung::utf8
