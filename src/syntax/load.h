// Reading a .rung file into a SourceMap for the front end ("-" reads standard input).
#pragma once

#include <optional>
#include <string>

#include "base/diagnostic.h"

namespace rung::syntax {

// Source files are limited to 4 GiB - 1 bytes, the range a Span can address.
inline constexpr std::uint64_t kMaxSourceBytes = 0xFFFFFFFEull;

// Adds the file to `sources`; on failure reports C0001/C0002 and returns nullopt.
std::optional<SourceId> load_source(const std::string& path, SourceMap& sources, DiagnosticSink& diags);

}  // namespace rung::syntax
