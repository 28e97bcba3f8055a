#include "syntax/ast.h"

namespace rung::syntax::ast {
namespace {

template <class T>
T first_child(SyntaxNode n) {
  if (!n) return T();
  for (SyntaxNode c : n.children())
    if (T::can_cast(c.kind())) return T::cast(c);
  return T();
}

template <class T>
std::vector<T> all_children(SyntaxNode n) {
  std::vector<T> out;
  if (!n) return out;
  for (SyntaxNode c : n.children())
    if (T::can_cast(c.kind())) out.push_back(T::cast(c));
  return out;
}

template <class T>
T nth_child(SyntaxNode n, int index) {
  if (!n) return T();
  int seen = 0;
  for (SyntaxNode c : n.children()) {
    if (!Expr::can_cast(c.kind()) && !T::can_cast(c.kind())) continue;
    if (seen++ == index) return T::cast(c);
  }
  return T();
}

// The first significant token directly in `n`: an operator between its operands.
SyntaxToken op_of(SyntaxNode n) {
  if (!n) return {};
  for (std::uint32_t i = 0; i < n.child_count(); ++i) {
    SyntaxElement e = n.child(i);
    if (e.is_token() && !is_trivia(e.kind())) return e.token();
  }
  return {};
}

// Expression children of `n` split by the first and second tokens of `sep`.
std::vector<Expr> exprs_between(SyntaxNode n, SyntaxKind sep, int part) {
  std::vector<Expr> out;
  if (!n) return out;
  int at = 0;
  for (std::uint32_t i = 0; i < n.child_count(); ++i) {
    SyntaxElement e = n.child(i);
    if (e.is_token() && e.kind() == sep) ++at;
    else if (e.is_node() && at == part && Expr::can_cast(e.kind())) out.push_back(Expr::cast(e.node()));
  }
  return out;
}

std::vector<std::string_view> docs_of(SyntaxNode n) {
  std::vector<std::string_view> out;
  if (!n) return out;
  for (std::uint32_t i = 0; i < n.child_count(); ++i) {
    SyntaxElement e = n.child(i);
    if (e.is_node()) break;
    if (e.kind() == SyntaxKind::DOC_COMMENT) out.push_back(e.token().text());
  }
  return out;
}

}  // namespace

#define RUNG_AST_NODE(cls, kind)
#define RUNG_AST_UNION(cls, ...)
#define RUNG_AST_END(cls)
#define RUNG_AST_CHILD(cls, type, name) \
  type cls::name() const { return first_child<type>(n_); }
#define RUNG_AST_CHILDREN(cls, type, name) \
  std::vector<type> cls::name() const { return all_children<type>(n_); }
#define RUNG_AST_NTH(cls, type, name, n) \
  type cls::name() const { return nth_child<type>(n_, n); }
#define RUNG_AST_TOKEN(cls, token_kind, name) \
  SyntaxToken cls::name() const { return n_ ? n_.first_child_token(SyntaxKind::token_kind) : SyntaxToken(); }
#include "syntax/ast.def"

std::string_view Name::text() const { return ident() ? ident().text() : std::string_view(); }
std::string_view NameRef::text() const { return ident() ? ident().text() : std::string_view(); }

std::string Path::text() const {
  std::string out;
  for (const NameRef& s : segments()) {
    if (!out.empty()) out += '.';
    out += s.text();
  }
  return out;
}

std::vector<std::string_view> StructItem::doc_comments() const { return docs_of(n_); }
std::vector<std::string_view> FnItem::doc_comments() const { return docs_of(n_); }

SyntaxToken Literal::token() const { return op_of(n_); }

Expr IfExpr::else_branch() const {
  if (!n_) return {};
  bool after_else = false;
  for (std::uint32_t i = 0; i < n_.child_count(); ++i) {
    SyntaxElement e = n_.child(i);
    if (e.is_token() && e.kind() == SyntaxKind::ELSE_KW) after_else = true;
    else if (after_else && e.is_node() && Expr::can_cast(e.kind())) return Expr::cast(e.node());
  }
  return {};
}

SyntaxToken BinExpr::op_token() const { return op_of(n_); }
SyntaxToken AssignExpr::op_token() const { return op_of(n_); }
SyntaxToken PrefixExpr::op_token() const { return op_of(n_); }
SyntaxToken RangeExpr::op_token() const { return op_of(n_); }

Expr RangeExpr::start() const {
  auto before = exprs_between(n_, op_token() ? op_token().kind() : SyntaxKind::DOT2, 0);
  return before.empty() ? Expr() : before.front();
}

Expr RangeExpr::end() const {
  auto after = exprs_between(n_, op_token() ? op_token().kind() : SyntaxKind::DOT2, 1);
  return after.empty() ? Expr() : after.front();
}

std::vector<SyntaxNode> IndexList::items() const {
  std::vector<SyntaxNode> out;
  if (!n_) return out;
  for (SyntaxNode c : n_.children())
    if (Expr::can_cast(c.kind()) || c.kind() == SyntaxKind::SLICE) out.push_back(c);
  return out;
}

Expr Slice::start() const {
  auto v = exprs_between(n_, SyntaxKind::COLON, 0);
  return v.empty() ? Expr() : v.front();
}
Expr Slice::stop() const {
  auto v = exprs_between(n_, SyntaxKind::COLON, 1);
  return v.empty() ? Expr() : v.front();
}
Expr Slice::step() const {
  auto v = exprs_between(n_, SyntaxKind::COLON, 2);
  return v.empty() ? Expr() : v.front();
}

}  // namespace rung::syntax::ast
