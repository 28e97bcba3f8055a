// libFuzzer target for the syntax layer (`make fuzz TARGET=syntax`). For any bytes: the tree
// prints them back exactly, the parser never gets stuck (no E1199), every diagnostic span
// lies inside the input, and when the input parses cleanly the formatter accepts it (its
// self-check passes) and a second formatting pass changes nothing.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "syntax/format.h"
#include "syntax/parse.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rung::syntax;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  Parse p = parse(input, 0);
  if (p.tree.text() != input) std::abort();
  for (const rung::Diagnostic& d : p.diagnostics) {
    if (d.code == "E1199") std::abort();
    const rung::Label* l = d.primary_label();
    if (!l || l->span.begin > l->span.end || l->span.end > size) std::abort();
  }
  rung::SourceMap sources;
  sources.add("fuzz.rung", std::string(input));  // source 0, as parse() was told
  rung::fuzz::check_diagnostics(p.diagnostics, sources);
  if (p.has_errors()) return 0;
  std::vector<rung::Diagnostic> diags;
  std::optional<std::string> once = format_source(input, 0, diags);
  if (!once) std::abort();  // E1901: the formatter's own check failed
  std::optional<std::string> twice = format_source(*once, 0, diags);
  if (!twice || *twice != *once) std::abort();
  return 0;
}
