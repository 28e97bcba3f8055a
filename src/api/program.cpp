// Program::compile: the module's determinism, overridden where the caller says (C0016), asked
// for where the module says nothing (C0010, C0022); then the entry point a run takes.
#include <algorithm>

#include "api/impl.h"
#include "base/text.h"
#include "ir/block/fingerprint.h"
#include "ir/block/keg_program.h"
#include "ops/tier.h"

namespace rung {

std::string closest_choice(std::string_view got, const std::vector<std::string>& choices) {
  if (got.size() > 64) return {};  // no typo of a short name; keeps the distance cheap
  std::string best;
  std::size_t limit = std::max<std::size_t>(1, got.size() / 3);
  std::size_t best_d = limit + 1;
  for (const auto& c : choices)
    if (std::size_t d = edit_distance(got, c); d < best_d) {
      best = c;
      best_d = d;
    }
  return best;
}

namespace {

const std::vector<std::string> kTiers = {"debug", "prod", "fast"};
const std::vector<std::string> kTolerances = {"exact", "tight", "default", "loose"};

void check_names(const CompileOptions& o, DiagnosticSink& diags) {
  for (const auto* t : {&o.tier, &o.fallback_tier})
    if (*t && std::find(kTiers.begin(), kTiers.end(), **t) == kTiers.end()) {
      auto& d = diags.error("C0012", "unknown tier `" + **t + "`: the tiers are debug, prod and fast");
      if (auto near = closest_choice(**t, kTiers); !near.empty()) d.note("did you mean `" + near + "`?");
    }
  if (o.tolerance && std::find(kTolerances.begin(), kTolerances.end(), *o.tolerance) == kTolerances.end()) {
    auto& d = diags.error("C0012", "unknown tolerance class `" + *o.tolerance + "`: the classes are exact, tight, default and loose");
    if (auto near = closest_choice(*o.tolerance, kTolerances); !near.empty()) d.note("did you mean `" + near + "`?");
  }
}

}  // namespace

Status check_determinism_names(const CompileOptions& options) {
  DiagnosticSink diags;
  check_names(options, diags);
  if (diags.has_errors()) return api::diagnostics_of(diags, SourceMap{});
  return Done{};
}

Program::Program(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

Result<Program> Program::compile(const Module& module, const CompileOptions& o) {
  const Module::Impl& m = module.impl();
  DiagnosticSink diags;
  auto fail = [&] { return Result<Program>(api::diagnostics_of(diags, m.sources)); };
  check_names(o, diags);
  if (diags.has_errors()) return fail();
  auto impl = std::make_shared<Program::Impl>(Program::Impl{module, m.program, o.tier.value_or(""), o.tolerance.value_or("")});
  block::Determinism& det = impl->program.determinism;
  if (m.declares_determinism) {
    const char* what = m.kind == SourceKind::workflow ? "workflow" : "module";
    if (o.tier && *o.tier != det.tier) {
      diags.warning("C0016", "--tier " + *o.tier + " overrides the " + what + "'s declared tier " + det.tier);
      det.tier = *o.tier;
    }
    if (o.tolerance && *o.tolerance != det.tolerance) {
      diags.warning("C0016", "--tolerance " + *o.tolerance + " overrides the " + what + "'s declared tolerance " + det.tolerance);
      det.tolerance = *o.tolerance;
    }
  } else {
    std::string tier = o.tier ? *o.tier : o.fallback_tier.value_or("");
    if (tier.empty()) {
      diags.error("C0010", "this .keg file is a bare graph (no blockir section) and declares no determinism tier: pass --tier debug|prod|fast")
          .note("rung never picks a tier for you; `debug` is bit-exact, `prod` deterministic within a tolerance class")
          .note("a .keg that `rung build` writes carries its program, declared tier included");
      return fail();
    }
    // debug is bit-exact by definition; prod and fast name their class, never a silent one.
    if (!o.tolerance && tier != "debug" && o.tier) {
      diags.error("C0022", "this .keg file is a bare graph and declares no tolerance class: tier " + tier +
                               " needs one, pass --tolerance exact|tight|default|loose")
          .note("rung never picks a class for you; tier debug is bit-exact and needs none");
      return fail();
    }
    det.tier = tier;
    det.tolerance = o.tolerance.value_or("exact");
  }
  impl->fingerprint = block::program_fingerprint(impl->program).hex();
  impl->graph_fingerprint = impl->program.graph.fingerprint().hex();
  impl->blockir = impl->program.hash().hex();
  return Result<Program>(Program(std::move(impl)), api::diagnostics_of(diags, m.sources));
}

const std::string& Program::module_name() const { return impl_->program.module; }
const std::string& Program::tier() const { return impl_->program.determinism.tier; }
const std::string& Program::tolerance() const { return impl_->program.determinism.tolerance; }
std::string Program::fingerprint() const { return impl_->fingerprint; }
std::string Program::graph_fingerprint() const { return impl_->graph_fingerprint; }
std::string Program::blockir_hash() const { return impl_->blockir; }
std::vector<EntryInfo> Program::entries() const { return api::entries_of(impl_->program, true); }
std::vector<EntryInfo> Program::functions() const { return api::entries_of(impl_->program, false); }
const Module& Program::module() const { return impl_->module; }

Result<EntryInfo> Program::entry(std::string_view name) const {
  const block::Program& p = impl_->program;
  std::vector<std::string> exported;
  for (const auto& f : p.functions)
    if (f.exported) exported.push_back(f.name);
  std::sort(exported.begin(), exported.end());
  std::string list;
  for (const auto& n : exported) list += (list.empty() ? "" : ", ") + n;
  if (list.empty()) list = "none";
  DiagnosticSink diags;
  std::string entry(name);
  if (entry.empty()) {
    if (exported.size() != 1) {
      diags.error("C0013", "choose an entry point with --entry NAME").note("exported: " + list);
      return api::diagnostics_of(diags, impl_->module.impl().sources);
    }
    entry = exported[0];
  }
  const block::Function* fn = p.find(entry);
  if (!fn) {
    auto& d = diags.error("X0004", "no function `" + entry + "` in `" + p.module + "`");
    if (auto near = closest_choice(entry, exported); !near.empty()) d.note("did you mean `" + near + "`?");
    d.note("exported: " + list);
    return api::diagnostics_of(diags, impl_->module.impl().sources);
  }
  if (!fn->exported) {  // a helper is no entry point: only what `export` declares is run
    diags.error("C0021", "`" + entry + "` is not exported, so it is not an entry point of `" + p.module + "`")
        .note("exported: " + list)
        .note("to run it, declare it `export fn " + entry + "`");
    return api::diagnostics_of(diags, impl_->module.impl().sources);
  }
  for (auto& e : api::entries_of(p, true))
    if (e.name == entry) return e;
  return api::fail<EntryInfo>("X0004", "no function `" + entry + "`");
}

Result<std::vector<std::uint8_t>> Program::serialize() const {
  DiagnosticSink diags;
  auto bytes = block::write_program_keg(impl_->program, api::provenance_sections(impl_->module.impl().provenance), diags);
  if (!bytes) return api::diagnostics_of(diags, SourceMap{});
  return std::move(*bytes);
}

}  // namespace rung
