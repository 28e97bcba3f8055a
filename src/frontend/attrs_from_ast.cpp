// Named arguments of a prelude call become op attributes: `sum(x, axes: [1])`,
// `softmax(x, axis: 1)`, `iota(shape: [3, 4], dtype: f32)`. The op's declaration says what
// kind each attribute is; the literal written must be of that kind.
#include <cmath>

#include "frontend/lowerer.h"
#include "ir/graph/dtype.h"
#include "syntax/literal.h"

namespace rung::frontend {
namespace {

using namespace syntax;

// A (possibly negated) number literal.
std::optional<double> number(const ast::Expr& e, bool& is_int) {
  if (auto p = ast::cast<ast::PrefixExpr>(e.syntax()); p && p.op_token().kind() == SyntaxKind::MINUS) {
    auto v = number(p.operand(), is_int);
    return v ? std::optional<double>(-*v) : std::nullopt;
  }
  if (auto paren = ast::cast<ast::ParenExpr>(e.syntax())) return number(paren.inner(), is_int);
  auto lit = ast::cast<ast::Literal>(e.syntax());
  if (!lit) return std::nullopt;
  auto tok = lit.token();
  if (tok.kind() == SyntaxKind::INT_NUMBER) {
    is_int = true;
    auto v = int_value(tok.text());
    return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
  }
  if (tok.kind() == SyntaxKind::FLOAT_NUMBER) {
    is_int = false;
    return float_value(tok.text());
  }
  return std::nullopt;
}

std::optional<AttrValue> convert(AttrKind kind, const ast::Expr& e) {
  bool is_int = false;
  switch (kind) {
    case AttrKind::integer:
      if (auto v = number(e, is_int); v && is_int) return AttrValue(static_cast<std::int64_t>(*v));
      return std::nullopt;
    case AttrKind::real:
      if (auto v = number(e, is_int)) return AttrValue(*v);
      return std::nullopt;
    case AttrKind::boolean:
      if (auto lit = ast::cast<ast::Literal>(e.syntax())) {
        if (lit.token().kind() == SyntaxKind::TRUE_KW) return AttrValue(true);
        if (lit.token().kind() == SyntaxKind::FALSE_KW) return AttrValue(false);
      }
      return std::nullopt;
    case AttrKind::string:
      if (auto lit = ast::cast<ast::Literal>(e.syntax()); lit && lit.token().kind() == SyntaxKind::STRING)
        if (auto s = string_value(lit.token().text())) return AttrValue(*s);
      return std::nullopt;
    case AttrKind::dtype:
      if (auto p = ast::cast<ast::PathExpr>(e.syntax()); p && p.name_ref())
        if (auto dt = dtype_from_name(p.name_ref().text())) return AttrValue(*dt);
      return std::nullopt;
    case AttrKind::integers:
    case AttrKind::reals:
    case AttrKind::shape: {
      auto t = ast::cast<ast::TensorExpr>(e.syntax());
      if (!t) return std::nullopt;
      std::vector<std::int64_t> ints;
      std::vector<double> reals;
      Shape shape;
      for (const ast::Expr& x : t.elements()) {
        if (kind == AttrKind::shape)
          if (auto p = ast::cast<ast::PathExpr>(x.syntax()); p && p.name_ref()) {
            shape.push_back(Dim::symbol(std::string(p.name_ref().text())));
            continue;
          }
        auto v = number(x, is_int);
        if (!v || (kind != AttrKind::reals && !is_int)) return std::nullopt;
        if (kind == AttrKind::shape && *v < 0) return std::nullopt;
        ints.push_back(static_cast<std::int64_t>(*v));
        reals.push_back(*v);
        if (kind == AttrKind::shape) shape.push_back(Dim::fixed(static_cast<std::uint64_t>(*v)));
      }
      if (kind == AttrKind::integers) return AttrValue(std::move(ints));
      if (kind == AttrKind::reals) return AttrValue(std::move(reals));
      return AttrValue(std::move(shape));
    }
    default: return std::nullopt;
  }
}

}  // namespace

std::optional<AttrMap> attrs_from_args(const ops::OpDef& op, const std::vector<ast::NamedArg>& named, SourceId src,
                                       DiagnosticSink& d) {
  AttrMap out;
  bool ok = true;
  auto sp = [&](const ast::AstNode& n) { return Span{src, n.range().begin, n.range().end}; };
  for (const ast::NamedArg& a : named) {
    if (!a.name() || !a.value()) continue;  // a syntax error, already reported
    std::string name(a.name().text());
    const ops::AttrSpec* spec = nullptr;
    for (const auto& s : op.attrs)
      if (s.name == name) spec = &s;
    if (!spec) {
      std::string list;
      for (const auto& s : op.attrs) list += (list.empty() ? "" : ", ") + s.to_string();
      d.error("E2007", "`" + op.name + "` has no attribute `" + name + "`")
          .primary(sp(a.name()), "unknown attribute")
          .note("attributes of " + op.name + ": " + (list.empty() ? std::string("none") : list));
      ok = false;
      continue;
    }
    if (out.count(name)) {
      d.error("E2007", "attribute `" + name + "` is given twice").primary(sp(a), "again here");
      ok = false;
      continue;
    }
    auto v = convert(spec->kind, a.value());
    if (!v) {
      d.error("E2008", "attribute `" + name + "` of `" + op.name + "` must be a literal " + spec->to_string())
          .primary(sp(a.value()), "not a literal of kind " + std::string(attr_kind_name(spec->kind)));
      ok = false;
      continue;
    }
    out.emplace(name, std::move(*v));
  }
  if (!ok) return std::nullopt;
  return out;
}

}  // namespace rung::frontend
