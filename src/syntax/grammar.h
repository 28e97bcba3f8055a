// The rung grammar as recursive-descent functions over a Parser, emitting events. Each
// function's comment shows the rule it parses (docs/language.md has the whole grammar).
// Internal to the syntax library.
#pragma once

#include <optional>

#include "syntax/parser.h"

namespace rung::syntax::grammar {

using K = SyntaxKind;

inline constexpr TokenSet kItemKeywords = {K::FN_KW, K::STRUCT_KW, K::IMPORT_KW, K::MODULE_KW, K::EXPORT_KW};
inline constexpr TokenSet kLiteralFirst = {K::INT_NUMBER, K::FLOAT_NUMBER, K::STRING, K::TRUE_KW, K::FALSE_KW};
inline constexpr TokenSet kExprFirst =
    kLiteralFirst | TokenSet{K::IDENT, K::L_PAREN, K::L_BRACK, K::L_CURLY, K::IF_KW, K::FOR_KW, K::WHILE_KW,
                             K::RETURN_KW, K::BREAK_KW, K::CONTINUE_KW, K::MINUS, K::BANG, K::AMP, K::DOT2, K::DOT2EQ};
inline constexpr TokenSet kTypeFirst = {K::IDENT, K::AMP, K::L_PAREN};
inline constexpr TokenSet kPatternFirst = {K::IDENT, K::MUT_KW, K::UNDERSCORE, K::L_PAREN};
// Tokens that belong to an enclosing construct: a failed rule stops before them instead of
// swallowing them, so the enclosing rule can carry on.
inline constexpr TokenSet kRecovery = kItemKeywords | TokenSet{K::SEMICOLON, K::COMMA, K::R_PAREN, K::R_BRACK,
                                                               K::R_CURLY, K::L_CURLY, K::LET_KW, K::EQ};

// What an expression may contain at this point.
struct Restrictions {
  bool no_struct = false;  // in `if`/`while` conditions and `for` iterables, `x {` starts the body
};

// ---- lists (grammar.cpp) -------------------------------------------------------------
struct ListSpec {
  SyntaxKind open, close;
  TokenSet first;        // tokens that start an element
  const char* code;      // diagnostic code for "expected an element"
  const char* expected;  // "expression", "parameter", ...
};
// `open (item (',' item)* ','?)? close` with recovery: a missing comma is reported and
// the next element parsed; a stray token becomes an ERROR node; a token that belongs to
// the enclosing construct ends the list (reported as an unclosed delimiter).
template <class Item>
void delimited(Parser& p, const ListSpec& spec, Item&& item);

// ---- items (grammar_items.cpp) -------------------------------------------------------
void source_file(Parser& p);
bool at_item_start(Parser& p, bool top_level);
bool at_decl_start(Parser& p);  // `tier`, `tolerance` or `override` declaration
void decl(Parser& p);           // TIER_DECL | TOLERANCE_DECL

// ---- statements (grammar_stmts.cpp) --------------------------------------------------
CompletedMarker block(Parser& p);  // BLOCK_EXPR; the caller checks at(L_CURLY)

// ---- expressions (grammar_exprs.cpp) -------------------------------------------------
// An expression, or nullopt without a diagnostic when none starts here.
std::optional<CompletedMarker> expr(Parser& p, Restrictions r = {});
// An expression, or E1103 ("expected expression{context}") and recovery.
std::optional<CompletedMarker> expect_expr(Parser& p, Restrictions r = {}, const char* context = "");
// A statement-position expression: `if`, `for`, `while` and blocks end at their `}`.
std::optional<CompletedMarker> stmt_expr(Parser& p);
bool is_block_like(SyntaxKind k);

// ---- types, patterns, names (grammar_types.cpp) --------------------------------------
bool type(Parser& p);  // false (after E1104) when no type starts here
bool pattern(Parser& p);
void name(Parser& p);      // NAME: a defining occurrence
void name_ref(Parser& p);  // NAME_REF: a use
void path(Parser& p);      // PATH = NAME_REF ('.' NAME_REF)*

template <class Item>
void delimited(Parser& p, const ListSpec& spec, Item&& item) {
  std::uint32_t open_tok = p.position();
  p.bump();  // spec.open; the caller checked
  while (!p.at(spec.close) && !p.at(K::END_OF_FILE)) {
    if (p.at(spec.first)) {
      item(p);
    } else if (p.at(kRecovery) && !p.at(K::COMMA)) {
      break;
    } else {
      p.err_recover(spec.code, std::string("expected ") + spec.expected + ", found " + p.found(), TokenSet{K::COMMA});
    }
    if (p.at(spec.close)) break;
    if (p.eat(K::COMMA)) continue;
    if (p.at(spec.first)) {
      p.error_after_prev("E1101", "expected `,` between elements, found " + p.found());
    } else if (p.at(kRecovery) || p.at(K::END_OF_FILE)) {
      break;
    } else {
      p.err_recover("E1101",
                    "expected `,` or " + std::string(describe(spec.close)) + ", found " + p.found(), TokenSet{});
    }
  }
  p.expect_closing(spec.close, open_tok);
}

}  // namespace rung::syntax::grammar
