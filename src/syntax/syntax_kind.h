// SyntaxKind: one enum for tokens and nodes (listed in syntax_kind.def), so the green tree,
// the event stream and the parser's token sets speak the same vocabulary.
#pragma once

#include <cstdint>
#include <string_view>

namespace rung::syntax {

enum class SyntaxKind : std::uint16_t {
#define RUNG_TRIVIA(name, desc) name,
#define RUNG_TOKEN(name, desc) name,
#define RUNG_KEYWORD(name, text) name,
#define RUNG_CONTEXTUAL(name, text) name,
#define RUNG_PUNCT(name, text) name,
#include "syntax/syntax_kind.def"
  kLastToken_,  // every kind before this is a token
#define RUNG_NODE(name) name,
#include "syntax/syntax_kind.def"
  kCount_,
};

inline constexpr int kTokenKindCount = static_cast<int>(SyntaxKind::kLastToken_);
static_assert(kTokenKindCount <= 128, "token kinds must fit a TokenSet");

inline bool is_token(SyntaxKind k) { return k < SyntaxKind::kLastToken_; }
inline bool is_node(SyntaxKind k) { return k > SyntaxKind::kLastToken_ && k < SyntaxKind::kCount_; }
// Trivia kinds come first in the enum (syntax_kind.def), so these are comparisons.
inline bool is_trivia(SyntaxKind k) { return k <= SyntaxKind::BLOCK_COMMENT; }
inline bool is_comment(SyntaxKind k) { return k > SyntaxKind::WHITESPACE && k <= SyntaxKind::BLOCK_COMMENT; }
bool is_keyword(SyntaxKind k);     // reserved or contextual
bool is_punct(SyntaxKind k);

// "FN_KW", "BIN_EXPR": the names used by tree and event dumps.
std::string_view kind_name(SyntaxKind k);
// How a diagnostic names a token kind: "`fn`", "identifier", "end of file".
std::string_view describe(SyntaxKind k);
// The fixed text of a keyword or punctuation token, or "" for other kinds.
std::string_view fixed_text(SyntaxKind k);

// The reserved keyword spelled `text`, or IDENT.
SyntaxKind keyword_kind(std::string_view text);
// The contextual keyword spelled `text` (`tier`, `tolerance`, `override`), or IDENT.
SyntaxKind contextual_kind(std::string_view text);

}  // namespace rung::syntax
