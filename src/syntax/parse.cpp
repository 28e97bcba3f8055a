#include "syntax/parse.h"

#include <algorithm>

#include "syntax/grammar.h"
#include "syntax/tree_builder.h"

namespace rung::syntax {

bool Parse::has_errors() const {
  return std::any_of(diagnostics.begin(), diagnostics.end(),
                     [](const Diagnostic& d) { return d.severity == Severity::Error; });
}

ParseOutput parse_events(const Lexed& lexed, SourceId source) {
  Parser p(lexed, source);
  grammar::source_file(p);
  return p.finish();
}

Parse parse(std::string_view text, SourceId source) {
  Lexed lexed = lex(text, source);
  ParseOutput out = parse_events(lexed, source);
  SyntaxTree tree = build_tree(lexed, out.events);
  std::vector<Diagnostic> diags = lexed.diagnostics();
  diags.insert(diags.end(), std::make_move_iterator(out.diagnostics.begin()),
               std::make_move_iterator(out.diagnostics.end()));
  // Source order; the lexer's report comes first when both point at the same place.
  std::stable_sort(diags.begin(), diags.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return a.primary_label()->span.begin < b.primary_label()->span.begin;
  });
  return Parse{std::move(tree), std::move(diags)};
}

SyntaxTree check_syntax(const SourceMap& sources, SourceId id, DiagnosticSink& diags) {
  Parse result = parse(sources.get(id).text(), id);
  for (Diagnostic& d : result.diagnostics) {
    Diagnostic& out = diags.add(d.severity, d.code, d.message);
    out.labels = std::move(d.labels);
    out.notes = std::move(d.notes);
    out.suggestions = std::move(d.suggestions);
  }
  return std::move(result.tree);
}

}  // namespace rung::syntax
