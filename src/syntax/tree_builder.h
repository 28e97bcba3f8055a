// Turns the parser's events and the lexer's tokens into a green tree. The events name only
// significant tokens; the builder threads the trivia between them back in: whitespace
// goes to the enclosing node, and comments directly above an item or field (no blank line
// between) go inside it, so an item carries its doc comments.
#pragma once

#include "syntax/event.h"
#include "syntax/lexer.h"
#include "syntax/tree.h"

namespace rung::syntax {

// `events` is consumed (forward-parent links are resolved in place).
SyntaxTree build_tree(const Lexed& lexed, std::vector<Event>& events);

}  // namespace rung::syntax
