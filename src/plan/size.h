// Byte sizes as people write them: "2GiB", "512 MiB", "1.5GB", "65536". Binary units
// (KiB, MiB, GiB, TiB) are powers of 1024, decimal ones (KB, MB, GB, TB) of 1000; a bare
// number is bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rung::plan {

std::optional<std::uint64_t> parse_size(std::string_view text);
std::string format_bytes(std::uint64_t bytes);  // "1.42 MiB", "812 B"

}  // namespace rung::plan
