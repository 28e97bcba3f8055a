// Items: struct declarations, function signatures (types, effects) and the lowering of
// whole functions, pure ones to GraphIR regions and the others to BlockIR functions.
#include <functional>

#include "frontend/lowerer.h"
#include "ir/graph/dtype.h"
#include "syntax/literal.h"

namespace rung::frontend {

namespace {

// The names of a value's tensor leaves, following its structure: p.w1, t.0, p.inner.x.
std::vector<std::string> leaf_names(const Ty& t, const std::string& name) {
  std::vector<std::string> names;
  std::function<void(const Ty&, const std::string&)> walk = [&](const Ty& ty, const std::string& prefix) {
    if (ty.kind == TyKind::tensor) names.push_back(prefix);
    for (std::size_t i = 0; i < ty.elems.size(); ++i)
      walk(ty.elems[i], prefix + "." + (ty.kind == TyKind::structure ? ty.field_names[i] : std::to_string(i)));
  };
  walk(t, name);
  return names;
}

}  // namespace

using syntax::SyntaxKind;

void Lowerer::declare_items(Module& m) {
  Module* prev = enter(&m);
  std::map<std::string, Span> seen;
  auto declare = [&](const ast::Name& n) -> bool {
    if (!n) return false;
    std::string name(n.text());
    if (auto it = seen.find(name); it != seen.end()) {
      d_.error("E2004", "`" + name + "` is defined twice").primary(span(n), "defined again here").secondary(it->second, "first defined here");
      return false;
    }
    seen[name] = span(n);
    return true;
  };
  auto generics = [&](const ast::GenericParams& gp) {
    std::vector<std::string> out;
    if (!gp) return out;
    for (const ast::GenericParam& g : gp.params())
      if (g.name()) {
        std::string n(g.name().text());
        if (std::find(out.begin(), out.end(), n) != out.end())
          d_.error("E2004", "dimension `" + n + "` is listed twice").primary(span(g));
        out.push_back(n);
      }
    return out;
  };
  for (const ast::Item& item : m.file.items()) {
    if (auto s = ast::cast<ast::StructItem>(item.syntax())) {
      if (!declare(s.name())) continue;
      std::string key = m.prefix + std::string(s.name().text());
      structs_[key] = StructInfo{s, Ty::error(), &m, generics(s.generic_params()), {}};
      m.structs[std::string(s.name().text())] = key;
      struct_order_.push_back(key);
    } else if (auto f = ast::cast<ast::FnItem>(item.syntax())) {
      if (!declare(f.name())) continue;
      FnInfo info;
      info.item = f;
      info.mod = &m;
      info.name = m.prefix + std::string(f.name().text());
      info.generics = generics(f.generic_params());
      m.fns[std::string(f.name().text())] = info.name;
      fns_[info.name] = info;
      fn_order_.push_back(info.name);
    }
  }
  enter(prev);
}

void Lowerer::collect_items() {
  // Struct fields, in declaration order (a struct may use one declared before it), the
  // structs of imported modules first.
  for (const std::string& key : struct_order_) {
    StructInfo& info = structs_.find(key)->second;
    Module* prev = enter(info.mod);
    const ast::StructItem& s = info.item;
    dim_scope_ = s.generic_params() ? &info.generics : nullptr;
    std::vector<std::string> names;
    std::vector<Ty> types;
    std::map<std::string, Span> fields_seen;
    if (auto fl = s.field_list())
      for (const ast::Field& f : fl.fields()) {
        if (!f.name()) continue;
        std::string fname(f.name().text());
        if (auto prev_field = fields_seen.find(fname); prev_field != fields_seen.end()) {
          d_.error("E2004", "field `" + fname + "` is declared twice").primary(span(f.name())).secondary(prev_field->second, "first declared here");
          continue;
        }
        fields_seen[fname] = span(f.name());
        Ty t = f.type() ? resolve_type(f.type()) : Ty::error();
        if (!t.has_error() && t.kind != TyKind::tensor && t.kind != TyKind::structure) {
          d_.error("E2002", "struct fields are tensors or structs").primary(span(f.type()), "a " + t.to_string());
          t = Ty::error();
        }
        names.push_back(fname);
        types.push_back(t);
        info.field_spans.push_back(span(f));
      }
    dim_scope_ = nullptr;
    info.ty = Ty::structure(std::string(s.name().text()), names, types);
    enter(prev);
  }
}

Ty Lowerer::resolve_type(const ast::Type& t) {
  if (!t) return Ty::error();
  if (auto r = ast::cast<ast::RefType>(t.syntax())) return resolve_type(r.pointee());  // borrows: not tracked yet
  if (auto p = ast::cast<ast::ParenType>(t.syntax())) return resolve_type(p.inner());
  if (auto tt = ast::cast<ast::TupleType>(t.syntax())) {
    std::vector<Ty> elems;
    for (const ast::Type& e : tt.elements()) elems.push_back(resolve_type(e));
    return elems.empty() ? Ty::unit() : Ty::tuple(std::move(elems));
  }
  auto n = ast::cast<ast::NamedType>(t.syntax());
  if (!n || !n.path()) return Ty::error();
  std::string name = n.path().text();
  // The dims in brackets: a tensor's shape, or a generic struct's dimension arguments.
  bool ok = true;
  Shape dims;
  if (auto sh = n.shape())
    for (const ast::Expr& dim : sh.dims()) {
      if (auto lit = ast::cast<ast::Literal>(dim.syntax()); lit && lit.token().kind() == SyntaxKind::INT_NUMBER) {
        if (auto v = syntax::int_value(lit.token().text())) {
          dims.push_back(Dim::fixed(*v));
          continue;
        }
      }
      if (auto p = ast::cast<ast::PathExpr>(dim.syntax()); p && p.name_ref()) {
        std::string sym(p.name_ref().text());
        if (dim_scope_ && std::find(dim_scope_->begin(), dim_scope_->end(), sym) == dim_scope_->end()) {
          std::string listed;
          for (const auto& g : *dim_scope_) listed += (listed.empty() ? "" : ", ") + g;
          d_.error("E2111", "unknown dimension `" + sym + "`").primary(span(dim), "not listed")
              .note("the generic dimensions here are [" + listed + "]; add `" + sym + "` to the list");
          ok = false;
          continue;
        }
        dims.push_back(Dim::symbol(sym));
        continue;
      }
      d_.error("E2109", "a dimension is an integer or a symbol such as `B`").primary(span(dim), "not a dimension");
      ok = false;
    }
  auto dt = dtype_from_name(name);
  if (!dt) {
    if (StructInfo* st = find_struct(name)) {
      if (st->ty.kind == TyKind::error) {
        d_.error("E2002", "struct `" + name + "` is used before its declaration is complete")
            .primary(span(n), "here").note("declare a struct before the structs and functions that use it");
        return Ty::error();
      }
      if (dims.size() != st->generics.size() || (n.shape() && st->generics.empty())) {
        if (ok)
          d_.error("E2002", "struct `" + name + "` takes " + std::to_string(st->generics.size()) + " dimension arguments, got " +
                                std::to_string(n.shape() ? n.shape().dims().size() : 0))
              .primary(span(n)).secondary(span_in(st->mod, st->item.name()), "declared here");
        return Ty::error();
      }
      if (n.mem_space()) {
        d_.error("E2002", "a struct has no memory space of its own: its fields declare theirs").primary(span(n.mem_space()));
        return Ty::error();
      }
      if (!ok) return Ty::error();
      DimMap m;
      for (std::size_t i = 0; i < dims.size(); ++i) m.emplace(st->generics[i], dims[i]);
      return substitute(st->ty, m);
    }
    if (name.find('.') != std::string::npos) {
      d_.error("E2002", "unknown type `" + name + "`").primary(span(n.path()), "no such struct in that module");
      return Ty::error();
    }
    auto& e = d_.error("E2002", "unknown type `" + name + "`").primary(span(n.path()), "not a type");
    if (n.shape()) e.note("element types: f16, bf16, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64, bool");
    return Ty::error();
  }
  TensorType tt;
  tt.dtype = *dt;
  tt.shape = dims;
  if (auto ms = n.mem_space(); ms && ms.name_ref()) {
    auto space = memspace_from_name(ms.name_ref().text());
    if (!space) {
      d_.error("E2002", "unknown memory space `" + std::string(ms.name_ref().text()) + "`")
          .primary(span(ms.name_ref())).note("memory spaces: host, device, pinned, unified");
      ok = false;
    } else {
      tt.space = *space;
    }
  }
  return ok ? Ty::of(tt) : Ty::error();
}

void Lowerer::resolve_signature(FnInfo& f) {
  Module* caller_mod = enter(f.mod);
  dim_scope_ = f.item.generic_params() ? &f.generics : nullptr;
  std::map<std::string, Span> seen;
  if (auto pl = f.item.param_list())
    for (const ast::Param& p : pl.params()) {
      auto ip = ast::cast<ast::IdentPat>(p.pattern().syntax());
      if (!ip || !ip.name()) {
        if (p.pattern()) d_.error("E2090", "parameters are plain names for now").primary(span(p.pattern()));
        f.signature_ok = false;
        continue;
      }
      std::string pname(ip.name().text());
      if (auto prev = seen.find(pname); prev != seen.end()) {
        d_.error("E2004", "parameter `" + pname + "` is declared twice").primary(span(ip.name())).secondary(prev->second, "first here");
        f.signature_ok = false;
      }
      seen[pname] = span(ip.name());
      Ty t = resolve_type(p.type());
      if (!t.has_error() && t.kind != TyKind::tensor && t.kind != TyKind::structure && t.kind != TyKind::tuple) {
        d_.error("E2002", "parameters are tensors, structs or tuples").primary(span(p.type()));
        t = Ty::error();
      }
      if (t.has_error()) f.signature_ok = false;
      RefKind rk = RefKind::owned;
      if (auto rt = ast::cast<ast::RefType>(p.type().syntax())) rk = rt.mut_token() ? RefKind::mut : RefKind::shared;
      f.param_refs.push_back(rk);
      f.param_names.push_back(pname);
      f.params.push_back(t);
      f.param_spans.push_back(span(p));
    }
  if (auto rt = f.item.ret_type()) {
    if (ast::cast<ast::RefType>(rt.type().syntax())) {
      d_.error("E2506", "functions return owned values, not borrows").primary(span(rt.type()), "a borrow")
          .note("return the value itself (or an owned copy: `copy(x)`)");
      f.signature_ok = false;
    }
    f.ret = resolve_type(rt.type());
    f.ret_span = span(rt.type());
    if (f.ret.has_error()) f.signature_ok = false;
  }
  if (auto eff = f.item.effects())
    for (const ast::Effect& e : eff.effects()) {
      if (!e.name_ref()) continue;
      std::string name(e.name_ref().text());
      if (name != "io" && name != "rand" && name != "alloc") {
        d_.error("E2202", "unknown effect `" + name + "`").primary(span(e), "not an effect").note("effects: io, rand, alloc");
        continue;
      }
      f.effects.insert(name);
    }
  f.block_mode = needs_block(f.item);
  f.is_template = !f.block_mode && uses_dims_as_values(f);
  if (f.block_mode && uses_dims_as_values(f)) {
    d_.error("E2090", "a function lowered to BlockIR cannot use its dimensions as values yet").primary(span(f.item.name()))
        .note("move the computation that uses the dimension into a pure function");
    f.signature_ok = false;
  }
  dim_scope_ = nullptr;
  enter(caller_mod);
}

bool Lowerer::uses_dims_as_values(const FnInfo& f) const {
  if (f.generics.empty() || !f.item.body()) return false;
  syntax::Preorder walk(f.item.body().syntax());
  syntax::Preorder::Step step;
  while (walk.next(step)) {
    if (!step.enter || !step.element.is_node()) continue;
    auto p = ast::cast<ast::PathExpr>(step.element.node());
    if (p && p.syntax().parent() && p.syntax().parent().kind() == SyntaxKind::SHAPE) continue;  // a dim in a type
    if (p && p.name_ref() && std::find(f.generics.begin(), f.generics.end(), p.name_ref().text()) != f.generics.end()) return true;
  }
  return false;
}

bool Lowerer::needs_block(const ast::FnItem& fn) {
  if (auto eff = fn.effects(); eff && !eff.effects().empty()) return true;
  auto body = fn.body();
  if (!body) return false;
  syntax::Preorder walk(body.syntax());
  syntax::Preorder::Step step;
  while (walk.next(step)) {
    if (!step.enter || !step.element.is_node()) continue;
    switch (step.element.kind()) {
      case SyntaxKind::FOR_EXPR: case SyntaxKind::WHILE_EXPR: case SyntaxKind::ASSIGN_EXPR: case SyntaxKind::IF_EXPR:
      case SyntaxKind::RETURN_EXPR: case SyntaxKind::BREAK_EXPR: case SyntaxKind::CONTINUE_EXPR:
        return true;
      case SyntaxKind::CALL_EXPR: {  // a transfer between memory spaces is a BlockIR statement
        auto c = ast::cast<ast::CallExpr>(step.element.node());
        auto p = c ? ast::cast<ast::PathExpr>(c.callee().syntax()) : ast::PathExpr();
        if (p && p.name_ref() && is_transfer(p.name_ref().text())) return true;
        break;
      }
      default: break;
    }
  }
  return false;
}

void Lowerer::lower_pure_function(FnInfo& f) {
  current_ = &f;
  block_fn_ = nullptr;
  scopes_.assign(1, {});
  loans_.clear();
  std::vector<ValueRef> params;
  for (std::size_t i = 0; i < f.params.size(); ++i) {
    Binding bnd;
    bnd.ty = f.params[i];
    bnd.span = f.param_spans[i];
    bnd.ref = f.param_refs[i];
    auto leaves = f.params[i].leaves();
    auto names = leaf_names(f.params[i], f.param_names[i]);  // by field: `p.w1`, as in block functions
    for (std::size_t k = 0; k < leaves.size(); ++k) {
      bnd.refs.push_back(b_.param(names[k], static_cast<std::int64_t>(params.size()), leaves[k]));
      params.push_back(bnd.refs.back());
    }
    bind(f.param_names[i], std::move(bnd));
  }
  if (!f.item.body()) return;
  std::size_t before = d_.error_count();
  Value v = block_value(f.item.body(), true);
  if (d_.error_count() > before || !v.ok()) return;
  if (v.weak && f.ret.is_tensor()) v = materialize(v, f.ret.tensor.dtype, f.ret.tensor.space);
  if (!v.ok()) return;  // a literal that does not fit the return type: reported
  if (!same_type(v.ty, f.ret)) {
    auto tail = f.item.body().tail();
    if (space_mismatch(f.ret, v.ty, tail ? span(tail) : span(f.item.body()), f.ret_span.valid() ? f.ret_span : span(f.item.name()),
                       "the result of `" + f.name + "`"))
      return;
    d_.error("E2101", "`" + f.name + "` returns " + v.ty.to_string() + " but declares " + f.ret.to_string())
        .primary(tail ? span(tail) : span(f.item.body()), "this is " + v.ty.to_string())
        .secondary(f.ret_span.valid() ? f.ret_span : span(f.item.name()), "declared " + f.ret.to_string());
    return;
  }
  f.region = b_.region(f.name, params, v.refs);
}

void Lowerer::wrap_pure_function(FnInfo& f) {
  block::Function fn;
  fn.name = f.name;
  fn.exported = f.item.export_token() && f.mod->prefix.empty();  // entry points of the main file only
  fn.tier = f.tier;
  const Region& r = prog_.graph.region(*f.region);
  for (NodeId p : r.params) {
    const Node& n = prog_.graph.node(p);
    fn.params.push_back(static_cast<block::SlotId>(fn.slots.size()));
    fn.slots.push_back({n.attrs.count("name") ? n.attrs.at("name").as<std::string>() : "arg", n.outputs[0], false});
  }
  // Results are named as a block function's: `result`, `result.0` (tuples), `result.w1` (structs).
  auto names = leaf_names(f.ret, "result");
  for (std::size_t i = 0; i < r.results.size(); ++i) {
    fn.results.push_back(static_cast<block::SlotId>(fn.slots.size()));
    fn.slots.push_back({i < names.size() && names.size() == r.results.size() ? names[i] : "result." + std::to_string(i),
                        prog_.graph.node(r.results[i].node).outputs[r.results[i].output], false});
  }
  block::Stmt c{.kind = block::StmtKind::compute, .args = fn.params, .results = fn.results, .region = r.hash};
  c.span = span(f.item);
  fn.body.push_back(c);
  fn.body.push_back(block::Stmt{.kind = block::StmtKind::ret, .args = fn.results});
  prog_.functions.push_back(std::move(fn));
}

void Lowerer::lower_block_function(FnInfo& f) {
  current_ = &f;
  block::Function fn;
  block_fn_ = &fn;
  fn.name = f.name;
  fn.exported = f.item.export_token() && f.mod->prefix.empty();  // entry points of the main file only
  fn.tier = f.tier;
  fn.effects = f.effects;
  scopes_.assign(1, {});
  loans_.clear();
  writeback_.clear();
  loop_depth_ = 0;
  for (std::size_t i = 0; i < f.params.size(); ++i) {
    bool mut = f.param_refs[i] == RefKind::mut;
    auto slots = new_slots(f.params[i], f.param_names[i], mut);
    fn.params.insert(fn.params.end(), slots.begin(), slots.end());
    Binding bnd{.ty = f.params[i], .slots = slots, .in_slots = true, .is_mut = mut, .span = f.param_spans[i]};
    bnd.ref = f.param_refs[i];
    bind(f.param_names[i], std::move(bnd));
  }
  fn.results = new_slots(f.ret, "result", true);
  // A `&mut` parameter's final value goes back to the caller as an extra result.
  for (std::size_t i = 0; i < f.params.size(); ++i)
    if (f.param_refs[i] == RefKind::mut) {
      auto outs = new_slots(f.params[i], f.param_names[i] + ".out", true);
      writeback_.emplace_back(lookup(f.param_names[i])->slots, outs);
      fn.results.insert(fn.results.end(), outs.begin(), outs.end());
    }
  if (f.item.body()) block_stmts(f.item.body(), fn.body, true);
  block_fn_ = nullptr;
  prog_.functions.push_back(std::move(fn));
}

std::vector<block::SlotId> Lowerer::new_slots(const Ty& t, const std::string& name, bool is_mut) {
  std::vector<block::SlotId> out;
  auto leaves = t.leaves();
  std::vector<std::string> names = leaf_names(t, name);
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    out.push_back(static_cast<block::SlotId>(block_fn_->slots.size()));
    block_fn_->slots.push_back({names[i], leaves[i], is_mut});
  }
  return out;
}

}  // namespace rung::frontend
