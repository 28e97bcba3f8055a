// Renders diagnostics for people (source line, underlined spans, labels, notes) and for
// tools (`--error-format=json`, one JSON object per diagnostic).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "base/diagnostic.h"

namespace rung {

struct RenderOptions {
  bool color = false;
  bool tool_prefix = true;  // "rung: error[...]" as the CLI prints it
};

// The sink renderers show diagnostics up to this many errors, then one note (C0099) with
// how many more there were.
inline constexpr std::size_t kMaxErrorsShown = 100;

std::string render_text(const Diagnostic& d, const SourceMap& sources, const RenderOptions& opts = {});
std::string render_text(const DiagnosticSink& sink, const SourceMap& sources, const RenderOptions& opts = {});

nlohmann::json to_json(const Diagnostic& d, const SourceMap& sources);
nlohmann::json to_json(const DiagnosticSink& sink, const SourceMap& sources);

}  // namespace rung
