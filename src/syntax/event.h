// The parser's output: a flat list of events, not a tree. Start/Finish bracket a node,
// Token consumes the next significant token, Error points at a diagnostic. The tree
// builder (tree_builder.h) turns events into a green tree; `rung parse --events` prints them.
#pragma once

#include <cstdint>
#include <vector>

#include "base/diagnostic.h"
#include "syntax/syntax_kind.h"

namespace rung::syntax {

enum class EventKind : std::uint8_t { Start, Token, Finish, Error, Tombstone };

struct Event {
  EventKind kind = EventKind::Tombstone;
  SyntaxKind syntax = SyntaxKind::ERROR;  // Start: the node kind; Token: the token kind the tree shows
  // Start: how many events ahead the Start of a node wrapping this one sits (set when a
  //        completed node is preceded, as `a` becomes the left operand of `a + b`); 0: none.
  // Token: the index of the lexer token.   Error: the index into ParseOutput::diagnostics.
  // (One field for the three keeps an event at 8 bytes; a 10 MB file makes millions.)
  std::uint32_t data = 0;
};
static_assert(sizeof(Event) == 8);

struct ParseOutput {
  std::vector<Event> events;
  std::vector<Diagnostic> diagnostics;
};

}  // namespace rung::syntax
