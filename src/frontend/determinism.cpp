#include "frontend/determinism.h"

#include <string>

namespace rung::frontend {
namespace {

using namespace syntax::ast;

Span span_of(const AstNode& n, SourceId src) { return Span{src, n.range().begin, n.range().end}; }

int strictness(std::string_view tier) {  // higher is stricter; -1 unknown
  if (tier == "debug") return 2;
  if (tier == "prod") return 1;
  if (tier == "fast") return 0;
  return -1;
}
bool known_tolerance(std::string_view t) { return t == "exact" || t == "tight" || t == "default" || t == "loose"; }

struct Decl {
  std::string name;
  bool override_ = false;
  Span span;
};

// Folds tier declarations in order into `tier`/`at`. Returns false after an unknown name.
bool fold_tiers(const std::vector<Decl>& decls, std::string& tier, Span& at, DiagnosticSink& diags) {
  bool ok = true;
  for (const auto& d : decls) {
    if (strictness(d.name) < 0) {
      diags.error("E2302", "unknown tier `" + d.name + "`").primary(d.span, "not a tier").note("tiers: debug, prod, fast");
      ok = false;
      continue;
    }
    if (tier.empty()) {
      tier = d.name, at = d.span;
      continue;
    }
    if (d.override_) {
      if (strictness(d.name) < strictness(tier))
        diags.warning("E2303", "`override tier " + d.name + "` drops the stricter tier " + tier)
            .primary(d.span, "overrides to " + d.name)
            .secondary(at, "stricter tier " + tier + " declared here")
            .note("results may now differ between runs or machines within the " + d.name + " tier's rules");
      tier = d.name, at = d.span;
      continue;
    }
    if (d.name != tier) {
      std::string strict = strictness(d.name) > strictness(tier) ? d.name : tier;
      diags.warning("E2304", "conflicting tiers " + tier + " and " + d.name + ": the strictest, " + strict + ", applies")
          .primary(d.span, "tier " + d.name)
          .secondary(at, "tier " + tier)
          .note("write `override tier ...;` to choose a less strict tier on purpose");
      if (strictness(d.name) > strictness(tier)) tier = d.name, at = d.span;
    }
  }
  return ok;
}

}  // namespace

std::optional<block::Determinism> resolve_determinism(const syntax::ast::SourceFile& file, SourceId src, DiagnosticSink& diags) {
  std::vector<Decl> tiers;
  std::string tolerance;
  Span tol_at;
  bool ok = true;
  for (const Item& item : file.items()) {
    if (auto t = cast<TierDecl>(item.syntax())) {
      if (!t.name_ref()) continue;  // a syntax error, already reported
      tiers.push_back({std::string(t.name_ref().text()), static_cast<bool>(t.override_token()), span_of(t, src)});
    } else if (auto t2 = cast<ToleranceDecl>(item.syntax())) {
      if (!t2.name_ref()) continue;
      std::string name(t2.name_ref().text());
      if (!known_tolerance(name)) {
        diags.error("E2302", "unknown tolerance class `" + name + "`")
            .primary(span_of(t2.name_ref(), src), "not a tolerance class")
            .note("tolerance classes: exact, tight, default, loose");
        ok = false;
        continue;
      }
      if (!tolerance.empty() && tolerance != name && !t2.override_token())
        diags.warning("E2304", "conflicting tolerance classes " + tolerance + " and " + name + ": the last applies")
            .primary(span_of(t2, src))
            .secondary(tol_at);
      tolerance = name, tol_at = span_of(t2, src);
    }
  }
  std::string tier;
  Span at;
  if (!fold_tiers(tiers, tier, at, diags)) ok = false;
  if (tier.empty() && ok) {
    auto& d = diags.error("E2301", "the module declares no determinism tier");
    if (auto m = file.module_decl()) d.primary(span_of(m, src), "in this module");
    else d.primary(Span{src, 0, 0});
    d.note("add `tier debug;` (bit-exact), `tier prod;` (deterministic within a tolerance class) or `tier fast;`")
        .note("rung never picks a tier for you");
    return std::nullopt;
  }
  if (!ok) return std::nullopt;
  if (tolerance.empty()) tolerance = tier == "debug" ? "exact" : "default";
  return block::Determinism{tier, tolerance};
}

std::string check_function_tiers(const FnItem& fn, const block::Determinism& module, SourceId src, DiagnosticSink& diags) {
  auto body = fn.body();
  if (!body) return {};
  std::vector<Decl> decls;
  for (const Stmt& s : body.statements())
    if (auto t = cast<TierDecl>(s.syntax()); t && t.name_ref())
      decls.push_back({std::string(t.name_ref().text()), static_cast<bool>(t.override_token()), span_of(t, src)});
  if (decls.empty()) return {};
  std::string tier = module.tier;
  Span at{src, 0, 0};
  // The module's declaration of its tier, for the second label.
  if (auto file = cast<syntax::ast::SourceFile>(fn.syntax().parent()))
    for (const Item& item : file.items())
      if (auto t = cast<TierDecl>(item.syntax()); t && t.name_ref() && t.name_ref().text() == tier) at = span_of(t, src);
  if (!fold_tiers(decls, tier, at, diags)) return {};
  return tier;
}

void compose_imported_tiers(const syntax::ast::SourceFile& imported, SourceId imported_src, const syntax::ast::SourceFile& main, SourceId main_src,
                             block::Determinism& det, DiagnosticSink& diags) {
  Span main_at{main_src, 0, 0};
  for (const Item& item : main.items())
    if (auto t = cast<TierDecl>(item.syntax())) main_at = span_of(t, main_src);
  for (const Item& item : imported.items()) {
    auto t = cast<TierDecl>(item.syntax());
    if (!t || !t.name_ref()) continue;
    std::string name(t.name_ref().text());
    Span at = span_of(t, imported_src);
    if (strictness(name) < 0) {
      diags.error("E2302", "unknown tier `" + name + "`").primary(at, "not a tier").note("tiers: debug, prod, fast");
      continue;
    }
    if (name == det.tier) continue;
    std::string strict = strictness(name) > strictness(det.tier) ? name : det.tier;
    diags.warning("E2304", "an imported module declares tier " + name + ", the program " + det.tier + ": the strictest, " + strict + ", applies")
        .primary(at, "tier " + name)
        .secondary(main_at, "tier " + det.tier);
    if (strictness(name) > strictness(det.tier)) {
      det.tier = name;
      if (det.tolerance == "default" && name == "debug") det.tolerance = "exact";
    }
  }
}

}  // namespace rung::frontend
