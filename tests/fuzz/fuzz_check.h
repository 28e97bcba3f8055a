// What every fuzz target demands of the diagnostics a loader reports, whatever the input:
// each has a code, each label lies inside a file of the SourceMap, both renderings the CLI
// prints (text, and `--error-format json`, which must be valid UTF-8) succeed, and together
// they are at most 1 MiB + 256 bytes per input byte. A violation aborts, so libFuzzer and
// the replay driver report the input.
#pragma once

#include <cstdlib>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/diagnostic.h"
#include "base/diagnostic_render.h"

namespace rung::fuzz {

inline void check_diagnostics(const std::vector<Diagnostic>& diags, const SourceMap& sources) {
  std::size_t input = 0, shown = 0;
  for (std::size_t i = 0; i < sources.size(); ++i) input += sources.get(static_cast<SourceId>(i)).text().size();
  for (const Diagnostic& d : diags) {
    if (d.code.empty()) std::abort();
    for (const Label& l : d.labels) {
      if (!l.span.valid()) continue;
      if (l.span.source >= sources.size() || l.span.begin > l.span.end ||
          l.span.end > sources.get(l.span.source).text().size())
        std::abort();
    }
    shown += render_text(d, sources).size();
    shown += to_json(d, sources).dump(2).size();  // throws (and so aborts) on bytes that are not UTF-8
  }
  if (shown > (std::size_t{1} << 20) + 256 * input) std::abort();  // what is printed grows with the input, no faster
}

inline void check_diagnostics(const DiagnosticSink& diags, const SourceMap& sources) { check_diagnostics(diags.all(), sources); }

}  // namespace rung::fuzz
