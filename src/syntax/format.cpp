#include "syntax/format.h"

#include "base/check.h"
#include "syntax/ast.h"
#include "syntax/format_impl.h"
#include "syntax/parse.h"

namespace rung::syntax {
namespace fmt {

std::vector<SyntaxElement> significant_children(SyntaxNode n) {
  std::vector<SyntaxElement> out;
  for (std::uint32_t i = 0; i < n.child_count(); ++i) {
    SyntaxElement e = n.child(i);
    if (e.is_node() || !is_trivia(e.kind())) out.push_back(e);
  }
  return out;
}

SyntaxToken first_significant_token(SyntaxNode n) {
  SyntaxToken t = n.first_token();
  SyntaxToken last = n.last_token();
  while (t && is_trivia(t.kind())) {
    if (t == last) return {};
    t = t.next_token();
  }
  return t;
}

// ---- tokens and comments ----------------------------------------------------------------

DocId Formatter::comment(const Comment& c) { return d_.text(c.text); }

DocId Formatter::leading(SyntaxToken t) {
  std::uint32_t key = t ? t.range().begin : CommentMap::kEnd;
  const TokenComments* tc = comments_.at(key);
  if (!tc || tc->leading.empty() || (key != CommentMap::kEnd && hoisted_[key])) return d_.nil();
  std::vector<DocId> parts;
  for (std::size_t i = 0; i < tc->leading.size(); ++i) {
    const Comment& c = tc->leading[i];
    if (c.newline_before) {
      parts.push_back(d_.ensure_line_start());
      if (i > 0 && c.blank_before) parts.push_back(d_.hardline());
    }
    parts.push_back(comment(c));
    if (c.newline_after) {
      parts.push_back(d_.hardline());
      // A blank line between the last comment and the token stays (between comments,
      // the next comment keeps its own).
      if (i + 1 == tc->leading.size() && comments_.blank_before(key)) parts.push_back(d_.hardline());
    } else {
      parts.push_back(d_.space());
    }
  }
  return d_.concat(parts);
}

DocId Formatter::trailing(SyntaxToken t) {
  const TokenComments* tc = comments_.at(t.range().begin);
  if (!tc || tc->trailing.empty()) return d_.nil();
  std::vector<DocId> parts;
  for (const Comment& c : tc->trailing) parts.push_back(d_.line_suffix(d_.concat({d_.space(), comment(c)})));
  // A trailing comment is held back to the end of its line, wherever that ends up. After
  // a comma or an opening bracket it also keeps the list broken, so `x, // why` stays on
  // x's line. Nowhere else does it force a break: if it did, a second pass (the comment
  // now after the line's last token) could break a group the first pass kept flat.
  SyntaxKind k = t.kind();
  if (k == SyntaxKind::COMMA || k == SyntaxKind::L_PAREN || k == SyntaxKind::L_BRACK || k == SyntaxKind::L_CURLY)
    parts.push_back(d_.break_parent());
  return d_.concat(parts);
}

DocId Formatter::tok(SyntaxToken t) {
  if (!t) return d_.nil();
  return d_.concat({leading(t), d_.text(t.text()), trailing(t)});
}

DocId Formatter::tok(SyntaxNode n, SyntaxKind kind) { return tok(n.first_child_token(kind)); }

DocId Formatter::drop(SyntaxToken t) {
  if (!t) return d_.nil();
  return d_.concat({leading(t), trailing(t)});
}

DocId Formatter::hoist(SyntaxNode n) {
  SyntaxToken t = first_significant_token(n);
  if (!t) return d_.nil();
  DocId doc = leading(t);
  hoisted_[t.range().begin] = true;
  return doc;
}

bool Formatter::blank_line_before(SyntaxNode n) {
  SyntaxToken t = first_significant_token(n);
  if (!t) return false;
  const TokenComments* tc = comments_.at(t.range().begin);
  if (tc && !tc->leading.empty()) return tc->leading.front().blank_before;
  return comments_.blank_before(t.range().begin);
}

DocId Formatter::dangling(SyntaxToken close, bool after_content) {
  const TokenComments* tc = comments_.at(close.range().begin);
  if (!tc || tc->leading.empty()) return d_.nil();
  // Each on its own line inside the brackets, whatever it was before: written once this
  // way, the comment reads back the same way.
  std::vector<DocId> parts;
  bool first = true;
  for (const Comment& c : tc->leading) {
    parts.push_back(d_.hardline());
    if (c.blank_before && (after_content || !first)) parts.push_back(d_.hardline());
    parts.push_back(comment(c));
    first = false;
  }
  return d_.concat(parts);
}

DocId Formatter::end_comments(bool after_content) {
  const TokenComments* tc = comments_.at(CommentMap::kEnd);
  if (!tc || tc->leading.empty()) return d_.nil();
  std::vector<DocId> parts;
  bool first = true;
  for (const Comment& c : tc->leading) {
    if (!first || after_content) {
      if (c.newline_before) {
        parts.push_back(d_.hardline());
        if (c.blank_before) parts.push_back(d_.hardline());
      } else {
        parts.push_back(d_.space());
      }
    }
    parts.push_back(comment(c));
    first = false;
  }
  return d_.concat(parts);
}

DocId Formatter::close_token(SyntaxToken close) {
  if (!close) return d_.nil();
  return d_.concat({d_.text(close.text()), trailing(close)});
}

// ---- structure -----------------------------------------------------------------------------

DocId Formatter::plain(SyntaxNode n) {
  std::vector<DocId> parts;
  for (const SyntaxElement& e : significant_children(n)) parts.push_back(e.is_node() ? node(e.node()) : tok(e.token()));
  return d_.concat(parts);
}

DocId Formatter::list(SyntaxNode n, SyntaxKind open_kind, SyntaxKind close_kind, ListStyle style) {
  SyntaxToken open, close;
  std::vector<std::pair<SyntaxNode, SyntaxToken>> elems;  // element, its comma
  std::vector<DocId> before;  // tokens before the opening delimiter, e.g. the `!` of `!{io}`
  for (const SyntaxElement& e : significant_children(n)) {
    if (!open) {
      if (e.is_token() && e.kind() == open_kind) open = e.token();
      else before.push_back(e.is_node() ? node(e.node()) : tok(e.token()));
    } else if (e.is_token() && e.kind() == close_kind) {
      close = e.token();
    } else if (e.is_token() && e.kind() == SyntaxKind::COMMA && !elems.empty()) {
      elems.back().second = e.token();
    } else if (e.is_node()) {
      elems.push_back({e.node(), SyntaxToken()});
    }
  }
  DocId head = d_.concat({d_.concat(before), tok(open)});
  DocId edge = style.spaced ? d_.line() : d_.softline();
  if (elems.empty()) {
    DocId inner = dangling(close, false);
    if (inner == d_.nil()) return d_.concat({head, close_token(close)});
    return d_.group(d_.concat({head, d_.indent(inner), d_.hardline(), close_token(close)}));
  }
  std::vector<DocId> inner;
  for (std::size_t i = 0; i < elems.size(); ++i) {
    auto [e, comma] = elems[i];
    if (i > 0) {
      inner.push_back(d_.line());
      if (style.always_break && blank_line_before(e)) inner.push_back(d_.softline());
    }
    inner.push_back(hoist(e));
    inner.push_back(node(e));
    bool last = i + 1 == elems.size();
    if (!last) {
      inner.push_back(comma ? tok(comma) : d_.text(","));
    } else if (style.keep_single_comma && elems.size() == 1) {
      inner.push_back(comma ? tok(comma) : d_.text(","));
    } else {
      DocId mark = d_.if_break(d_.text(","), d_.nil());
      inner.push_back(comma ? d_.concat({leading(comma), mark, trailing(comma)}) : mark);
    }
  }
  inner.push_back(dangling(close, true));
  if (style.always_break) inner.push_back(d_.break_parent());
  // The closing bracket sits outside the group (the fit check still counts it), so what
  // trails it never decides how the list breaks.
  return d_.concat({d_.group(d_.concat({head, d_.indent(d_.concat({edge, d_.concat(inner)})), edge})),
                    close_token(close)});
}

DocId Formatter::sequence(const std::vector<SyntaxNode>& items, bool top_level) {
  std::vector<DocId> parts;
  for (std::size_t i = 0; i < items.size(); ++i) {
    SyntaxNode n = items[i];
    if (i > 0) {
      parts.push_back(d_.hardline());
      // Functions and structs stand apart; elsewhere the author's blank lines stay.
      auto roomy = [](SyntaxKind k) { return k == SyntaxKind::FN || k == SyntaxKind::STRUCT; };
      bool blank = blank_line_before(n) || (top_level && (roomy(n.kind()) || roomy(items[i - 1].kind())));
      if (blank) parts.push_back(d_.hardline());
    }
    parts.push_back(hoist(n));
    parts.push_back(top_level ? item(n) : stmt(n));
  }
  return d_.concat(parts);
}

DocId Formatter::source_file() {
  std::vector<SyntaxNode> items;
  for (SyntaxNode c : root_.children()) items.push_back(c);
  DocId body = sequence(items, true);
  return d_.concat({body, end_comments(!items.empty())});
}

DocId Formatter::item(SyntaxNode n) {
  using K = SyntaxKind;
  auto space = d_.space();
  switch (n.kind()) {
    case K::MODULE_DECL:
      return d_.concat({tok(n, K::MODULE_KW), space, node(n.first_child(K::PATH)), tok(n, K::SEMICOLON)});
    case K::IMPORT: {
      std::vector<DocId> parts{tok(n, K::IMPORT_KW), space, node(n.first_child(K::PATH))};
      if (SyntaxNode r = n.first_child(K::RENAME)) parts.insert(parts.end(), {space, node(r)});
      if (SyntaxNode l = n.first_child(K::IMPORT_LIST)) parts.insert(parts.end(), {tok(n, K::DOT), node(l)});
      parts.push_back(tok(n, K::SEMICOLON));
      return d_.concat(parts);
    }
    case K::TIER_DECL:
    case K::TOLERANCE_DECL: {
      std::vector<DocId> parts;
      if (SyntaxToken o = n.first_child_token(K::OVERRIDE_KW)) parts.insert(parts.end(), {tok(o), space});
      SyntaxKind kw = n.kind() == K::TIER_DECL ? K::TIER_KW : K::TOLERANCE_KW;
      parts.insert(parts.end(), {tok(n, kw), space, node(n.first_child(K::NAME_REF)), tok(n, K::SEMICOLON)});
      return d_.concat(parts);
    }
    case K::STRUCT: {
      std::vector<DocId> parts;
      if (SyntaxToken e = n.first_child_token(K::EXPORT_KW)) parts.insert(parts.end(), {tok(e), space});
      parts.insert(parts.end(), {tok(n, K::STRUCT_KW), space, node(n.first_child(K::NAME))});
      if (SyntaxNode g = n.first_child(K::GENERIC_PARAMS)) parts.push_back(node(g));
      parts.insert(parts.end(), {space, node(n.first_child(K::FIELD_LIST))});
      return d_.concat(parts);
    }
    case K::FN: {
      std::vector<DocId> parts;
      if (SyntaxToken e = n.first_child_token(K::EXPORT_KW)) parts.insert(parts.end(), {tok(e), space});
      parts.insert(parts.end(), {tok(n, K::FN_KW), space, node(n.first_child(K::NAME))});
      if (SyntaxNode g = n.first_child(K::GENERIC_PARAMS)) parts.push_back(node(g));
      parts.push_back(node(n.first_child(K::PARAM_LIST)));
      if (SyntaxNode r = n.first_child(K::RET_TYPE)) parts.insert(parts.end(), {space, node(r)});
      if (SyntaxNode e = n.first_child(K::EFFECTS)) parts.insert(parts.end(), {space, node(e)});
      if (SyntaxNode b = n.first_child(K::BLOCK_EXPR)) parts.insert(parts.end(), {space, block(b, false)});
      else parts.push_back(tok(n, K::SEMICOLON));
      return d_.concat(parts);
    }
    default: return node(n);
  }
}

DocId Formatter::type(SyntaxNode n) {
  using K = SyntaxKind;
  switch (n.kind()) {
    case K::NAMED_TYPE: {
      std::vector<DocId> parts{node(n.first_child(K::PATH))};
      if (SyntaxNode s = n.first_child(K::SHAPE)) parts.push_back(node(s));
      if (SyntaxNode m = n.first_child(K::MEM_SPACE)) parts.insert(parts.end(), {d_.space(), node(m)});
      return d_.concat(parts);
    }
    case K::REF_TYPE: {
      std::vector<DocId> parts{tok(n, K::AMP)};
      SyntaxToken mut = n.first_child_token(K::MUT_KW);
      if (mut) parts.insert(parts.end(), {tok(mut), d_.space()});
      SyntaxNode pointee = n.first_child();
      // `& &T`, not `&&T`, which the lexer reads as one `&&` token.
      if (!mut && pointee && first_significant_token(pointee).kind() == K::AMP) parts.push_back(d_.space());
      parts.push_back(node(pointee));
      return d_.concat(parts);
    }
    case K::TUPLE_TYPE: return list(n, K::L_PAREN, K::R_PAREN, {.keep_single_comma = true});
    default: return plain(n);
  }
}

DocId Formatter::node(SyntaxNode n) {
  using K = SyntaxKind;
  if (!n) return d_.nil();
  DocId space = d_.space();
  switch (n.kind()) {
    case K::MODULE_DECL: case K::IMPORT: case K::TIER_DECL: case K::TOLERANCE_DECL: case K::STRUCT: case K::FN:
      return item(n);
    case K::RENAME: return d_.concat({tok(n, K::AS_KW), space, node(n.first_child(K::NAME))});
    case K::IMPORT_LIST: return list(n, K::L_CURLY, K::R_CURLY, {});
    case K::IMPORT_NAME: {
      DocId name = node(n.first_child(K::NAME_REF));
      if (SyntaxNode r = n.first_child(K::RENAME)) return d_.concat({name, space, node(r)});
      return name;
    }
    case K::FIELD_LIST: return list(n, K::L_CURLY, K::R_CURLY, {.spaced = true, .always_break = true});
    case K::FIELD:
    case K::PARAM:
    case K::NAMED_ARG:
    case K::STRUCT_LIT_FIELD: {
      // `name: value`: the child before the colon, the colon, a space, the rest.
      std::vector<DocId> parts;
      for (const SyntaxElement& e : significant_children(n)) {
        if (e.is_token() && e.kind() == K::COLON) parts.insert(parts.end(), {tok(e.token()), space});
        else parts.push_back(e.is_node() ? node(e.node()) : tok(e.token()));
      }
      return d_.concat(parts);
    }
    case K::GENERIC_PARAMS: return list(n, K::L_BRACK, K::R_BRACK, {});
    case K::PARAM_LIST: return list(n, K::L_PAREN, K::R_PAREN, {});
    case K::RET_TYPE: return d_.concat({tok(n, K::THIN_ARROW), space, node(n.first_child())});
    case K::EFFECTS:
      if (n.first_child_token(K::L_CURLY)) return list(n, K::L_CURLY, K::R_CURLY, {});
      return plain(n);
    case K::NAMED_TYPE: case K::REF_TYPE: case K::TUPLE_TYPE: case K::PAREN_TYPE: return type(n);
    case K::SHAPE: return list(n, K::L_BRACK, K::R_BRACK, {});
    case K::MEM_SPACE: return plain(n);
    case K::IDENT_PAT: {
      if (SyntaxToken m = n.first_child_token(K::MUT_KW))
        return d_.concat({tok(m), space, node(n.first_child(K::NAME))});
      return plain(n);
    }
    case K::TUPLE_PAT: return list(n, K::L_PAREN, K::R_PAREN, {.keep_single_comma = true});
    case K::LET_STMT: case K::EXPR_STMT: case K::EMPTY_STMT: return stmt(n);
    case K::ARG_LIST: return list(n, K::L_PAREN, K::R_PAREN, {});
    case K::INDEX_LIST: return list(n, K::L_BRACK, K::R_BRACK, {});
    case K::STRUCT_LIT_FIELDS: return list(n, K::L_CURLY, K::R_CURLY, {.spaced = true});
    case K::SLICE: return plain(n);
    default:
      if (ast::Expr::can_cast(n.kind())) return expr(n);
      return plain(n);
  }
}

}  // namespace fmt

namespace {

// What formatting must keep: node kinds and significant tokens in order, and every
// comment. Left out are the two things the formatter may change: trailing commas, and
// stray `;` (empty statements).
struct Fingerprint {
  std::vector<std::pair<SyntaxKind, std::string_view>> items;
  std::vector<std::string_view> comments;
  bool operator==(const Fingerprint&) const = default;
};

bool before_closer(SyntaxToken t) {
  for (SyntaxToken n = t.next_token(); n; n = n.next_token()) {
    if (is_trivia(n.kind())) continue;
    return n.kind() == SyntaxKind::R_PAREN || n.kind() == SyntaxKind::R_BRACK || n.kind() == SyntaxKind::R_CURLY;
  }
  return false;
}

Fingerprint fingerprint(const SyntaxTree& tree) {
  Fingerprint f;
  f.items.reserve(tree.root().range().end / 2);
  Preorder walk(tree.root());
  Preorder::Step step;
  while (walk.next(step)) {
    if (!step.enter) continue;
    SyntaxElement e = step.element;
    if (e.is_node()) {
      if (e.kind() != SyntaxKind::EMPTY_STMT) f.items.push_back({e.kind(), {}});
      continue;
    }
    SyntaxToken t = e.token();
    if (is_comment(t.kind())) {
      std::string_view c = t.text();
      if (t.kind() != SyntaxKind::BLOCK_COMMENT)
        while (!c.empty() && (c.back() == ' ' || c.back() == '\t' || c.back() == '\r' || c.back() == '\f' || c.back() == '\v')) c.remove_suffix(1);
      f.comments.push_back(c);
      continue;
    }
    if (is_trivia(t.kind()) || t.parent().kind() == SyntaxKind::EMPTY_STMT) continue;
    if (t.kind() == SyntaxKind::COMMA && before_closer(t)) continue;
    f.items.push_back({t.kind(), t.text()});
  }
  return f;
}

}  // namespace

std::optional<std::string> format_source(std::string_view text, SourceId source, std::vector<Diagnostic>& diags,
                                         const FormatOptions& options) {
  Parse parsed = parse(text, source);
  if (parsed.has_errors()) {
    std::size_t errors = 0;
    for (const Diagnostic& d : parsed.diagnostics) errors += d.severity == Severity::Error;
    Span first = parsed.diagnostics.front().primary_label()->span;
    diags.insert(diags.end(), parsed.diagnostics.begin(), parsed.diagnostics.end());
    Diagnostic refuse;
    refuse.code = "E1900";
    refuse.message = "not formatted: the file has " + std::to_string(errors) + " syntax error" + (errors == 1 ? "" : "s");
    refuse.primary(first, "the first error is here");
    refuse.note("the formatter rewrites only files that parse cleanly, so it never guesses at what was meant");
    diags.push_back(std::move(refuse));
    return std::nullopt;
  }
  std::string out = format_tree(parsed.tree, options);
  // Check the result before anyone sees it: it must parse, and hold the same program and
  // the same comments.
  Parse again = parse(out);
  if (again.has_errors() || fingerprint(again.tree) != fingerprint(parsed.tree)) {
    Diagnostic bug;
    bug.code = "E1901";
    bug.message = "internal error: the formatted text does not match the original; the file is left as it is";
    bug.primary(Span{source, 0, 0});
    bug.note("this is a bug in rung's formatter; please report it with the file");
    diags.push_back(std::move(bug));
    return std::nullopt;
  }
  return out;
}

std::string format_tree(const SyntaxTree& tree, const FormatOptions& options) {
  fmt::Formatter f(tree.root());
  DocId doc = f.source_file();
  std::string out = f.docs().print(doc, options.width, options.indent);
  if (!out.empty()) out += '\n';
  return out;
}

}  // namespace rung::syntax
