// Statements of functions lowered to BlockIR: let/assignment into slots, for/while/if,
// print and read_csv (effect io), calls of other BlockIR functions, return.
#include "frontend/lowerer.h"
#include "ops/registry.h"
#include "syntax/literal.h"

namespace rung::frontend {

using syntax::SyntaxKind;

namespace {
// BlockIR assigns copy one slot each.
void emit_assign(std::vector<block::Stmt>& out, const std::vector<block::SlotId>& from, const std::vector<block::SlotId>& to,
                 Span at) {
  for (std::size_t i = 0; i < from.size() && i < to.size(); ++i)
    out.push_back(block::Stmt{.kind = block::StmtKind::assign, .args = {from[i]}, .results = {to[i]}, .span = at});
}
bool is_scalar(const Ty& t, DType dt) { return t.is_tensor() && t.tensor.rank() == 0 && t.tensor.dtype == dt; }
}  // namespace

Lowerer::Slots Lowerer::compute(const std::function<Value()>& eval, Span at, std::vector<block::Stmt>& out,
                                const std::vector<block::SlotId>* into, const std::string& hint, bool is_mut, const Ty* want) {
  auto saved_params = std::move(region_params_);
  auto saved_slots = std::move(region_param_slots_);
  region_params_.clear();
  region_param_slots_.clear();
  Value v = eval();
  if (v.weak) {
    if (into && !into->empty()) v = materialize(v, block_fn_->slots[(*into)[0]].type.dtype);
    else if (want && want->is_tensor()) v = materialize(v, want->tensor.dtype, want->tensor.space);
    else v = materialize_default(v);
  }
  Slots result;
  if (v.ok() && v.ty.kind != TyKind::string) {
    std::vector<ValueRef> params;
    for (auto s : region_param_slots_) params.push_back(region_params_.at(s));
    std::vector<block::SlotId> slots = into ? *into : new_slots(v.ty, hint.empty() ? "%t" + std::to_string(temp_counter_++) : hint, is_mut);
    if (!v.refs.empty()) {
      RegionId r = b_.region(block_fn_->name + "." + std::to_string(region_counter_++), params, v.refs);
      block::Stmt c{.kind = block::StmtKind::compute, .args = region_param_slots_, .results = slots,
                    .region = prog_.graph.region(r).hash};
      c.span = at;
      out.push_back(std::move(c));
    }
    result = std::make_pair(v.ty, slots);
  } else if (v.ok()) {
    d_.error("E2203", "a string is only an argument of print or read_csv").primary(v.span);
  }
  region_params_ = std::move(saved_params);
  region_param_slots_ = std::move(saved_slots);
  return result;
}

Lowerer::Slots Lowerer::to_slots(const ast::Expr& e, std::vector<block::Stmt>& out, const std::vector<block::SlotId>* into,
                                 bool fresh, const std::string& hint, bool is_mut, const Ty* want) {
  if (!e) return std::nullopt;
  if (auto p = ast::cast<ast::PathExpr>(e.syntax()); p && p.name_ref() && !into && !fresh)
    if (Binding* b = lookup(p.name_ref().text()); b && b->in_slots) {
      if (checking() && place_checked_ == 0 && !check_access(Place{b, std::string(p.name_ref().text()), "", span(e)}, Access::read, span(e)))
        return std::nullopt;
      return std::make_pair(b->ty, b->slots);
    }
  if (e.kind() == SyntaxKind::IF_EXPR) return if_value(ast::cast<ast::IfExpr>(e.syntax()), out, into, nullptr, hint, is_mut);
  if (e.kind() == SyntaxKind::CALL_EXPR || e.kind() == SyntaxKind::METHOD_CALL_EXPR)
    if (auto site = call_site(e, true); site && site->kind == CallSite::Kind::user && site->fn->block_mode) {
      auto r = call_stmt(*site, *site->fn, out);
      if (!r || !into) return r;
      emit_assign(out, r->second, *into, span(e));
      return std::make_pair(r->first, *into);
    }
  return compute([&] { return expr(e); }, span(e), out, into, hint, is_mut, want);
}

void Lowerer::block_stmts(const ast::BlockExpr& body, std::vector<block::Stmt>& out, bool fn_body) {
  Nest nest(*this, span(body));
  if (!nest.ok()) return;
  push_scope();
  for (const ast::Stmt& s : body.statements()) block_stmt(s, out);
  auto tail = body.tail();
  if (!fn_body) {
    if (tail) block_expr_stmt(tail, out);
  } else if (tail && tail.kind() != SyntaxKind::RETURN_EXPR && tail.kind() != SyntaxKind::FOR_EXPR &&
             tail.kind() != SyntaxKind::WHILE_EXPR &&
             (tail.kind() != SyntaxKind::IF_EXPR || current_->ret.kind != TyKind::unit)) {  // an `if` with a value
    std::size_t before = d_.error_count();
    auto pl = place_of(tail);
    if (ast::cast<ast::RefExpr>(tail.syntax()) && checking()) {
      d_.error("E2506", "a function's result is an owned value, not a borrow").primary(span(tail), "a borrow");
      pop_scope();
      return;
    }
    if (pl && checking() && !check_access(*pl, Access::move, span(tail))) {
      pop_scope();
      return;
    }
    if (pl) ++place_checked_;
    auto r = tail.kind() == SyntaxKind::IF_EXPR
                 ? if_value(ast::cast<ast::IfExpr>(tail.syntax()), out, nullptr, &current_->ret, "result", false)
                 : to_slots(tail, out, nullptr, true, "result", false, &current_->ret);
    if (pl) --place_checked_;
    if (r && !same_type(r->first, current_->ret) &&
        !space_mismatch(current_->ret, r->first, span(tail), current_->ret_span.valid() ? current_->ret_span : span(current_->item.name()),
                        "the result of `" + current_->name + "`")) {
      d_.error("E2101", "`" + current_->name + "` returns " + r->first.to_string() + " but declares " + current_->ret.to_string())
          .primary(span(tail), "this is " + r->first.to_string())
          .secondary(current_->ret_span.valid() ? current_->ret_span : span(current_->item.name()), "declared " + current_->ret.to_string());
    } else if (r && d_.error_count() == before) {
      emit_assign(out, r->second, block_fn_->results, span(tail));
      emit_return(out, span(tail));
    }
  } else {
    if (tail) block_expr_stmt(tail, out);
    bool returns = tail && tail.kind() == SyntaxKind::RETURN_EXPR;
    if (!returns && current_->ret.kind != TyKind::unit)
      d_.error("E2101", "`" + current_->name + "` declares " + current_->ret.to_string() + " but its body ends without a value")
          .primary(Span{src_, body.range().end - 1, body.range().end}, "no value here")
          .secondary(current_->ret_span, "declared here");
    else if (!returns)
      emit_return(out, span(body));
  }
  pop_scope();
}

void Lowerer::emit_return(std::vector<block::Stmt>& out, Span at) {
  for (const auto& [from, to] : writeback_) emit_assign(out, from, to, at);
  out.push_back(block::Stmt{.kind = block::StmtKind::ret, .args = block_fn_->results, .span = at});
}

void Lowerer::block_stmt(const ast::Stmt& s, std::vector<block::Stmt>& out) {
  if (auto let = ast::cast<ast::LetStmt>(s.syntax())) return let_stmt(let, out);
  if (auto es = ast::cast<ast::ExprStmt>(s.syntax())) return block_expr_stmt(es.expr(), out);
}

void Lowerer::block_expr_stmt(const ast::Expr& e, std::vector<block::Stmt>& out) {
  if (!e) return;
  switch (e.kind()) {
    case SyntaxKind::ASSIGN_EXPR: return assign(ast::cast<ast::AssignExpr>(e.syntax()), out);
    case SyntaxKind::FOR_EXPR: return for_loop(ast::cast<ast::ForExpr>(e.syntax()), out);
    case SyntaxKind::WHILE_EXPR: return while_loop(ast::cast<ast::WhileExpr>(e.syntax()), out);
    case SyntaxKind::IF_EXPR: return if_stmt(ast::cast<ast::IfExpr>(e.syntax()), out);
    case SyntaxKind::BLOCK_EXPR: return block_stmts(ast::cast<ast::BlockExpr>(e.syntax()), out, false);
    case SyntaxKind::RETURN_EXPR: {
      auto r = ast::cast<ast::ReturnExpr>(e.syntax());
      if (!r.value()) {
        if (current_->ret.kind != TyKind::unit)
          d_.error("E2101", "`return` without a value in a function that declares " + current_->ret.to_string()).primary(span(e));
        emit_return(out, span(e));
        return;
      }
      auto v = r.value().kind() == SyntaxKind::IF_EXPR
                   ? if_value(ast::cast<ast::IfExpr>(r.value().syntax()), out, nullptr, &current_->ret, "result", false)
                   : to_slots(r.value(), out, nullptr, true, "result", false, &current_->ret);
      if (!v) return;
      if (!same_type(v->first, current_->ret)) {
        d_.error("E2101", "`" + current_->name + "` returns " + v->first.to_string() + " but declares " + current_->ret.to_string())
            .primary(span(r.value()), "this is " + v->first.to_string()).secondary(current_->ret_span, "declared here");
        return;
      }
      emit_assign(out, v->second, block_fn_->results, span(e));
      emit_return(out, span(e));
      return;
    }
    case SyntaxKind::BREAK_EXPR:
    case SyntaxKind::CONTINUE_EXPR: return loop_jump(e, out);
    case SyntaxKind::CALL_EXPR:
    case SyntaxKind::METHOD_CALL_EXPR: {
      if (auto site = call_site(e, true); site && site->kind == CallSite::Kind::builtin && site->name == "print")
        return print_stmt(*site, out);
      (void)to_slots(e, out);
      return;
    }
    default: (void)to_slots(e, out); return;
  }
}

void Lowerer::let_stmt(const ast::LetStmt& s, std::vector<block::Stmt>& out) {
  auto init = s.init();
  if (!init) return;
  auto ip = ast::cast<ast::IdentPat>(s.pattern().syntax());
  bool is_mut = ip && ip.mut_token();
  std::string hint = ip && ip.name() ? std::string(ip.name().text()) : s.pattern() ? s.pattern().syntax().text() : "_";
  Slots r;
  std::optional<CallSite> site;
  if (init.kind() == SyntaxKind::CALL_EXPR || init.kind() == SyntaxKind::METHOD_CALL_EXPR) site = call_site(init, true);
  bool builtin = site && site->kind == CallSite::Kind::builtin;
  bool is_csv = builtin && site->name == "read_csv";
  bool borrows = is_borrow_init(init);
  Ty want = s.type() && !is_csv ? resolve_type(s.type()) : Ty::error();  // resolved once: its errors once
  if (is_csv) {
    r = read_csv(*site, s.type(), out);
  } else if (builtin && is_transfer(site->name)) {
    r = transfer(*site, out, hint);
  } else if (borrows) {  // `let r = &p`: r names p's slots (p cannot change while r lives)
    auto ref = ast::cast<ast::RefExpr>(init.syntax());
    ast::Expr target = ref ? ref.operand() : init;
    auto pl = place_of(target);
    bool ok = !pl || check_access(*pl, !ref ? Access::read : ref.mut_token() ? Access::borrow_mut : Access::borrow, span(init));
    if (ok && pl && pl->b->in_slots) {
      r = place_slots(*pl);
    } else if (ok) {
      r = to_slots(target, out, nullptr, true, hint, false);  // a borrow of a temporary
    }
  } else {
    auto pl = place_of(init);
    if (pl && checking() && !check_access(*pl, Access::move, span(init))) {  // `let y = x` moves x
      bind_pattern(s.pattern(), Ty::error(), {}, {}, true, span(s));
      return;
    }
    if (pl) ++place_checked_;  // checked (and moved) as a whole just now
    if (init.kind() == SyntaxKind::IF_EXPR && s.type()) {  // the annotation types the branches' literals
      r = if_value(ast::cast<ast::IfExpr>(init.syntax()), out, nullptr, &want, hint, is_mut);
    } else {
      r = to_slots(init, out, nullptr, true, hint, is_mut, s.type() ? &want : nullptr);
    }
    if (pl) --place_checked_;
  }
  if (!r) {
    bind_pattern(s.pattern(), Ty::error(), {}, {}, true, span(s));
    return;
  }
  if (s.type() && !is_csv) {
    if (!want.has_error() && !same_type(want, r->first) &&
        !space_mismatch(want, r->first, span(init), span(s.type()), "the `let` annotation"))
      d_.error("E2101", "`let` declares " + want.to_string() + " but the value is " + r->first.to_string())
          .primary(span(init), "this is " + r->first.to_string())
          .secondary(span(s.type()), "declared here");
  }
  if (is_mut && !borrows)
    for (auto slot : r->second) block_fn_->slots[slot].is_mutable = true;
  bind_pattern(s.pattern(), r->first, r->second, {}, true, span(s));
  if (borrows && ip && ip.name()) bind_borrow(init, std::string(ip.name().text()));
}

void Lowerer::assign(const ast::AssignExpr& e, std::vector<block::Stmt>& out) {
  auto target = e.target();
  // The target: a variable, or a field path into one (`p.w1`).
  std::vector<std::string> fields;
  ast::Expr root = target;
  while (auto fe = ast::cast<ast::FieldExpr>(root.syntax())) {
    if (!fe.field()) return;
    fields.insert(fields.begin(), std::string(fe.field().text()));
    root = fe.receiver();
  }
  auto p = ast::cast<ast::PathExpr>(root.syntax());
  if (!p || !p.name_ref()) {
    d_.error("E2108", "only variables and their fields can be assigned").primary(span(target));
    return;
  }
  Binding* b = lookup(p.name_ref().text());
  if (!b) {
    (void)expr(root);  // reports the unknown name
    return;
  }
  if (!b->in_slots || !((b->ref == RefKind::owned && b->is_mut) || b->ref == RefKind::mut)) {
    d_.error("E2108", "cannot assign to `" + std::string(p.name_ref().text()) + "`: " +
                          (b->ref == RefKind::shared ? "it is a shared borrow (`&`)" : "it is not declared `let mut`"))
        .primary(span(target), "assignment").secondary(b->span, "declared here");
    return;
  }
  Ty ty = b->ty;
  std::size_t offset = 0;
  for (const auto& f : fields) {
    auto it = ty.kind == TyKind::structure ? std::find(ty.field_names.begin(), ty.field_names.end(), f) : ty.field_names.end();
    if (it == ty.field_names.end()) {
      (void)expr(target);  // reports the bad field
      return;
    }
    std::size_t i = static_cast<std::size_t>(it - ty.field_names.begin());
    for (std::size_t k = 0; k < i; ++k) offset += ty.elems[k].leaf_count();
    Ty next = ty.elems[i];
    ty = next;
  }
  std::vector<block::SlotId> slots(b->slots.begin() + static_cast<std::ptrdiff_t>(offset),
                                   b->slots.begin() + static_cast<std::ptrdiff_t>(offset + ty.leaf_count()));
  const char* opname = nullptr;
  switch (e.op_token().kind()) {
    case SyntaxKind::PLUSEQ: opname = "add"; break;
    case SyntaxKind::MINUSEQ: opname = "sub"; break;
    case SyntaxKind::STAREQ: opname = "mul"; break;
    case SyntaxKind::SLASHEQ: opname = "div"; break;
    case SyntaxKind::ATEQ: opname = "matmul"; break;
    case SyntaxKind::PERCENTEQ: opname = "remainder"; break;
    default: break;
  }
  Ty want = ty;
  std::size_t before = d_.error_count();
  auto r = compute(
      [&]() -> Value {
        Value v = opname ? expr(e.value()) : owned_value(e.value(), "an assigned value");
        if (!opname || !v.ok()) return v;
        const ops::OpDef* op = ops::op_registry().find(opname);
        if (!op) {
          d_.error("E2090", "no op `" + std::string(opname) + "` in this build").primary(span(e.op_token()));
          return error_value(span(e));
        }
        return apply_op(*op, {expr(target), v}, {}, span(e), span(e.op_token()));
      },
      span(e), out, nullptr, "%assign", false, &want);
  if (!r || d_.error_count() > before) return;
  if (auto pl = place_of(target); pl && !check_access(*pl, Access::write, span(target))) return;
  if (!same_type(r->first, want)) {
    d_.error("E2101", "cannot assign " + r->first.to_string() + " to `" + target.syntax().text() + "` of type " + want.to_string())
        .primary(span(e.value()), "this is " + r->first.to_string())
        .secondary(b->span, "declared here");
    return;
  }
  emit_assign(out, r->second, slots, span(e));
}

void Lowerer::for_loop(const ast::ForExpr& e, std::vector<block::Stmt>& out) {
  auto range = ast::cast<ast::RangeExpr>(e.iterable().syntax());
  if (!range || !range.start() || !range.end() || range.op_token().kind() != SyntaxKind::DOT2) {
    if (e.iterable()) d_.error("E2090", "`for` loops run over a range `a..b` for now").primary(span(e.iterable()));
    return;
  }
  auto lo = to_slots(range.start(), out, nullptr, false, "%lo");
  auto hi = to_slots(range.end(), out, nullptr, false, "%hi");
  if (!lo || !hi) return;
  for (auto [v, x] : {std::pair{&*lo, range.start()}, std::pair{&*hi, range.end()}})
    if (!is_scalar(v->first, DType::i64)) {
      d_.error("E2107", "range bounds are i64 scalars, not " + v->first.to_string()).primary(span(x));
      return;
    }
  block::Stmt loop{.kind = block::StmtKind::for_range, .args = {lo->second[0], hi->second[0]}};
  loop.span = span(e);
  MoveState moves_before = move_state();
  push_scope();
  std::string var = "%i";
  auto ip = ast::cast<ast::IdentPat>(e.pattern().syntax());
  if (ip && ip.name()) var = std::string(ip.name().text());
  Ty it = Ty::of(TensorType{DType::i64, {}});
  auto slots = new_slots(it, var, false);
  loop.results = slots;
  if (ip) bind_pattern(e.pattern(), it, slots, {}, true, span(e.pattern()));
  ++loop_depth_;
  if (e.body()) block_stmts(e.body(), loop.body, false);
  --loop_depth_;
  pop_scope();
  check_loop_moves(moves_before, Span{src_, e.range().begin, e.iterable().range().end});
  out.push_back(std::move(loop));
}

void Lowerer::while_loop(const ast::WhileExpr& e, std::vector<block::Stmt>& out) {
  block::Stmt loop{.kind = block::StmtKind::while_loop};
  loop.span = span(e);
  MoveState moves_before = move_state();
  auto c = to_slots(e.condition(), loop.cond_body, nullptr, true, "%cond");
  if (!c) return;
  if (!is_scalar(c->first, DType::boolean)) {
    d_.error("E2107", "a `while` condition is a bool scalar, not " + c->first.to_string()).primary(span(e.condition()));
    return;
  }
  loop.args = {c->second[0]};
  ++loop_depth_;
  if (e.body()) block_stmts(e.body(), loop.body, false);
  --loop_depth_;
  check_loop_moves(moves_before, Span{src_, e.range().begin, e.condition().range().end});
  out.push_back(std::move(loop));
}

void Lowerer::if_stmt(const ast::IfExpr& e, std::vector<block::Stmt>& out) {
  Nest nest(*this, span(e));
  if (!nest.ok()) return;
  auto c = to_slots(e.condition(), out, nullptr, true, "%cond");
  if (!c) return;
  if (!is_scalar(c->first, DType::boolean)) {
    d_.error("E2107", "an `if` condition is a bool scalar, not " + c->first.to_string()).primary(span(e.condition()));
    return;
  }
  block::Stmt s{.kind = block::StmtKind::if_else, .args = {c->second[0]}};
  s.span = span(e);
  // Each branch starts from the moves before the `if`; after it, a value moved in either is moved.
  MoveState before = move_state();
  if (e.then_branch()) block_stmts(e.then_branch(), s.body, false);
  MoveState after_then = move_state();
  restore_moves(before);
  if (auto el = e.else_branch()) {
    if (auto nested = ast::cast<ast::IfExpr>(el.syntax())) if_stmt(nested, s.else_body);
    else if (auto blk = ast::cast<ast::BlockExpr>(el.syntax())) block_stmts(blk, s.else_body, false);
  }
  merge_moves(after_then);
  out.push_back(std::move(s));
}

void Lowerer::print_stmt(const CallSite& cs, std::vector<block::Stmt>& out) {
  if (!need_effect("io", cs.callee, "`print` writes output")) return;
  block::Stmt p{.kind = block::StmtKind::print};
  p.span = cs.at;
  if (!cs.args) return;
  for (const ast::NamedArg& n : cs.args.named()) d_.error("E2203", "print takes no named arguments").primary(span(n));
  for (const ast::Expr& a : cs.args.positional()) {
    if (auto lit = ast::cast<ast::Literal>(a.syntax()); lit && lit.token().kind() == SyntaxKind::STRING) {
      if (auto s = syntax::string_value(lit.token().text())) p.items.push_back({*s, std::nullopt});
      continue;
    }
    auto r = to_slots(a, out);
    if (!r) return;
    for (const auto& leaf : r->first.leaves())
      if (leaf.space != MemSpace::host && leaf.space != MemSpace::pinned && leaf.space != MemSpace::unified) {
        d_.error("E2514", "print reads host memory, but this value is in " + std::string(memspace_name(leaf.space)) + " memory")
            .primary(span(a), "in " + std::string(memspace_name(leaf.space)) + " memory")
            .secondary(cs.callee, "needs host memory")
            .note("transfer it first: `let h = to_host(x);`");
        return;
      }
    if (r->second.empty()) {
      d_.error("E2203", "print shows tensors and strings, not " + r->first.to_string()).primary(span(a));
      return;
    }
    for (auto s : r->second) p.items.push_back({"", s});
  }
  out.push_back(std::move(p));
}

Lowerer::Slots Lowerer::read_csv(const CallSite& cs, const ast::Type& annotation, std::vector<block::Stmt>& out) {
  if (!need_effect("io", cs.callee, "`read_csv` reads a file")) return std::nullopt;
  auto args = cs.args ? cs.args.positional() : std::vector<ast::Expr>{};
  auto lit = args.size() == 1 ? ast::cast<ast::Literal>(args[0].syntax()) : ast::Literal();
  std::optional<std::string> path;
  if (lit && lit.token().kind() == SyntaxKind::STRING) path = syntax::string_value(lit.token().text());
  if (!path) {
    d_.error("E2203", "read_csv takes one string literal: the path (relative paths start at the source file's folder)")
        .primary(cs.at);
    return std::nullopt;
  }
  // `header: true|false` declares whether row 1 is a header; without it, csv.h's detection rule.
  std::string kind = "csv";
  for (const ast::NamedArg& n : cs.args ? cs.args.named() : std::vector<ast::NamedArg>{}) {
    auto v = n.value() ? ast::cast<ast::Literal>(n.value().syntax()) : ast::Literal();
    bool yes = v && v.token().kind() == SyntaxKind::TRUE_KW, no = v && v.token().kind() == SyntaxKind::FALSE_KW;
    if (!n.name() || n.name().text() != "header" || kind != "csv" || (!yes && !no)) {
      d_.error("E2203", "read_csv takes one named argument, `header: true` or `header: false`").primary(span(n));
      return std::nullopt;
    }
    kind = yes ? "csv.header" : "csv.noheader";
  }
  int k = temp_counter_++;
  TensorType t{DType::f32, {Dim::symbol("rows" + std::to_string(k)), Dim::symbol("cols" + std::to_string(k))}};
  if (annotation) {
    Ty want = resolve_type(annotation);
    if (want.has_error()) return std::nullopt;
    if (!want.is_tensor() || want.tensor.rank() != 2) {
      d_.error("E2203", "read_csv produces a matrix: annotate it as DTYPE[ROWS, COLS], not " + want.to_string())
          .primary(span(annotation));
      return std::nullopt;
    }
    t = want.tensor;
  }
  Ty ty = Ty::of(t);
  auto slots = new_slots(ty, "%csv" + std::to_string(k), false);
  block::Stmt r{.kind = block::StmtKind::read, .results = slots, .callee = kind, .text = *path};
  r.span = cs.at;
  out.push_back(std::move(r));
  return std::make_pair(ty, slots);
}

Lowerer::Slots Lowerer::place_slots(const Place& pl) {
  // The binding's slots, narrowed to the field path.
  Ty ty = pl.b->ty;
  std::size_t offset = 0;
  std::string rest = pl.path;
  while (!rest.empty()) {
    std::size_t next = rest.find('.', 1);
    std::string f = rest.substr(1, next == std::string::npos ? std::string::npos : next - 1);
    rest = next == std::string::npos ? "" : rest.substr(next);
    std::size_t i = ty.elems.size();
    if (ty.kind == TyKind::structure)
      i = static_cast<std::size_t>(std::find(ty.field_names.begin(), ty.field_names.end(), f) - ty.field_names.begin());
    else if (ty.kind == TyKind::tuple && !f.empty() && f.find_first_not_of("0123456789") == std::string::npos && f.size() < 9)
      i = std::stoul(f);
    if (i >= ty.elems.size()) return std::nullopt;
    for (std::size_t k = 0; k < i; ++k) offset += ty.elems[k].leaf_count();
    Ty next_ty = ty.elems[i];
    ty = next_ty;
  }
  if (offset + ty.leaf_count() > pl.b->slots.size()) return std::nullopt;
  std::vector<block::SlotId> slots(pl.b->slots.begin() + static_cast<std::ptrdiff_t>(offset),
                                   pl.b->slots.begin() + static_cast<std::ptrdiff_t>(offset + ty.leaf_count()));
  return std::make_pair(ty, slots);
}

Lowerer::Slots Lowerer::call_stmt(const CallSite& site, FnInfo& f, std::vector<block::Stmt>& out) {
  Span cs = site.callee;
  bool ok = true;
  for (const auto& eff : f.effects) ok = need_effect(eff, cs, "`" + f.name + "` has the effect !" + eff) && ok;
  if (!ok || !f.signature_ok) return std::nullopt;
  auto args = site.args ? site.args.positional() : std::vector<ast::Expr>{};
  if (args.size() != f.params.size()) {
    d_.error("E2006", "`" + f.name + "` takes " + std::to_string(f.params.size()) + " arguments, got " + std::to_string(args.size()))
        .primary(site.at).secondary(span_in(f.mod, f.item.name()), "declared here");
    return std::nullopt;
  }
  block::Stmt c{.kind = block::StmtKind::call, .callee = f.name};
  c.span = site.at;
  std::size_t loans_before = loans_.size();
  std::vector<std::vector<block::SlotId>> writeback;
  DimMap dims;  // the callee's symbolic dims, unified with the arguments'
  std::map<std::string, Span> dims_seen;
  for (std::size_t i = 0; i < args.size(); ++i) {
    // A place is passed as its slots (a `&mut` one gets the callee's final value back);
    // anything else is computed into temporaries first.
    auto ref = ast::cast<ast::RefExpr>(args[i].syntax());
    auto pl = place_of(ref ? ref.operand() : args[i]);
    Value probe;
    probe.borrow = !ref ? RefKind::owned : ref.mut_token() ? RefKind::mut : RefKind::shared;
    Slots r;
    if (pl && pl->b->in_slots) {
      Access acc = !ref ? Access::read : ref.mut_token() ? Access::borrow_mut : Access::borrow;
      if (!check_access(*pl, acc, span(args[i]))) return pop_loans(loans_before), std::nullopt;
      r = place_slots(*pl);
    } else {
      r = to_slots(args[i], out);
    }
    if (!r || !commit_arg(args[i], probe, f.param_refs[i], f.param_spans[i], "argument `" + f.param_names[i] + "` of `" + f.name + "`"))
      return pop_loans(loans_before), std::nullopt;
    if (f.param_refs[i] == RefKind::mut) writeback.push_back(r->second);
    if (r->first.has_error()) return pop_loans(loans_before), std::nullopt;
    unify_param_span_ = f.param_spans[i];
    if (!unify(f.params[i], r->first, dims, span(args[i]), "argument `" + f.param_names[i] + "` of `" + f.name + "`", dims_seen))
      return pop_loans(loans_before), std::nullopt;
    c.args.insert(c.args.end(), r->second.begin(), r->second.end());
  }
  pop_loans(loans_before);
  Ty ret = substitute(f.ret, dims);
  c.results = new_slots(ret, "%" + f.name, false);
  auto results = c.results;
  for (const auto& w : writeback) c.results.insert(c.results.end(), w.begin(), w.end());
  out.push_back(std::move(c));
  return std::make_pair(ret, results);
}

}  // namespace rung::frontend
