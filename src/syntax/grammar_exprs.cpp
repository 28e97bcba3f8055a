// Expressions: Pratt parsing for operators (binding powers below, the table in
// docs/language.md), recursive descent for atoms and postfix forms.
#include "syntax/grammar.h"

namespace rung::syntax::grammar {
namespace {

enum class OpClass { None, Assign, Range, Or, And, Compare, Add, Mul };

struct BinOp {
  OpClass cls = OpClass::None;
  int left = 0, right = 0;  // binding powers: left < right for left-assoc, equal for right-assoc
};

BinOp bin_op(SyntaxKind k) {
  switch (k) {
    case K::EQ: case K::PLUSEQ: case K::MINUSEQ: case K::STAREQ: case K::SLASHEQ: case K::PERCENTEQ: case K::ATEQ:
      return {OpClass::Assign, 2, 2};
    case K::DOT2: case K::DOT2EQ: return {OpClass::Range, 4, 5};
    case K::PIPE2: return {OpClass::Or, 6, 7};
    case K::AMP2: return {OpClass::And, 8, 9};
    case K::EQ2: case K::NEQ: case K::LT: case K::LTEQ: case K::GT: case K::GTEQ: return {OpClass::Compare, 10, 11};
    case K::PLUS: case K::MINUS: return {OpClass::Add, 12, 13};
    case K::STAR: case K::SLASH: case K::PERCENT: case K::AT: return {OpClass::Mul, 14, 15};
    default: return {};
  }
}
constexpr int kPrefixPower = 16;  // -x, !x, &x bind tighter than every binary operator

std::optional<CompletedMarker> expr_bp(Parser& p, int min_bp, Restrictions r);

// Whether an operand may start here: after `..` the range may be open (`a..`), and in a
// condition `{` opens the body, not a block operand.
bool at_operand(Parser& p, Restrictions r) {
  if (r.no_struct && p.at(K::L_CURLY)) return false;
  return p.at(kExprFirst);
}

// LITERAL = INT_NUMBER | FLOAT_NUMBER | STRING | 'true' | 'false'
CompletedMarker literal(Parser& p) {
  Marker m = p.start();
  p.bump();
  return m.complete(p, K::LITERAL);
}

// NAMED_ARG = NAME ':' EXPR
void arg(Parser& p, bool& seen_named) {
  if (p.at(K::IDENT) && p.nth_at(1, K::COLON)) {
    seen_named = true;
    Marker m = p.start();
    name(p);
    p.bump();  // `:`
    expect_expr(p, {}, " for the named argument");
    m.complete(p, K::NAMED_ARG);
    return;
  }
  if (seen_named) {
    if (Diagnostic* d = p.error("E1115", "positional argument after a named argument"))
      d->note("positional arguments come first: `f(x, y, lr: 0.1)`");
  }
  expect_expr(p);
}

// ARG_LIST = '(' (ARG (',' ARG)* ','?)? ')'   ARG = EXPR | NAMED_ARG
void arg_list(Parser& p) {
  Marker m = p.start();
  bool seen_named = false;
  delimited(p, {K::L_PAREN, K::R_PAREN, kExprFirst, "E1103", "an argument"},
            [&](Parser& q) { arg(q, seen_named); });
  m.complete(p, K::ARG_LIST);
}

// INDEX_LIST = '[' (INDEX (',' INDEX)* ','?)? ']'   INDEX = EXPR | SLICE
// SLICE = EXPR? ':' EXPR? (':' EXPR?)?
void index_arg(Parser& p) {
  std::optional<CompletedMarker> start;
  if (!p.at(K::COLON)) start = expect_expr(p);
  if (!p.at(K::COLON)) return;
  Marker m = start ? start->precede(p) : p.start();
  p.bump();
  if (p.at(kExprFirst)) expr(p);
  if (p.eat(K::COLON) && p.at(kExprFirst)) expr(p);
  m.complete(p, K::SLICE);
}

void index_list(Parser& p) {
  Marker m = p.start();
  delimited(p, {K::L_BRACK, K::R_BRACK, kExprFirst | TokenSet{K::COLON}, "E1103", "an index"}, index_arg);
  m.complete(p, K::INDEX_LIST);
}

// STRUCT_LIT = NAME_REF '{' (STRUCT_LIT_FIELD (',' STRUCT_LIT_FIELD)* ','?)? '}'
// STRUCT_LIT_FIELD = NAME_REF (':' EXPR)?     (`Point { x, y }` is short for `x: x, y: y`)
CompletedMarker struct_lit(Parser& p) {
  Marker m = p.start();
  name_ref(p);
  Marker fields = p.start();
  delimited(p, {K::L_CURLY, K::R_CURLY, TokenSet{K::IDENT}, "E1106", "a field name"}, [](Parser& q) {
    Marker f = q.start();
    name_ref(q);
    if (q.eat(K::COLON)) expect_expr(q, {}, " for the field");
    f.complete(q, K::STRUCT_LIT_FIELD);
  });
  fields.complete(p, K::STRUCT_LIT_FIELDS);
  return m.complete(p, K::STRUCT_LIT);
}

// PAREN_EXPR = '(' EXPR ')'    TUPLE_EXPR = '(' ')' | '(' EXPR ',' (EXPR (',' EXPR)* ','?)? ')'
CompletedMarker paren_or_tuple(Parser& p) {
  Marker m = p.start();
  std::uint32_t open_tok = p.position();
  p.bump();
  if (p.eat(K::R_PAREN)) return m.complete(p, K::TUPLE_EXPR);
  expect_expr(p);
  if (!p.at(K::COMMA)) {
    p.expect_closing(K::R_PAREN, open_tok);
    return m.complete(p, K::PAREN_EXPR);
  }
  while (p.eat(K::COMMA)) {
    if (!p.at(kExprFirst)) break;
    expr(p);
  }
  p.expect_closing(K::R_PAREN, open_tok);
  return m.complete(p, K::TUPLE_EXPR);
}

// TENSOR_EXPR = '[' (EXPR (',' EXPR)* ','?)? ']'
CompletedMarker tensor(Parser& p) {
  Marker m = p.start();
  delimited(p, {K::L_BRACK, K::R_BRACK, kExprFirst, "E1103", "an element"}, [](Parser& q) { expect_expr(q); });
  return m.complete(p, K::TENSOR_EXPR);
}

// The body of `if`, `for` and `while`.
void body(Parser& p, const char* after) {
  if (p.at(K::L_CURLY)) {
    block(p);
    return;
  }
  p.error("E1101", std::string("expected `{` after ") + after + ", found " + p.found());
}

// IF_EXPR = 'if' EXPR BLOCK_EXPR ('else' (IF_EXPR | BLOCK_EXPR))?
// An `else if` chain is parsed in a loop, so a long chain costs no stack.
CompletedMarker if_expr(Parser& p) {
  std::vector<Marker> outer;
  while (true) {
    Marker m = p.start();
    p.bump();  // `if`
    expect_expr(p, Restrictions{.no_struct = true}, " for the condition");
    body(p, "the condition");
    if (p.eat(K::ELSE_KW)) {
      if (p.at(K::IF_KW)) {
        outer.push_back(std::move(m));
        continue;
      }
      body(p, "`else`");
    }
    CompletedMarker done = m.complete(p, K::IF_EXPR);
    while (!outer.empty()) {
      done = outer.back().complete(p, K::IF_EXPR);
      outer.pop_back();
    }
    return done;
  }
}

// FOR_EXPR = 'for' PATTERN 'in' EXPR BLOCK_EXPR
CompletedMarker for_expr(Parser& p) {
  Marker m = p.start();
  p.bump();
  pattern(p);
  if (p.expect(K::IN_KW)) expect_expr(p, Restrictions{.no_struct = true}, " to iterate over");
  body(p, "the `for` header");
  return m.complete(p, K::FOR_EXPR);
}

// WHILE_EXPR = 'while' EXPR BLOCK_EXPR
CompletedMarker while_expr(Parser& p) {
  Marker m = p.start();
  p.bump();
  expect_expr(p, Restrictions{.no_struct = true}, " for the condition");
  body(p, "the condition");
  return m.complete(p, K::WHILE_EXPR);
}

// RETURN_EXPR = 'return' EXPR?    BREAK_EXPR = 'break'    CONTINUE_EXPR = 'continue'
CompletedMarker jump(Parser& p, Restrictions r) {
  Marker m = p.start();
  SyntaxKind k = p.current();
  p.bump();
  if (k == K::RETURN_KW) {
    if (at_operand(p, r)) expr_bp(p, 0, r);
    return m.complete(p, K::RETURN_EXPR);
  }
  return m.complete(p, k == K::BREAK_KW ? K::BREAK_EXPR : K::CONTINUE_EXPR);
}

// The postfix forms, left to right: calls, indexing, fields and method calls.
// CALL_EXPR = EXPR ARG_LIST   INDEX_EXPR = EXPR INDEX_LIST
// FIELD_EXPR = EXPR '.' (NAME_REF | INT_NUMBER)   METHOD_CALL_EXPR = EXPR '.' NAME_REF ARG_LIST
CompletedMarker postfix(Parser& p, CompletedMarker lhs) {
  while (true) {
    if (p.at(K::L_PAREN)) {
      Marker m = lhs.precede(p);
      arg_list(p);
      lhs = m.complete(p, K::CALL_EXPR);
    } else if (p.at(K::L_BRACK)) {
      Marker m = lhs.precede(p);
      index_list(p);
      lhs = m.complete(p, K::INDEX_EXPR);
    } else if (p.at(K::DOT)) {
      Marker m = lhs.precede(p);
      p.bump();
      if (p.at(K::IDENT) && p.nth_at(1, K::L_PAREN)) {
        name_ref(p);
        arg_list(p);
        lhs = m.complete(p, K::METHOD_CALL_EXPR);
        continue;
      }
      if (p.at(K::IDENT)) {
        name_ref(p);
      } else if (!p.eat(K::INT_NUMBER)) {
        p.error("E1106", "expected a field name, tuple index or method call after `.`, found " + p.found());
        return m.complete(p, K::FIELD_EXPR);
      }
      lhs = m.complete(p, K::FIELD_EXPR);
    } else {
      return lhs;
    }
  }
}

// The operand of an operator: an atom with its postfix forms, or a prefix form.
// PREFIX_EXPR = ('-' | '!') EXPR   REF_EXPR = '&' 'mut'? EXPR   RANGE_EXPR = ('..' | '..=') EXPR?
std::optional<CompletedMarker> operand(Parser& p, Restrictions r) {
  SyntaxKind k = p.current();
  if (k == K::MINUS || k == K::BANG || k == K::AMP) {
    Marker m = p.start();
    p.bump();
    if (k == K::AMP) p.eat(K::MUT_KW);
    if (!expr_bp(p, kPrefixPower, r))
      p.err_recover("E1103", "expected an operand after " + std::string(describe(k)) + ", found " + p.found(),
                    kRecovery);
    return m.complete(p, k == K::AMP ? K::REF_EXPR : K::PREFIX_EXPR);
  }
  if (k == K::DOT2 || k == K::DOT2EQ) {
    Marker m = p.start();
    p.bump();
    if (at_operand(p, r)) expr_bp(p, bin_op(k).right, r);
    return m.complete(p, K::RANGE_EXPR);
  }
  std::optional<CompletedMarker> atom;
  switch (k) {
    case K::INT_NUMBER: case K::FLOAT_NUMBER: case K::STRING: case K::TRUE_KW: case K::FALSE_KW:
      atom = literal(p);
      break;
    case K::IDENT:
      if (p.nth_at(1, K::L_CURLY) && !r.no_struct) {
        atom = struct_lit(p);
      } else if (p.nth_at(1, K::L_CURLY) && p.nth_at(2, K::IDENT) && p.nth_at(3, K::COLON)) {
        // `if p == Params { a: 1 } {`: `{ a:` cannot open a block, so this is a struct
        // literal where the grammar does not allow one. Say so, then parse it as one.
        if (Diagnostic* d = p.error("E1110", "a struct literal in a condition needs parentheses")) {
          d->note("here `{` would start the body; write `(Params { ... })`");
        }
        atom = struct_lit(p);
      } else {
        Marker m = p.start();
        name_ref(p);
        atom = m.complete(p, K::PATH_EXPR);
      }
      break;
    case K::L_PAREN: atom = paren_or_tuple(p); break;
    case K::L_BRACK: atom = tensor(p); break;
    case K::L_CURLY: atom = block(p); break;
    case K::IF_KW: atom = if_expr(p); break;
    case K::FOR_KW: atom = for_expr(p); break;
    case K::WHILE_KW: atom = while_expr(p); break;
    case K::RETURN_KW: case K::BREAK_KW: case K::CONTINUE_KW: return jump(p, r);
    default: return std::nullopt;
  }
  return postfix(p, *atom);
}

std::optional<CompletedMarker> expr_bp(Parser& p, int min_bp, Restrictions r) {
  Parser::Nest nest(p);
  if (!nest.ok()) return p.too_deep();
  std::optional<CompletedMarker> lhs = operand(p, r);
  if (!lhs) return std::nullopt;
  // Comparisons and ranges do not chain: `a < b < c` is reported, then parsed left to right.
  std::optional<Span> chained;
  OpClass chained_class = OpClass::None;
  while (true) {
    SyntaxKind k = p.current();
    BinOp op = bin_op(k);
    if (op.cls == OpClass::None || op.left < min_bp) break;
    if ((op.cls == OpClass::Compare || op.cls == OpClass::Range) && chained && chained_class == op.cls) {
      bool cmp = op.cls == OpClass::Compare;
      if (Diagnostic* d = p.error("E1108", cmp ? "comparison operators cannot be chained" : "ranges cannot be chained")) {
        d->secondary(*chained, "after this one");
        d->note(cmp ? "to compare three values, write `a < b && b < c`" : "write one range, `a..b`");
      }
    }
    if (op.cls == OpClass::Compare || op.cls == OpClass::Range) {
      chained = p.current_span();
      chained_class = op.cls;
    } else {
      chained.reset();
    }
    Marker m = lhs->precede(p);
    p.bump();
    if (op.cls == OpClass::Range) {
      if (at_operand(p, r)) expr_bp(p, op.right, r);
      lhs = m.complete(p, K::RANGE_EXPR);
      continue;
    }
    if (!expr_bp(p, op.right, r))
      p.err_recover("E1103", "expected an operand after " + std::string(describe(k)) + ", found " + p.found(),
                    kRecovery);
    lhs = m.complete(p, op.cls == OpClass::Assign ? K::ASSIGN_EXPR : K::BIN_EXPR);
  }
  return lhs;
}

}  // namespace

bool is_block_like(SyntaxKind k) {
  return k == K::BLOCK_EXPR || k == K::IF_EXPR || k == K::FOR_EXPR || k == K::WHILE_EXPR;
}

std::optional<CompletedMarker> expr(Parser& p, Restrictions r) { return expr_bp(p, 0, r); }

std::optional<CompletedMarker> expect_expr(Parser& p, Restrictions r, const char* context) {
  std::optional<CompletedMarker> e = expr_bp(p, 0, r);
  if (!e) p.err_recover("E1103", std::string("expected an expression") + context + ", found " + p.found(), kRecovery);
  return e;
}

std::optional<CompletedMarker> stmt_expr(Parser& p) {
  // `if c { .. } - 1` at the start of a statement is the `if` statement, then `-1`.
  switch (p.current()) {
    case K::L_CURLY: return block(p);
    case K::IF_KW: return if_expr(p);
    case K::FOR_KW: return for_expr(p);
    case K::WHILE_KW: return while_expr(p);
    default: return expr_bp(p, 0, {});
  }
}

}  // namespace rung::syntax::grammar
