// The walk's driver and small helpers: scopes, slot params, name suggestions.
#include "frontend/lowerer.h"

#include "base/text.h"

#include "frontend/determinism.h"
#include "ir/block/verify.h"
#include "ops/registry.h"

namespace rung::frontend {

std::optional<block::Program> Lowerer::run() {
  std::size_t errors_before = d_.error_count();
  auto det = resolve_determinism(file_, src_, d_);
  prog_.module = "main";
  if (auto m = file_.module_decl(); m && m.path()) prog_.module = m.path().text();
  load_modules();
  Module* main = modules_.front().get();
  mod_ = main;
  if (det)
    for (const auto& m : modules_)
      if (m.get() != main) compose_imported_tiers(m->file, m->src, file_, main->src, *det, d_);
  if (det) prog_.determinism = *det;
  collect_items();
  for (auto& name : fn_order_) resolve_signature(fns_.find(name)->second);
  for (auto& name : fn_order_) {
    FnInfo& f = fns_.find(name)->second;
    enter(f.mod);
    if (det) f.tier = check_function_tiers(f.item, *det, src_, d_);
    if (!f.signature_ok || f.block_mode || f.state != 0 || f.is_template) continue;
    f.state = 1;
    lower_pure_function(f);
    f.state = 2;
  }
  for (auto& name : fn_order_) {
    FnInfo& f = fns_.find(name)->second;
    if (!f.signature_ok) continue;
    enter(f.mod);
    if (f.block_mode) lower_block_function(f);
    else if (f.region) wrap_pure_function(f);
  }
  enter(main);
  for (auto& name : fn_order_)  // pure functions are the graph's entry points (what a .keg holds)
    if (const FnInfo& f = fns_.find(name)->second; f.region) prog_.graph.set_export(f.name, *f.region);
  if (d_.error_count() > errors_before || !det) return std::nullopt;
  DiagnosticSink verify_diags;
  if (!block::verify(prog_, verify_diags)) {
    // A lowering bug, not a user error: say so and show what the verifier found.
    for (const auto& v : verify_diags.all()) {
      auto& e = d_.error("E2999", "internal error: the lowered program is invalid: " + v.message);
      e.note("this is a bug in rung's front end (" + v.code + ")");
    }
    return std::nullopt;
  }
  return std::move(prog_);
}

Binding* Lowerer::lookup(std::string_view name) {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
    if (auto f = it->find(name); f != it->end()) return &f->second;
  return nullptr;
}

ValueRef Lowerer::slot_param(block::SlotId s) {
  if (auto it = region_params_.find(s); it != region_params_.end()) return it->second;
  const block::Slot& slot = block_fn_->slots[s];
  ValueRef r = b_.param(slot.name, static_cast<std::int64_t>(region_param_slots_.size()), slot.type);
  region_params_[s] = r;
  region_param_slots_.push_back(s);
  return r;
}

FnInfo* Lowerer::find_fn(std::string_view name) {
  auto local = mod_->fns.find(name);
  if (local == mod_->fns.end()) return nullptr;
  auto it = fns_.find(local->second);
  return it == fns_.end() ? nullptr : &it->second;
}

Lowerer::Nest::Nest(Lowerer& l, Span at) : l_(l), ok_(++l.nesting_ <= kMaxNesting) {
  if (l_.nesting_ == kMaxNesting + 1)
    l_.d_.error("E2404", "this nests more than " + std::to_string(kMaxNesting) + " levels deep")
        .primary(at)
        .note("every expression inside another, `.field` or `[i]` after another, block, `else if` arm and call of a "
              "function (pure functions are inlined) counts as a level");
}

std::string Lowerer::closest_name(std::string_view name) const {
  std::string best;
  std::size_t best_d = name.size() <= 3 ? 2 : 3;
  auto consider = [&](std::string_view cand) {
    std::size_t dist = edit_distance(name, cand, best_d);
    if (dist < best_d) best_d = dist, best = std::string(cand);
  };
  for (const auto& sc : scopes_)
    for (const auto& [n, b] : sc) consider(n);
  for (const auto& [n, key] : mod_->fns) consider(n);
  for (const ops::OpDef* op : ops::op_registry().all()) consider(op->name);
  for (const char* builtin : {"print", "read_csv", "value_and_grad", "grad", "copy", "to_host", "to_device", "to_pinned", "to_unified", "zeros", "ones", "full"}) consider(builtin);
  return best;
}

}  // namespace rung::frontend
