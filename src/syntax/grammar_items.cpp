// Items: the file, `module`, `import`, `tier`/`tolerance`, `struct`, `fn`.
#include "syntax/grammar.h"

namespace rung::syntax::grammar {
namespace {

// MODULE_DECL = 'module' PATH ';'
void module_decl(Parser& p, std::optional<Span> first_item, std::optional<Span> earlier_module) {
  Marker m = p.start();
  if (earlier_module) {
    if (Diagnostic* d = p.error("E1109", "a file has at most one `module` declaration"))
      d->secondary(*earlier_module, "the module is already declared here");
  } else if (first_item) {
    if (Diagnostic* d = p.error("E1109", "the `module` declaration must come before every other item"))
      d->secondary(*first_item, "first item");
  }
  p.bump();
  path(p);
  p.expect(K::SEMICOLON);
  m.complete(p, K::MODULE_DECL);
}

// RENAME = 'as' NAME
void rename(Parser& p) {
  Marker m = p.start();
  p.bump();
  name(p);
  m.complete(p, K::RENAME);
}

// IMPORT_NAME = NAME_REF RENAME?
void import_name(Parser& p) {
  Marker m = p.start();
  name_ref(p);
  if (p.at(K::AS_KW)) rename(p);
  m.complete(p, K::IMPORT_NAME);
}

// IMPORT = 'import' PATH (RENAME | '.' IMPORT_LIST)? ';'
// IMPORT_LIST = '{' (IMPORT_NAME (',' IMPORT_NAME)* ','?)? '}'
void import(Parser& p) {
  Marker m = p.start();
  p.bump();
  path(p);
  if (p.at(K::AS_KW)) {
    rename(p);
  } else if (p.at(K::DOT) && p.nth_at(1, K::L_CURLY)) {
    p.bump();
    Marker list = p.start();
    delimited(p, {K::L_CURLY, K::R_CURLY, TokenSet{K::IDENT}, "E1106", "a name to import"}, import_name);
    list.complete(p, K::IMPORT_LIST);
  }
  p.expect(K::SEMICOLON);
  m.complete(p, K::IMPORT);
}

// FIELD = NAME ':' TYPE
void field(Parser& p) {
  Parser::Scope scope(p);
  Marker m = p.start();
  name(p);
  // `w: f32` with the colon forgotten still has a type to parse.
  if (p.expect(K::COLON) || p.at(kTypeFirst)) type(p);
  m.complete(p, K::FIELD);
}

// GENERIC_PARAMS = '[' (GENERIC_PARAM (',' GENERIC_PARAM)* ','?)? ']'   GENERIC_PARAM = NAME
void generic_params(Parser& p) {
  Marker m = p.start();
  delimited(p, {K::L_BRACK, K::R_BRACK, TokenSet{K::IDENT}, "E1106", "a dimension name"}, [](Parser& q) {
    Marker g = q.start();
    name(q);
    g.complete(q, K::GENERIC_PARAM);
  });
  m.complete(p, K::GENERIC_PARAMS);
}

// STRUCT = 'export'? 'struct' NAME GENERIC_PARAMS? FIELD_LIST
// FIELD_LIST = '{' (FIELD (',' FIELD)* ','?)? '}'
void struct_item(Parser& p) {
  Marker m = p.start();
  p.eat(K::EXPORT_KW);
  p.bump();  // `struct`
  name(p);
  if (p.at(K::L_BRACK)) generic_params(p);
  if (p.at(K::L_CURLY)) {
    Marker list = p.start();
    delimited(p, {K::L_CURLY, K::R_CURLY, TokenSet{K::IDENT}, "E1106", "a field name"}, field);
    list.complete(p, K::FIELD_LIST);
  } else {
    p.error("E1101", "expected `{` and the struct's fields, found " + p.found());
  }
  m.complete(p, K::STRUCT);
}

// PARAM = PATTERN ':' TYPE
void param(Parser& p) {
  Parser::Scope scope(p);
  Marker m = p.start();
  pattern(p);
  if (p.expect(K::COLON) || p.at(kTypeFirst)) type(p);
  m.complete(p, K::PARAM);
}

// EFFECTS = '!' (EFFECT | '{' (EFFECT (',' EFFECT)* ','?)? '}')   EFFECT = NAME_REF
void effects(Parser& p) {
  Marker m = p.start();
  p.bump();  // `!`
  auto effect = [](Parser& q) {
    Marker e = q.start();
    name_ref(q);
    e.complete(q, K::EFFECT);
  };
  if (p.at(K::L_CURLY)) {
    delimited(p, {K::L_CURLY, K::R_CURLY, TokenSet{K::IDENT}, "E1112", "an effect name"}, effect);
  } else if (p.at(K::IDENT)) {
    effect(p);
  } else if (Diagnostic* d = p.error("E1112", "expected an effect name or `{` after `!`, found " + p.found())) {
    d->note("effects are written `!io` or `!{rand, io}`");
  }
  m.complete(p, K::EFFECTS);
}

// FN = 'export'? 'fn' NAME GENERIC_PARAMS? PARAM_LIST RET_TYPE? EFFECTS? (BLOCK_EXPR | ';')
// PARAM_LIST = '(' (PARAM (',' PARAM)* ','?)? ')'   RET_TYPE = '->' TYPE
void fn_item(Parser& p) {
  Marker m = p.start();
  p.eat(K::EXPORT_KW);
  p.bump();  // `fn`
  name(p);
  if (p.at(K::L_BRACK)) generic_params(p);
  if (p.at(K::L_PAREN)) {
    Marker list = p.start();
    delimited(p, {K::L_PAREN, K::R_PAREN, kPatternFirst, "E1105", "a parameter"}, param);
    list.complete(p, K::PARAM_LIST);
  } else {
    p.error("E1101", "expected `(` and the parameter list, found " + p.found());
  }
  if (p.at(K::THIN_ARROW)) {
    Marker ret = p.start();
    p.bump();
    type(p);
    ret.complete(p, K::RET_TYPE);
  }
  if (p.at(K::BANG)) effects(p);
  if (p.at(K::L_CURLY)) {
    block(p);
  } else if (!p.eat(K::SEMICOLON)) {
    p.error_after_prev("E1101", "expected the function body `{ ... }` or `;`, found " + p.found());
  }
  m.complete(p, K::FN);
}

void item(Parser& p, std::optional<Span>& first_item, std::optional<Span>& module_span) {
  Parser::Scope scope(p);
  Span here = p.current_span();
  if (p.at(K::MODULE_KW)) {
    module_decl(p, first_item, module_span);
    if (!module_span) module_span = here;
  } else if (p.at(K::IMPORT_KW)) {
    import(p);
  } else if (p.at(K::STRUCT_KW) || (p.at(K::EXPORT_KW) && p.nth_at(1, K::STRUCT_KW))) {
    struct_item(p);
  } else if (p.at(K::FN_KW) || (p.at(K::EXPORT_KW) && p.nth_at(1, K::FN_KW))) {
    fn_item(p);
  } else if (p.at(K::EXPORT_KW)) {
    Marker m = p.start();
    p.bump();
    p.error("E1111", "expected `fn` or `struct` after `export`, found " + p.found());
    m.complete(p, K::ERROR);
  } else {
    decl(p);
  }
  if (!first_item) first_item = here;
}

}  // namespace

bool at_decl_start(Parser& p) {
  if (p.at_contextual(K::OVERRIDE_KW))
    return p.at_contextual(K::TIER_KW, 1) || p.at_contextual(K::TOLERANCE_KW, 1);
  return (p.at_contextual(K::TIER_KW) || p.at_contextual(K::TOLERANCE_KW)) && p.nth_at(1, K::IDENT);
}

bool at_item_start(Parser& p, bool top_level) {
  if (p.at(kItemKeywords)) return true;
  // At the top level a bare `tier` can only be a declaration, even a broken one.
  if (top_level)
    return p.at_contextual(K::TIER_KW) || p.at_contextual(K::TOLERANCE_KW) || p.at_contextual(K::OVERRIDE_KW);
  return at_decl_start(p);
}

// TIER_DECL = 'override'? 'tier' NAME_REF ';'   TOLERANCE_DECL = 'override'? 'tolerance' NAME_REF ';'
void decl(Parser& p) {
  Marker m = p.start();
  if (p.at_contextual(K::OVERRIDE_KW)) p.bump_remap(K::OVERRIDE_KW);
  SyntaxKind kind = K::TIER_DECL;
  if (p.at_contextual(K::TIER_KW)) {
    p.bump_remap(K::TIER_KW);
  } else if (p.at_contextual(K::TOLERANCE_KW)) {
    p.bump_remap(K::TOLERANCE_KW);
    kind = K::TOLERANCE_DECL;
  } else {
    p.error("E1101", "expected `tier` or `tolerance` after `override`, found " + p.found());
    m.complete(p, K::ERROR);
    return;
  }
  if (p.at(K::IDENT)) {
    name_ref(p);
  } else if (Diagnostic* d = p.error("E1106", std::string("expected a ") + (kind == K::TIER_DECL ? "tier" : "tolerance class") +
                                              " name, found " + p.found())) {
    d->note(kind == K::TIER_DECL ? "the tiers are `debug`, `prod` and `fast`"
                                 : "the tolerance classes are `exact`, `tight`, `default` and `loose`");
  }
  p.expect(K::SEMICOLON);
  m.complete(p, kind);
}

// SOURCE_FILE = ITEM*
void source_file(Parser& p) {
  Marker m = p.start();
  std::optional<Span> first_item, module_span;
  while (!p.at(K::END_OF_FILE)) {
    if (at_item_start(p, true)) {
      item(p, first_item, module_span);
      continue;
    }
    Parser::Scope scope(p);
    if (Diagnostic* d = p.error("E1102", "expected an item, found " + p.found()))
      d->note("a file holds `module`, `import`, `tier`, `tolerance`, `struct` and `fn` declarations");
    // Skip to the next item, keeping bracketed groups whole.
    Marker err = p.start();
    int depth = 0;
    while (!p.at(K::END_OF_FILE) && !(depth == 0 && at_item_start(p, true)) && !p.at(kItemKeywords)) {
      SyntaxKind k = p.current();
      if (k == K::L_PAREN || k == K::L_BRACK || k == K::L_CURLY) ++depth;
      if ((k == K::R_PAREN || k == K::R_BRACK || k == K::R_CURLY) && depth > 0) --depth;
      p.bump();
    }
    err.complete(p, K::ERROR);
  }
  p.drain();
  m.complete(p, K::SOURCE_FILE);
}

}  // namespace rung::syntax::grammar
