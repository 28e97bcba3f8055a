// Blocks and statements.
#include "syntax/grammar.h"

namespace rung::syntax::grammar {
namespace {

// LET_STMT = 'let' PATTERN (':' TYPE)? '=' EXPR ';'
void let_stmt(Parser& p) {
  Marker m = p.start();
  p.bump();
  pattern(p);
  if (p.eat(K::COLON)) type(p);
  if (p.eat(K::EQ)) {
    expect_expr(p, {}, " after `=`");
  } else if (Diagnostic* d = p.error("E1101", "expected `=`, found " + p.found())) {
    d->note("every `let` gives its variable a value: `let x = ...;`");
  }
  p.expect(K::SEMICOLON);
  m.complete(p, K::LET_STMT);
}

// STMT = LET_STMT | TIER_DECL | TOLERANCE_DECL | EMPTY_STMT | EXPR_STMT | EXPR (the tail)
// EXPR_STMT = EXPR ';' | BLOCK_LIKE_EXPR ';'?
void stmt(Parser& p) {
  Parser::Scope scope(p);
  if (p.at(K::SEMICOLON)) {
    Marker m = p.start();
    p.bump();
    m.complete(p, K::EMPTY_STMT);
    return;
  }
  if (p.at(K::LET_KW)) return let_stmt(p);
  if (at_decl_start(p)) return decl(p);
  if (p.at(kExprFirst)) {
    std::optional<CompletedMarker> e = stmt_expr(p);
    RUNG_CHECK(e.has_value(), "an expression starts at every token of kExprFirst");
    // The tail, the block's value; at the end of the file or before an item the block's
    // own `}` is what is missing, and the block reports that.
    if (p.at(K::R_CURLY) || p.at(K::END_OF_FILE) || p.at(kItemKeywords)) return;
    Marker m = e->precede(p);
    if (!p.eat(K::SEMICOLON) && !is_block_like(e->kind())) {
      if (Diagnostic* d = p.error_after_prev("E1101", "expected `;` after the expression, found " + p.found()))
        d->note("only the last expression of a block, its value, goes without `;`");
    }
    m.complete(p, K::EXPR_STMT);
    return;
  }
  if (Diagnostic* d = p.error("E1103", "expected a statement, found " + p.found())) {
    if (p.at(K::ELSE_KW)) d->note("`else` follows the `}` of an `if` block");
  }
  p.skip_balanced_until(TokenSet{K::SEMICOLON, K::R_CURLY, K::LET_KW});
}

}  // namespace

// BLOCK_EXPR = '{' STMT* '}'
CompletedMarker block(Parser& p) {
  Parser::Nest nest(p);
  if (!nest.ok()) return p.too_deep();
  Marker m = p.start();
  std::uint32_t open_tok = p.position();
  p.bump();  // `{`
  while (!p.at(K::R_CURLY) && !p.at(K::END_OF_FILE)) {
    // An item keyword inside a block means its `}` is missing: end the block here and
    // let the item parse at the top level.
    if (p.at(kItemKeywords)) break;
    stmt(p);
  }
  p.expect_closing(K::R_CURLY, open_tok);
  return m.complete(p, K::BLOCK_EXPR);
}

}  // namespace rung::syntax::grammar
