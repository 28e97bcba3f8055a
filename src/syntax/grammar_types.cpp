// Types, patterns, names and paths.
#include "syntax/grammar.h"

namespace rung::syntax::grammar {
namespace {

// A reserved word where a name belongs (`let in = 1`): reported, and taken as the name in
// an ERROR node so the rest of the construct still parses.
void name_like(Parser& p, SyntaxKind node, const char* what) {
  if (p.at(K::IDENT)) {
    Marker m = p.start();
    p.bump();
    m.complete(p, node);
    return;
  }
  bool keyword = is_keyword(p.current());
  Diagnostic* d = p.error("E1106", std::string("expected ") + what + ", found " + p.found());
  if (keyword) {
    if (d) d->note(std::string(describe(p.current())) + " is a reserved word");
    Marker m = p.start();
    p.bump();
    m.complete(p, K::ERROR);
  }
}

// SHAPE = '[' (EXPR (',' EXPR)* ','?)? ']'
void shape(Parser& p) {
  Marker m = p.start();
  delimited(p, {K::L_BRACK, K::R_BRACK, kExprFirst, "E1103", "a dimension"}, [](Parser& q) { expect_expr(q); });
  m.complete(p, K::SHAPE);
}

// MEM_SPACE = '@' NAME_REF
void mem_space(Parser& p) {
  Marker m = p.start();
  p.bump();
  if (p.at(K::IDENT)) {
    name_ref(p);
  } else if (Diagnostic* d = p.error("E1106", "expected a memory space after `@`, found " + p.found())) {
    d->note("the memory spaces are `host`, `device`, `pinned` and `unified`");
  }
  m.complete(p, K::MEM_SPACE);
}

}  // namespace

void name(Parser& p) { name_like(p, K::NAME, "a name"); }
void name_ref(Parser& p) { name_like(p, K::NAME_REF, "a name"); }

void path(Parser& p) {
  Marker m = p.start();
  name_ref(p);
  while (p.at(K::DOT) && p.nth_at(1, K::IDENT)) {
    p.bump();
    name_ref(p);
  }
  m.complete(p, K::PATH);
}

// TYPE = NAMED_TYPE | REF_TYPE | TUPLE_TYPE | PAREN_TYPE
// NAMED_TYPE = PATH SHAPE? MEM_SPACE?      e.g. `f32`, `f32[B, 784]`, `f32[B, 784] @device`
// REF_TYPE = '&' 'mut'? TYPE
// TUPLE_TYPE = '(' ')' | '(' TYPE ',' (TYPE (',' TYPE)* ','?)? ')'    PAREN_TYPE = '(' TYPE ')'
bool type(Parser& p) {
  Parser::Nest nest(p);
  if (!nest.ok()) {
    p.too_deep();
    return true;
  }
  if (p.at(K::IDENT)) {
    Marker m = p.start();
    path(p);
    if (p.at(K::L_BRACK)) shape(p);
    if (p.at(K::AT)) mem_space(p);
    m.complete(p, K::NAMED_TYPE);
    return true;
  }
  if (p.at(K::AMP)) {
    Marker m = p.start();
    p.bump();
    p.eat(K::MUT_KW);
    type(p);
    m.complete(p, K::REF_TYPE);
    return true;
  }
  if (p.at(K::L_PAREN)) {
    Marker m = p.start();
    std::uint32_t open_tok = p.position();
    p.bump();
    if (p.eat(K::R_PAREN)) {
      m.complete(p, K::TUPLE_TYPE);
      return true;
    }
    type(p);
    if (!p.at(K::COMMA)) {
      p.expect_closing(K::R_PAREN, open_tok);
      m.complete(p, K::PAREN_TYPE);
      return true;
    }
    while (p.eat(K::COMMA) && p.at(kTypeFirst)) type(p);
    p.expect_closing(K::R_PAREN, open_tok);
    m.complete(p, K::TUPLE_TYPE);
    return true;
  }
  if (p.at(K::AMP2)) {
    // `&&T` lexes as one token; take it as the two references it looks like, once reported.
    Marker m = p.start();
    if (Diagnostic* d = p.error("E1104", "expected a type, found `&&`"))
      d->note("a reference to a reference is written with a space: `& &T`");
    p.bump();
    p.eat(K::MUT_KW);
    type(p);
    m.complete(p, K::REF_TYPE);
    return true;
  }
  if (Diagnostic* d = p.error("E1104", "expected a type, found " + p.found())) {
    if (p.at(K::L_BRACK)) d->note("a tensor type names its element type first: `f32[3]`");
    else d->note("types look like `f32`, `f32[B, 784]`, `&Params`, `(i64, f32)`");
  }
  if (p.at(K::L_BRACK)) {
    p.skip_group();
  } else if (!p.at(kRecovery) && !p.at(K::END_OF_FILE) && !p.at(K::AT) && !p.at(K::BANG) && !p.at(K::THIN_ARROW)) {
    Marker m = p.start();
    p.bump();
    m.complete(p, K::ERROR);
  }
  return false;
}

// PATTERN = IDENT_PAT | WILDCARD_PAT | TUPLE_PAT
// IDENT_PAT = 'mut'? NAME   WILDCARD_PAT = '_'   TUPLE_PAT = '(' (PATTERN (',' PATTERN)* ','?)? ')'
bool pattern(Parser& p) {
  Parser::Nest nest(p);
  if (!nest.ok()) {
    p.too_deep();
    return true;
  }
  if (p.at(K::IDENT) || p.at(K::MUT_KW)) {
    Marker m = p.start();
    p.eat(K::MUT_KW);
    name(p);
    m.complete(p, K::IDENT_PAT);
    return true;
  }
  if (p.at(K::UNDERSCORE)) {
    Marker m = p.start();
    p.bump();
    m.complete(p, K::WILDCARD_PAT);
    return true;
  }
  if (p.at(K::L_PAREN)) {
    Marker m = p.start();
    delimited(p, {K::L_PAREN, K::R_PAREN, kPatternFirst, "E1105", "a pattern"}, pattern);
    m.complete(p, K::TUPLE_PAT);
    return true;
  }
  if (Diagnostic* d = p.error("E1105", "expected a pattern, found " + p.found()))
    d->note("a pattern is a name (`x`, `mut x`), `_`, or a tuple of patterns (`(x, _)`)");
  return false;
}

}  // namespace rung::syntax::grammar
