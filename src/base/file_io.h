// Whole-file reads and atomic writes. A write goes to a temporary file beside the target
// and is renamed over it only when complete, so a failure never leaves a half-written file
// where a good one was.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "base/diagnostic.h"

namespace rung {

// Reads `path` into memory; on failure reports C0001 and returns nullopt.
// Refuses files larger than `max_bytes` (C0002) rather than exhausting memory.
std::optional<std::string> read_file(const std::string& path, DiagnosticSink& diags,
                                     std::uint64_t max_bytes = std::uint64_t{1} << 34);

// Makes folder `dir` (and its parents) and checks that a file can be created in it, so a
// command can refuse an output folder before it does its work. Returns why not, or nullopt.
std::optional<std::string> make_writable_dir(const std::string& dir);

// Writes atomically; on failure reports C0003 and returns false.
bool write_file_atomic(const std::string& path, std::span<const std::uint8_t> bytes, DiagnosticSink& diags);

}  // namespace rung
