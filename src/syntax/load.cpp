#include "syntax/load.h"

#include <iostream>
#include <iterator>

#include "base/file_io.h"

namespace rung::syntax {

std::optional<SourceId> load_source(const std::string& path, SourceMap& sources, DiagnosticSink& diags) {
  if (path == "-") {
    std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    if (text.size() > kMaxSourceBytes) {
      diags.error("C0002", "standard input is larger than the limit of " + std::to_string(kMaxSourceBytes) + " bytes");
      return std::nullopt;
    }
    return sources.add("<stdin>", std::move(text));
  }
  std::optional<std::string> text = read_file(path, diags, kMaxSourceBytes);
  if (!text) return std::nullopt;
  return sources.add(path, std::move(*text));
}

}  // namespace rung::syntax
