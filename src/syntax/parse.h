// The syntax layer's entry points. Parsing never fails: it returns a tree that holds every
// byte of the input, plus the diagnostics (E10xx from the lexer, E11xx from the parser) in
// source order.
#pragma once

#include <string_view>
#include <vector>

#include "base/diagnostic.h"
#include "syntax/event.h"
#include "syntax/lexer.h"
#include "syntax/tree.h"

namespace rung::syntax {

struct Parse {
  SyntaxTree tree;
  std::vector<Diagnostic> diagnostics;
  bool has_errors() const;
};

// Lexes, parses and builds the tree. Spans in the diagnostics refer to `source`.
Parse parse(std::string_view text, SourceId source = kNoSource);

// The parser's raw event stream for already-lexed text (what `rung parse --events` shows).
ParseOutput parse_events(const Lexed& lexed, SourceId source = kNoSource);

// The front end's first stage, as `rung check` runs it: parses `id` from `sources`, appends
// its diagnostics to `diags` and returns the tree for the stages after it.
SyntaxTree check_syntax(const SourceMap& sources, SourceId id, DiagnosticSink& diags);

}  // namespace rung::syntax
