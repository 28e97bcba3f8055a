// Calls: the prelude (every registry op is a function; named arguments are attributes),
// user functions (pure ones inlined, with their symbolic dims unified against the
// arguments), the io built-ins' effect checks, and value_and_grad through autodiff.
#include "autodiff/autodiff.h"
#include "frontend/lowerer.h"
#include "ops/registry.h"

namespace rung::frontend {

bool Lowerer::need_effect(const std::string& effect, Span at, const std::string& why) {
  if (current_ && current_->effects.count(effect)) return true;
  auto& d = d_.error("E2201", why + ": the `" + effect + "` effect is not declared");
  d.primary(at, "needs !" + effect);
  if (current_) {
    d.secondary(span(current_->item.name()), "`" + current_->name + "` declares " +
                                                  (current_->effects.empty() ? std::string("no effects")
                                                                             : "only !{" + [&] {
                                                                                 std::string s;
                                                                                 for (const auto& e : current_->effects) s += (s.empty() ? "" : ", ") + e;
                                                                                 return s;
                                                                               }() + "}"));
    d.note("declare it after the signature: fn " + current_->name + "(...) -> ... !" + effect);
  }
  return false;
}

bool Lowerer::unify(const Ty& declared, const Ty& actual, DimMap& m, Span at, const std::string& what,
                    std::map<std::string, Span>& first_seen) {
  auto mismatch = [&]() {
    d_.error("E2104", what + " expects " + substitute(declared, m).to_string() + ", got " + actual.to_string())
        .primary(at, "this is " + actual.to_string())
        .secondary(unify_param_span_, "parameter declared here");
    return false;
  };
  if (declared.kind != actual.kind) return mismatch();
  if (declared.kind == TyKind::tensor) {
    const TensorType &dt = declared.tensor, &at_t = actual.tensor;
    if (dt.dtype != at_t.dtype || dt.rank() != at_t.rank()) return mismatch();
    if (dt.space != at_t.space) {
      std::string w(memspace_name(dt.space)), g(memspace_name(at_t.space));
      d_.error("E2512", what + " needs " + w + " memory, but the value is in " + g + " memory")
          .primary(at, "in " + g + " memory")
          .secondary(unify_param_span_, "parameter declared " + w)
          .note("crossing memory spaces is explicit: `let y = to_" + w + "(x);`");
      return false;
    }
    for (std::size_t i = 0; i < dt.rank(); ++i) {
      const Dim &want = dt.shape[i], &got = at_t.shape[i];
      if (want.is_static()) {
        if (!(want == got)) return mismatch();
        continue;
      }
      auto it = m.find(want.name());
      if (it == m.end()) {
        m.emplace(want.name(), got);
        first_seen[want.name()] = at;
        continue;
      }
      if (!(it->second == got)) {
        d_.error("E2105", "dimension `" + want.name() + "` is " + it->second.to_string() + " in one argument and " +
                              got.to_string() + " in another")
            .primary(at, "here " + want.name() + " = " + got.to_string() + " (" + actual.to_string() + ")")
            .secondary(first_seen[want.name()], "here " + want.name() + " = " + it->second.to_string())
            .note(what + " is declared with " + declared.to_string());
        return false;
      }
    }
    return true;
  }
  if (declared.kind == TyKind::structure && declared.name != actual.name) return mismatch();
  if (declared.elems.size() != actual.elems.size()) return mismatch();
  for (std::size_t i = 0; i < declared.elems.size(); ++i)
    if (!unify(declared.elems[i], actual.elems[i], m, at, what, first_seen)) return false;
  return true;
}

bool Lowerer::ensure_lowered(FnInfo& f, Span at) {
  if (f.is_template) return f.signature_ok;
  if (f.state == 2) return f.region.has_value();
  if (f.state == 1) {
    d_.error("E2402", "`" + f.name + "` calls itself; recursion is not supported").primary(at, "recursive call")
        .note("pure functions are inlined where they are called; write the repetition as a `for` loop");
    return false;
  }
  // Save the caller's state, lower f, restore.
  FnInfo* cur = current_;
  block::Function* bf = block_fn_;
  auto scopes = std::move(scopes_);
  auto rp = std::move(region_params_);
  auto rps = std::move(region_param_slots_);
  auto loans = std::move(loans_);
  int depth = inline_depth_;
  region_params_.clear();
  region_param_slots_.clear();
  loans_.clear();
  inline_depth_ = 0;  // the callee's own body is checked in full
  auto env = std::exchange(dim_env_, {});
  Module* prev = enter(f.mod);
  f.state = 1;
  lower_pure_function(f);
  f.state = 2;
  enter(prev);
  dim_env_ = std::move(env);
  current_ = cur, block_fn_ = bf, scopes_ = std::move(scopes), region_params_ = std::move(rp), region_param_slots_ = std::move(rps);
  loans_ = std::move(loans), inline_depth_ = depth;
  return f.region.has_value();
}

Value Lowerer::inline_body(FnInfo& f, const std::vector<Value>& args, Span at) {
  auto scopes = std::move(scopes_);
  auto loans = std::move(loans_);
  FnInfo* caller = current_;
  Module* prev = enter(f.mod);
  current_ = &f;
  scopes_.assign(1, {});
  loans_.clear();
  for (std::size_t i = 0; i < args.size(); ++i) {
    bind(f.param_names[i], Binding{.ty = args[i].ty, .refs = args[i].refs, .span = f.param_spans[i]});
    lookup(f.param_names[i])->ref = f.param_refs[i];
  }
  // A template is checked here, per call; other bodies were checked when lowered alone.
  int depth = f.is_template ? 0 : 1;
  inline_depth_ += depth;
  std::size_t before = d_.all().size();
  Value v = block_value(f.item.body(), f.is_template);
  inline_depth_ -= depth;
  current_ = caller;
  enter(prev);
  loans_ = std::move(loans);
  for (std::size_t i = before; i < d_.all().size(); ++i) const_cast<Diagnostic&>(d_.all()[i]).secondary(at, "while inlining this call");
  scopes_ = std::move(scopes);
  v.span = at;
  return v;
}

Value Lowerer::call_user(FnInfo& f, std::vector<Value> args, Span at, Span callee_span) {
  if (args.size() != f.params.size()) {
    d_.error("E2006", "`" + f.name + "` takes " + std::to_string(f.params.size()) + " arguments, got " + std::to_string(args.size()))
        .primary(at).secondary(span_in(f.mod, f.item.name()), "declared here");
    return error_value(at);
  }
  if (!ensure_lowered(f, callee_span)) return error_value(at);
  DimMap m;
  std::map<std::string, Span> first_seen;
  bool ok = true;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i].weak && f.params[i].is_tensor()) args[i] = materialize(args[i], f.params[i].tensor.dtype);
    if (!args[i].ok()) return error_value(at);
    unify_param_span_ = f.param_spans[i];
    if (!unify(f.params[i], args[i].ty, m, args[i].span, "argument `" + f.param_names[i] + "` of `" + f.name + "`", first_seen))
      ok = false;
  }
  if (!ok) return error_value(at);
  if (f.is_template && f.state == 1) {
    d_.error("E2402", "`" + f.name + "` calls itself; recursion is not supported").primary(callee_span, "recursive call");
    return error_value(at);
  }
  // Inlining copies bodies: a chain of functions that each call the next twice grows
  // exponentially, so the program as a whole has a budget.
  if (++inlined_calls_ > kInlineBudget) {
    if (inlined_calls_ == kInlineBudget + 1)
      d_.error("E2403", "the program inlines more than " + std::to_string(kInlineBudget) + " calls of pure functions")
          .primary(at, "the call over the budget")
          .note("pure functions are inlined at every call; a chain of functions that each call the next several times grows "
                "exponentially: compute the shared value once and pass it on");
    return error_value(at);
  }
  DimMap saved_env = std::exchange(dim_env_, m);
  if (f.is_template) f.state = 1;
  auto grad = custom_grad_directive(f.item);  // a custom op: a call node, not an inlined body
  Value v = grad ? call_custom_op(f, *grad, args, at) : inline_body(f, args, at);
  if (f.is_template) f.state = 0;
  dim_env_ = std::move(saved_env);
  if (!v.ok()) return error_value(at);
  if (v.weak && f.ret.is_tensor()) v = materialize(v, f.ret.tensor.dtype, f.ret.tensor.space);
  if (!v.ok()) return error_value(at);
  Ty want = substitute(f.ret, m);
  if (!same_type(v.ty, want)) {
    d_.error("E2101", "this call to `" + f.name + "` produces " + v.ty.to_string() + " where " + want.to_string() + " was declared")
        .primary(at).secondary(f.ret_span, "declared " + f.ret.to_string());
    return error_value(at);
  }
  return v;
}

Value Lowerer::value_and_grad(const ast::CallExpr& outer, const ast::CallExpr& inner) {
  Span at = span(outer);
  auto inner_args = inner.arg_list() ? inner.arg_list().positional() : std::vector<ast::Expr>{};
  auto fpath = inner_args.size() == 1 ? ast::cast<ast::PathExpr>(inner_args[0].syntax()) : ast::PathExpr();
  FnInfo* f = fpath && fpath.name_ref() ? find_fn(fpath.name_ref().text()) : nullptr;
  if (!f) {
    d_.error("E2401", "value_and_grad takes one function defined in this module: value_and_grad(loss)(args...)")
        .primary(span(inner));
    return error_value(at);
  }
  if (f->block_mode || !f->signature_ok) {
    if (f->block_mode)
      d_.error("E2401", "value_and_grad needs a pure function; `" + f->name + "` has effects or control flow")
          .primary(span(fpath)).secondary(span_in(f->mod, f->item.name()), "declared here");
    return error_value(at);
  }
  std::vector<Value> args;
  std::size_t loans_before = loans_.size();
  auto outer_args = outer.arg_list().positional();
  for (std::size_t i = 0; i < outer_args.size(); ++i) {
    args.push_back(expr(outer_args[i]));
    if (args.back().ok() && i < f->params.size() &&
        !commit_arg(outer_args[i], args.back(), f->param_refs[i], f->param_spans[i],
                    "argument `" + f->param_names[i] + "` of `" + f->name + "`"))
      args.back() = error_value(args.back().span);
  }
  pop_loans(loans_before);
  for (auto& a : args)
    if (!a.ok()) return error_value(at);
  if (args.empty() || args.size() != f->params.size()) {
    d_.error("E2006", "`" + f->name + "` takes " + std::to_string(f->params.size()) + " arguments, got " + std::to_string(args.size()))
        .primary(at);
    return error_value(at);
  }
  if (!f->ret.is_tensor() || f->ret.tensor.rank() != 0 || !dtype_info(f->ret.tensor.dtype).is_float) {
    d_.error("E2401", "value_and_grad needs a function returning a float scalar (a loss); `" + f->name + "` returns " +
                          f->ret.to_string())
        .primary(span(fpath)).secondary(f->ret_span, "declared here");
    return error_value(at);
  }
  for (const auto& leaf : args[0].ty.leaves())
    if (!dtype_info(leaf.dtype).is_float) {
      d_.error("E2401", "value_and_grad differentiates with respect to the first argument, which must hold float tensors")
          .primary(args[0].span, "this is " + args[0].ty.to_string());
      return error_value(at);
    }
  // Check the call as any other call (types, dims), then build f at these argument types.
  Value checked = call_user(*f, args, at, span(fpath));
  if (!checked.ok()) return error_value(at);
  std::vector<Value> params;
  std::vector<ValueRef> param_refs, arg_refs;
  for (std::size_t i = 0; i < args.size(); ++i) {
    Value p;
    p.ty = args[i].ty;
    for (const auto& leaf : args[i].ty.leaves()) {
      p.refs.push_back(b_.param("p" + std::to_string(param_refs.size()), static_cast<std::int64_t>(param_refs.size()), leaf));
      param_refs.push_back(p.refs.back());
    }
    arg_refs.insert(arg_refs.end(), args[i].refs.begin(), args[i].refs.end());
    params.push_back(std::move(p));
  }
  Value body = inline_body(*f, params, at);
  if (!body.ok()) return error_value(at);
  RegionId loss = b_.region(f->name, param_refs, body.refs);
  std::vector<std::size_t> wrt;
  for (std::size_t i = 0; i < args[0].ty.leaf_count(); ++i) wrt.push_back(i);
  std::size_t before = d_.all().size();
  auto grad = autodiff::differentiate(prog_.graph, loss, wrt, d_);
  if (!grad) {
    for (std::size_t i = before; i < d_.all().size(); ++i) const_cast<Diagnostic&>(d_.all()[i]).primary(at, "differentiating this");
    return error_value(at);
  }
  Value v;
  v.span = at;
  v.ty = Ty::tuple({f->ret, args[0].ty});
  v.refs = b_.call(*grad, arg_refs);
  return v;
}

Value Lowerer::call(const ast::Expr& call_expr) {
  Span at = span(call_expr);
  std::optional<CallSite> site;
  if (auto e = ast::cast<ast::CallExpr>(call_expr.syntax())) {
    if (auto inner = ast::cast<ast::CallExpr>(e.callee().syntax())) {
      auto ip = ast::cast<ast::PathExpr>(inner.callee().syntax());
      if (ip && ip.name_ref() && ip.name_ref().text() == "value_and_grad" && !lookup("value_and_grad")) return value_and_grad(e, inner);
      if (ip && ip.name_ref() && ip.name_ref().text() == "grad" && !lookup("grad") && !find_fn("grad")) {
        Value v = value_and_grad(e, inner);  // grad(f)(args...): the gradient alone
        if (!v.ok()) return v;
        v.ty = v.ty.elems.at(1);
        v.refs.erase(v.refs.begin());  // the loss is one scalar leaf, first
        return v;
      }
    }
    auto callee = ast::cast<ast::PathExpr>(e.callee().syntax());
    if (!callee || !callee.name_ref()) {
      if (e.callee()) d_.error("E2009", "only functions can be called").primary(span(e.callee()));
      return error_value(at);
    }
    std::string name(callee.name_ref().text());
    if (lookup(name)) {
      d_.error("E2009", "`" + name + "` is a variable, not a function").primary(span(callee));
      return error_value(at);
    }
    site = call_site(call_expr, false);
    if (!site) {
      auto& d = d_.error("E2001", "unknown function `" + name + "`").primary(span(callee), "not found");
      if (auto near = closest_name(name); !near.empty()) d.note("did you mean `" + near + "`?");
      return error_value(at);
    }
  } else {
    std::size_t before = d_.error_count();
    site = call_site(call_expr, false);
    if (!site) {
      if (d_.error_count() == before) d_.error("E2090", "method calls are not supported yet").primary(at);
      return error_value(at);
    }
  }
  const std::string& name = site->name;
  Span cs = site->callee;
  auto positional = site->args ? site->args.positional() : std::vector<ast::Expr>{};
  auto named = site->args ? site->args.named() : std::vector<ast::NamedArg>{};
  if (name == "print" || name == "read_csv") {
    if (need_effect("io", cs, "`" + name + "` does input/output"))
      d_.error("E2090", "`" + name + "` is a statement: " +
                            std::string(name == "print" ? "write `print(...);`" : "write `let x: f32[R, C] = read_csv(\"file\");`"))
          .primary(at);
    return error_value(at);
  }
  if (name == "copy") {  // an owned copy of a value (a read, not a move)
    if (positional.size() != 1 || !named.empty()) {
      d_.error("E2006", "copy takes one value: copy(x)").primary(at);
      return error_value(at);
    }
    Value v = expr(positional[0]);
    v.borrow = RefKind::owned;
    v.span = at;
    return v;
  }
  if (is_transfer(name)) {
    d_.error("E2513", "a transfer between memory spaces is a statement of its own: `let y = " + name + "(x);`")
        .primary(at)
        .note("it needs a function lowered to BlockIR; the value then lives in the new space");
    return error_value(at);
  }
  if (site->kind == CallSite::Kind::builtin && is_constructor(name)) return constructor(*site, positional, named);
  if (name == "value_and_grad") {
    d_.error("E2401", "value_and_grad(f) makes a function: call it, value_and_grad(f)(args...)").primary(at);
    return error_value(at);
  }
  if (site->kind == CallSite::Kind::user) {
    FnInfo* f = site->fn;
    if (!named.empty()) {
      d_.error("E2006", "user functions take positional arguments").primary(span(named[0]));
      return error_value(at);
    }
    if (f->block_mode) {
      bool ok = true;
      for (const auto& eff : f->effects) ok = need_effect(eff, cs, "`" + name + "` has the effect !" + eff) && ok;
      if (ok)
        d_.error("E2090", "`" + name + "` has effects or control flow, so it runs as a statement: `let x = " + name + "(...);`")
            .primary(at).secondary(span_in(f->mod, f->item.name()), "declared here");
      return error_value(at);
    }
    if (positional.size() != f->params.size()) {
      d_.error("E2006", "`" + f->name + "` takes " + std::to_string(f->params.size()) + " arguments, got " +
                            std::to_string(positional.size()))
          .primary(at).secondary(span_in(f->mod, f->item.name()), "declared here");
      return error_value(at);
    }
    std::vector<Value> args;
    std::size_t loans_before = loans_.size();
    for (std::size_t i = 0; i < positional.size(); ++i) {
      args.push_back(expr(positional[i]));
      if (args.back().ok() && i < f->params.size() &&
          !commit_arg(positional[i], args.back(), f->param_refs[i], f->param_spans[i],
                      "argument `" + f->param_names[i] + "` of `" + f->name + "`"))
        args.back() = error_value(args.back().span);
    }
    pop_loans(loans_before);
    for (auto& a : args)
      if (!a.ok()) return error_value(at);
    return call_user(*f, std::move(args), at, cs);
  }
  const ops::OpDef* op = site->op;
  if (!op) {
    d_.error("E2001", "unknown function `" + name + "`").primary(cs, "not found");
    return error_value(at);
  }
  std::size_t min = 0, max = 0;
  for (const auto& o : op->operands) {
    if (o.arity == ops::Arity::one) ++min, ++max;
    else if (o.arity == ops::Arity::optional) ++max;
    else ++min, max = 1u << 20;
  }
  if (positional.size() < min || positional.size() > max) {
    std::string sig;
    for (const auto& o : op->operands) sig += (sig.empty() ? "" : ", ") + o.name + (o.arity == ops::Arity::variadic ? "..." : "");
    d_.error("E2006", "`" + name + "` takes " + (min == max ? std::to_string(min) : "at least " + std::to_string(min)) +
                          " tensor arguments, got " + std::to_string(positional.size()))
        .primary(at).note(name + "(" + sig + ")");
    return error_value(at);
  }
  std::vector<Value> args;
  for (const ast::Expr& a : positional) args.push_back(expr(a));
  auto attrs = attrs_from_args(*op, named, src_, d_);
  if (!attrs) return error_value(at);
  if (!dim_env_.empty())  // in a generic function: its dims in shape attributes (`iota(shape: [N])`) take their extents
    for (auto& [k, v] : *attrs)
      if (v.is<Shape>()) {
        Shape sh = v.as<Shape>();
        for (auto& d : sh)
          if (!d.is_static())
            if (auto it = dim_env_.find(d.name()); it != dim_env_.end()) d = it->second;
        v = AttrValue(sh);
      }
  for (auto& a : args)
    if (!a.ok()) return error_value(at);
  return apply_op(*op, std::move(args), *attrs, at, cs);
}

}  // namespace rung::frontend
