// Small helpers every surface needs the same way: names suggested for typos, sizes as people
// write them, output folders checked before work is done.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rung/export.h"

namespace rung {

// The choice `got` was probably meant to be (a third of its letters may be wrong), or empty:
// what "did you mean" notes suggest.
RUNG_API std::string closest_choice(std::string_view got, const std::vector<std::string>& choices);

// "4096", "128MiB", "2GiB", "1.5KB": bytes or a count; nullopt when not a size.
RUNG_API std::optional<std::uint64_t> parse_size(std::string_view text);

// Makes the folder (and its parents) and checks a file can be written there: why not, or
// nullopt. Called before a long run so that a bad output folder loses no work.
RUNG_API std::optional<std::string> make_writable_dir(const std::string& dir);

}  // namespace rung
