// The formatter: statements, blocks and expressions.
#include "syntax/ast.h"
#include "syntax/format_impl.h"

namespace rung::syntax::fmt {
namespace {

using K = SyntaxKind;

// Binding strength of a binary operator, as the parser has it: operands of one chain share it.
int level(SyntaxKind op) {
  switch (op) {
    case K::PIPE2: return 1;
    case K::AMP2: return 2;
    case K::EQ2: case K::NEQ: case K::LT: case K::LTEQ: case K::GT: case K::GTEQ: return 3;
    case K::PLUS: case K::MINUS: return 4;
    default: return 5;  // * / % @
  }
}

}  // namespace

bool Formatter::has_comments(SyntaxToken t) const {
  const TokenComments* tc = comments_.at(t.range().begin);
  return tc && (!tc->leading.empty() || !tc->trailing.empty());
}

DocId Formatter::stmt(SyntaxNode n) {
  DocId space = d_.space();
  switch (n.kind()) {
    case K::LET_STMT: {
      std::vector<DocId> parts;
      for (const SyntaxElement& e : significant_children(n)) {
        if (e.is_node()) parts.push_back(node(e.node()));
        else if (e.kind() == K::LET_KW) parts.insert(parts.end(), {tok(e.token()), space});
        else if (e.kind() == K::COLON) parts.insert(parts.end(), {tok(e.token()), space});
        else if (e.kind() == K::EQ) parts.insert(parts.end(), {space, tok(e.token()), space});
        else parts.push_back(tok(e.token()));
      }
      return d_.concat(parts);
    }
    case K::EXPR_STMT: {
      SyntaxNode e = n.first_child();
      // An `if` used as a statement gets its blocks on their own lines.
      DocId body = e.kind() == K::IF_EXPR ? if_chain(e, true) : expr(e);
      return d_.concat({body, tok(n, K::SEMICOLON)});
    }
    case K::EMPTY_STMT: return tok(n, K::SEMICOLON);
    case K::TIER_DECL:
    case K::TOLERANCE_DECL: return item(n);
    default: return expr(n);  // the tail
  }
}

DocId Formatter::block(SyntaxNode n, bool may_flatten) {
  SyntaxToken open = n.first_child_token(K::L_CURLY);
  SyntaxToken close = n.first_child_token(K::R_CURLY);
  std::vector<SyntaxNode> stmts;
  for (SyntaxNode c : n.children()) {
    // A stray `;` goes, unless a comment hangs on it.
    if (c.kind() == K::EMPTY_STMT && !has_comments(first_significant_token(c))) continue;
    stmts.push_back(c);
  }
  DocId tail_comments = dangling(close, !stmts.empty());
  if (stmts.empty()) {
    if (tail_comments == d_.nil()) return d_.concat({tok(open), close_token(close)});
    return d_.concat({tok(open), d_.indent(tail_comments), d_.hardline(), close_token(close)});
  }
  if (may_flatten && stmts.size() == 1 && ast::Expr::can_cast(stmts[0].kind()) && tail_comments == d_.nil()) {
    SyntaxNode e = stmts[0];
    DocId inner = d_.concat({d_.line(), hoist(e), expr(e)});
    return d_.concat({d_.group(d_.concat({tok(open), d_.indent(inner), d_.line()})), close_token(close)});
  }
  DocId body = sequence(stmts, false);
  return d_.concat({tok(open), d_.indent(d_.concat({d_.hardline(), body, tail_comments})), d_.hardline(),
                    close_token(close)});
}

DocId Formatter::if_chain(SyntaxNode n, bool force_break) {
  DocId space = d_.space();
  std::vector<DocId> parts;
  SyntaxNode cur = n;
  while (true) {
    ast::IfExpr e = ast::IfExpr::cast(cur);
    parts.insert(parts.end(), {tok(cur, K::IF_KW), space, expr(e.condition().syntax()), space,
                               block(e.then_branch().syntax(), !force_break)});
    SyntaxToken else_kw = cur.first_child_token(K::ELSE_KW);
    if (!else_kw) break;
    parts.insert(parts.end(), {space, tok(else_kw), space});
    SyntaxNode next = e.else_branch().syntax();
    if (next.kind() == K::IF_EXPR) {
      cur = next;  // a chain of `else if` is walked, not recursed into
      continue;
    }
    parts.push_back(block(next, !force_break));
    break;
  }
  return d_.group(d_.concat(parts));
}

DocId Formatter::bin_chain(SyntaxNode n) {
  // a + b + c nests to the left; walk down that spine instead of recursing, then lay the
  // operands out as one group that breaks before each operator.
  int lvl = level(ast::BinExpr::cast(n).op_token().kind());
  std::vector<std::pair<SyntaxToken, SyntaxNode>> rest;
  SyntaxNode cur = n;
  while (cur.kind() == K::BIN_EXPR) {
    ast::BinExpr b = ast::BinExpr::cast(cur);
    if (level(b.op_token().kind()) != lvl) break;
    rest.push_back({b.op_token(), b.rhs().syntax()});
    cur = b.lhs().syntax();
  }
  std::vector<DocId> tail;
  for (auto it = rest.rbegin(); it != rest.rend(); ++it)
    tail.insert(tail.end(), {d_.line(), tok(it->first), d_.space(), expr(it->second)});
  return d_.group(d_.concat({expr(cur), d_.indent(d_.concat(tail))}));
}

DocId Formatter::postfix_chain(SyntaxNode n) {
  // a.b(c)[d].e: walked down the receivers iteratively, printed base first.
  std::vector<DocId> pieces;
  SyntaxNode cur = n;
  while (true) {
    switch (cur.kind()) {
      case K::CALL_EXPR:
        pieces.push_back(node(cur.first_child(K::ARG_LIST)));
        cur = cur.first_child();
        continue;
      case K::INDEX_EXPR:
        pieces.push_back(node(cur.first_child(K::INDEX_LIST)));
        cur = cur.first_child();
        continue;
      case K::METHOD_CALL_EXPR:
        pieces.push_back(d_.concat({tok(cur, K::DOT), node(cur.first_child(K::NAME_REF)), node(cur.first_child(K::ARG_LIST))}));
        cur = cur.first_child();
        continue;
      case K::FIELD_EXPR: {
        SyntaxNode receiver = cur.first_child();
        SyntaxToken index = cur.first_child_token(K::INT_NUMBER);
        DocId field = index ? tok(index) : node(cur.first_child(K::NAME_REF));
        // `1 .0`: written together the lexer would read the float `1.0`.
        SyntaxToken last = receiver.last_token();
        DocId gap = index && last && last.kind() == K::INT_NUMBER ? d_.space() : d_.nil();
        pieces.push_back(d_.concat({gap, tok(cur, K::DOT), field}));
        cur = receiver;
        continue;
      }
      default: break;
    }
    break;
  }
  std::vector<DocId> parts{expr(cur)};
  parts.insert(parts.end(), pieces.rbegin(), pieces.rend());
  return d_.concat(parts);
}

DocId Formatter::expr(SyntaxNode n) {
  DocId space = d_.space();
  switch (n.kind()) {
    case K::TUPLE_EXPR: return list(n, K::L_PAREN, K::R_PAREN, {.keep_single_comma = true});
    case K::TENSOR_EXPR: return list(n, K::L_BRACK, K::R_BRACK, {});
    case K::BLOCK_EXPR: return block(n, true);
    case K::IF_EXPR: return if_chain(n, false);
    case K::FOR_EXPR:
    case K::WHILE_EXPR: {
      // `for PAT in EXPR BLOCK`, `while EXPR BLOCK`: words spaced, the body always broken.
      std::vector<DocId> parts;
      auto kids = significant_children(n);
      for (std::size_t i = 0; i < kids.size(); ++i) {
        const SyntaxElement& e = kids[i];
        if (i > 0) parts.push_back(space);
        if (e.is_token()) parts.push_back(tok(e.token()));
        else if (i + 1 == kids.size() && e.kind() == K::BLOCK_EXPR) parts.push_back(block(e.node(), false));
        else parts.push_back(node(e.node()));
      }
      return d_.concat(parts);
    }
    case K::RETURN_EXPR: {
      SyntaxNode value = n.first_child();
      if (!value) return tok(n, K::RETURN_KW);
      return d_.concat({tok(n, K::RETURN_KW), space, expr(value)});
    }
    case K::BIN_EXPR: return bin_chain(n);
    case K::ASSIGN_EXPR: {
      ast::AssignExpr a = ast::AssignExpr::cast(n);
      return d_.concat({expr(a.target().syntax()), space, tok(a.op_token()), space, expr(a.value().syntax())});
    }
    case K::REF_EXPR: {
      std::vector<DocId> parts{tok(n, K::AMP)};
      if (SyntaxToken m = n.first_child_token(K::MUT_KW)) parts.insert(parts.end(), {tok(m), space});
      SyntaxNode operand = n.first_child();
      // `& &x`, not `&&x`, which the lexer reads as the `&&` operator.
      SyntaxToken first = operand ? first_significant_token(operand) : SyntaxToken();
      if (!n.first_child_token(K::MUT_KW) && first && first.kind() == K::AMP) parts.push_back(space);
      parts.push_back(node(operand));
      return d_.concat(parts);
    }
    case K::CALL_EXPR:
    case K::METHOD_CALL_EXPR:
    case K::FIELD_EXPR:
    case K::INDEX_EXPR: return postfix_chain(n);
    case K::STRUCT_LIT:
      return d_.concat({node(n.first_child(K::NAME_REF)), space, node(n.first_child(K::STRUCT_LIT_FIELDS))});
    default: return plain(n);  // literals, paths, parentheses, prefix and range operators, jumps
  }
}

}  // namespace rung::syntax::fmt
