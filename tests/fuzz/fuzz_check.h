// What every fuzz target demands of the diagnostics a loader reports, whatever the input:
// each has a code, each label lies inside a file of the SourceMap, and both renderings the
// CLI prints (text, and `--error-format json`, which must be valid UTF-8) succeed. A
// violation aborts, so libFuzzer and the replay driver report the input.
#pragma once

#include <cstdlib>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/diagnostic.h"
#include "base/diagnostic_render.h"

namespace rung::fuzz {

inline void check_diagnostics(const std::vector<Diagnostic>& diags, const SourceMap& sources) {
  for (const Diagnostic& d : diags) {
    if (d.code.empty()) std::abort();
    for (const Label& l : d.labels) {
      if (!l.span.valid()) continue;
      if (l.span.source >= sources.size() || l.span.begin > l.span.end ||
          l.span.end > sources.get(l.span.source).text().size())
        std::abort();
    }
    (void)render_text(d, sources);
    (void)to_json(d, sources).dump(2);  // throws (and so aborts) on bytes that are not UTF-8
  }
}

inline void check_diagnostics(const DiagnosticSink& diags, const SourceMap& sources) { check_diagnostics(diags.all(), sources); }

}  // namespace rung::fuzz
