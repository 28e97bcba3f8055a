// `if` as a value and the loop jumps (`break`, `continue`), lowered to BlockIR.
//
// `let y = if c { a } else { b };` becomes one if_else statement whose branches each end by
// writing their tail value into the same slots; only the branch taken runs. Both branches
// must give the same type (E2114), and a value needs an `else` (E2113).
#include "frontend/lowerer.h"

namespace rung::frontend {

using syntax::SyntaxKind;

Lowerer::SlotsRef Lowerer::branch_value(const ast::BlockExpr& b, std::vector<block::Stmt>& out,
                                        const std::vector<block::SlotId>* into, const std::string& hint, bool is_mut,
                                        Span& tail_span) {
  push_scope();
  for (const ast::Stmt& s : b.statements()) block_stmt(s, out);
  auto tail = b.tail();
  SlotsRef r;
  if (!tail) {
    d_.error("E2113", "this branch of an `if` used as a value ends without a value")
        .primary(Span{src_, b.range().end - 1, b.range().end}, "no value here");
  } else {
    tail_span = span(tail);
    if (tail.kind() == SyntaxKind::IF_EXPR) {
      r = if_value(ast::cast<ast::IfExpr>(tail.syntax()), out, into, nullptr, hint, is_mut);
    } else {
      // The tail is the branch's result: a variable named there is moved into it.
      auto pl = place_of(tail);
      if (!(pl && checking() && !check_access(*pl, Access::move, span(tail)))) {
        if (pl) ++place_checked_;
        r = to_slots(tail, out, into, true, hint, is_mut);
        if (pl) --place_checked_;
      }
    }
  }
  pop_scope();
  return r;
}

Lowerer::SlotsRef Lowerer::if_value(const ast::IfExpr& e, std::vector<block::Stmt>& out, const std::vector<block::SlotId>* into,
                                    const Ty* want, const std::string& hint, bool is_mut) {
  Nest nest(*this, span(e));
  if (!nest.ok()) return std::nullopt;
  auto c = to_slots(e.condition(), out, nullptr, true, "%cond");
  if (!c) return std::nullopt;
  if (c->first.kind != TyKind::tensor || c->first.tensor.rank() != 0 || c->first.tensor.dtype != DType::boolean) {
    d_.error("E2107", "an `if` condition is a bool scalar, not " + c->first.to_string()).primary(span(e.condition()));
    return std::nullopt;
  }
  auto el = e.else_branch();
  if (!el) {
    d_.error("E2113", "an `if` used as a value needs an `else` branch")
        .primary(span(e), "gives a value only when the condition holds")
        .note("add `else { ... }`, or use the `if` as a statement");
    return std::nullopt;
  }
  // Slots for the value: the caller's, or fresh ones of the declared type, or (neither
  // known) the then-branch's own.
  std::vector<block::SlotId> fresh;
  if (!into && want && !want->has_error() && want->kind != TyKind::unit) {
    fresh = new_slots(*want, hint.empty() ? "%if" + std::to_string(temp_counter_++) : hint, is_mut);
    into = &fresh;
  }
  block::Stmt s{.kind = block::StmtKind::if_else, .args = {c->second[0]}};
  s.span = span(e);
  // Each branch starts from the moves before the `if`; after it, a value moved in either is moved.
  MoveState before = move_state();
  Span then_span = span(e.then_branch()), else_span = span(el);
  SlotsRef a;
  if (e.then_branch()) a = branch_value(e.then_branch(), s.body, into, hint, is_mut, then_span);
  MoveState after_then = move_state();
  restore_moves(before);
  if (a && !into) {
    fresh = a->second;
    into = &fresh;
  }
  SlotsRef b;
  if (auto nested = ast::cast<ast::IfExpr>(el.syntax())) {
    b = if_value(nested, s.else_body, into, a ? &a->first : want, hint, is_mut);
  } else if (auto blk = ast::cast<ast::BlockExpr>(el.syntax())) {
    b = branch_value(blk, s.else_body, into, hint, is_mut, else_span);
  }
  merge_moves(after_then);
  if (!a || !b) return std::nullopt;
  if (!same_type(a->first, b->first)) {
    d_.error("E2114", "the branches of this `if` give different types: " + a->first.to_string() + " and " + b->first.to_string())
        .primary(else_span, "this is " + b->first.to_string())
        .secondary(then_span, "this is " + a->first.to_string());
    return std::nullopt;
  }
  out.push_back(std::move(s));
  return std::make_pair(a->first, *into);
}

void Lowerer::loop_jump(const ast::Expr& e, std::vector<block::Stmt>& out) {
  bool is_break = e.kind() == SyntaxKind::BREAK_EXPR;
  if (loop_depth_ == 0) {
    d_.error("E2115", std::string(is_break ? "`break`" : "`continue`") + " outside a loop").primary(span(e))
        .note("`break` and `continue` belong in the body of a `for` or `while` loop");
    return;
  }
  block::Stmt s{.kind = is_break ? block::StmtKind::break_loop : block::StmtKind::continue_loop};
  s.span = span(e);
  out.push_back(std::move(s));
}

}  // namespace rung::frontend
