// Named arguments of a prelude call become op attributes: `sum(x, axes: [1])`,
// `softmax(x, axis: 1)`, `iota(shape: [3, 4], dtype: f32)`. The op's declaration says what
// kind each attribute is; the literal written must be of that kind.
#include <cmath>

#include "frontend/lowerer.h"
#include "ir/graph/dtype.h"
#include "ops/numerics/convert.h"
#include "syntax/literal.h"

namespace rung::frontend {
namespace {

using namespace syntax;

// A (possibly negated) number literal, exact: an integer as sign and 64-bit magnitude.
struct Number {
  bool is_int = false;
  bool negative = false;
  std::uint64_t magnitude = 0;  // integers
  double real = 0;              // floats; for integers the nearest double (reals attributes)
};

std::optional<Number> number(const ast::Expr& e) {
  if (auto p = ast::cast<ast::PrefixExpr>(e.syntax()); p && p.op_token().kind() == SyntaxKind::MINUS) {
    auto v = number(p.operand());
    if (v) v->negative = !v->negative, v->real = -v->real;
    return v;
  }
  if (auto paren = ast::cast<ast::ParenExpr>(e.syntax())) return number(paren.inner());
  auto lit = ast::cast<ast::Literal>(e.syntax());
  if (!lit) return std::nullopt;
  auto tok = lit.token();
  if (tok.kind() == SyntaxKind::INT_NUMBER) {
    auto v = int_value(tok.text());
    if (!v) return std::nullopt;
    return Number{true, false, *v, num::int_to_double_rounded(false, *v, 53)};
  }
  if (tok.kind() == SyntaxKind::FLOAT_NUMBER)
    if (auto v = float_value(tok.text())) return Number{false, false, 0, *v};
  return std::nullopt;
}

// Why an attribute value was refused: not the kind (E2008), or an integer out of range (E2121).
struct Refusal {
  bool out_of_range = false;
  Span at;
  std::string text;
};

// An integer attribute is an i64: -2^63 .. 2^63-1. A `seed` is a 64-bit Philox key, so it
// also takes 2^63 .. 2^64-1, stored as its two's complement bits (`seed: 18446744073709551615`
// is `seed: -1`).
std::optional<std::int64_t> to_i64(const Number& n, const ast::Expr& e, SourceId src, Refusal& why, bool raw_bits = false) {
  std::uint64_t limit = n.negative ? std::uint64_t{1} << 63 : raw_bits ? ~std::uint64_t{0} : (std::uint64_t{1} << 63) - 1;
  if (n.magnitude > limit) {
    why = {true, Span{src, e.range().begin, e.range().end}, std::string(e.syntax().text())};
    return std::nullopt;
  }
  return static_cast<std::int64_t>(n.negative ? 0 - n.magnitude : n.magnitude);
}

std::optional<AttrValue> convert(AttrKind kind, const ast::Expr& e, SourceId src, Refusal& why, bool raw_bits) {
  switch (kind) {
    case AttrKind::integer:
      if (auto v = number(e); v && v->is_int)
        if (auto i = to_i64(*v, e, src, why, raw_bits)) return AttrValue(*i);
      return std::nullopt;
    case AttrKind::real:
      if (auto v = number(e)) return AttrValue(v->real);
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
        auto v = number(x);
        if (!v || (kind != AttrKind::reals && !v->is_int)) return std::nullopt;
        if (kind == AttrKind::reals) {
          reals.push_back(v->real);
          continue;
        }
        auto i = to_i64(*v, x, src, why);  // a dimension is at most 2^63-1 too (sizes are signed downstream)
        if (!i) return std::nullopt;
        if (kind == AttrKind::shape && *i < 0) return std::nullopt;
        ints.push_back(*i);
        if (kind == AttrKind::shape) shape.push_back(Dim::fixed(static_cast<std::uint64_t>(*i)));
      }
      if (kind == AttrKind::integers) return AttrValue(std::move(ints));
      if (kind == AttrKind::reals) return AttrValue(std::move(reals));
      return AttrValue(std::move(shape));
    }
    default: return std::nullopt;
  }
}

}  // namespace

std::optional<AttrValue> attr_from_ast(AttrKind kind, const ast::Expr& e, const std::string& what, const std::string& want,
                                       SourceId src, DiagnosticSink& d, bool raw_bits) {
  Refusal why;
  auto v = convert(kind, e, src, why, raw_bits);
  if (v) return v;
  if (why.out_of_range) {
    d.error("E2121", "the literal `" + why.text + "` does not fit in " + what)
        .primary(why.at, raw_bits ? "out of 64 bits" : "out of the range of i64")
        .note(raw_bits ? "a seed holds -9223372036854775808 to 18446744073709551615 (64 bits)"
                       : "integers here hold -9223372036854775808 to 9223372036854775807; literals are never wrapped");
  } else {
    d.error("E2008", what + " must be a literal " + want)
        .primary(Span{src, e.range().begin, e.range().end}, "not a literal of kind " + std::string(attr_kind_name(kind)));
  }
  return std::nullopt;
}

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
    auto v = attr_from_ast(spec->kind, a.value(), "attribute `" + name + "` of `" + op.name + "`", spec->to_string(), src, d,
                           name == "seed");
    if (!v) {
      ok = false;
      continue;
    }
    out.emplace(name, std::move(*v));
  }
  if (!ok) return std::nullopt;
  return out;
}

}  // namespace rung::frontend
