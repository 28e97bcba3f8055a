// Whole-file reads and atomic writes. A write goes to a temporary file beside the target
// and is renamed over it only when complete, so a failure never leaves a half-written file
// where a good one was.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "base/diagnostic.h"
#include "rung/util.h"

namespace rung {

// Reads `path` into memory; on failure reports C0001 and returns nullopt.
// Refuses files larger than `max_bytes` (C0002) rather than exhausting memory.
std::optional<std::string> read_file(const std::string& path, DiagnosticSink& diags,
                                     std::uint64_t max_bytes = std::uint64_t{1} << 34);

// make_writable_dir is public (include/rung/util.h).

// Writes atomically; on failure reports C0003 and returns false.
bool write_file_atomic(const std::string& path, std::span<const std::uint8_t> bytes, DiagnosticSink& diags);

}  // namespace rung
