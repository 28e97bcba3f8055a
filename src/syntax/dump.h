// Text dumps for people and golden tests: the tree (`rung parse --tree`), the event stream
// (`rung parse --events`) and diagnostics as one line each with byte spans.
#pragma once

#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "syntax/event.h"
#include "syntax/lexer.h"
#include "syntax/tree.h"

namespace rung::syntax {

// One line per node and token, indented by depth: `BIN_EXPR@4..9`, `IDENT@4..5 "x"`.
std::string dump_tree(const SyntaxTree& tree);
// One line per event, indented by node depth; tokens with their text and byte range.
std::string dump_events(const Lexed& lexed, const ParseOutput& out);
// `E1101 12..13: expected `;`, found `}``, one line each.
std::string dump_diagnostics(const std::vector<Diagnostic>& diags);
// A token text as the dumps quote it: escapes for quotes, backslashes, control characters
// and bytes that are not UTF-8.
std::string quote(std::string_view text);

}  // namespace rung::syntax
