// Ownership and memory spaces. Every value has one owner: `let y = x` (and a struct field,
// a tuple element, a by-value argument) moves x, and a later use of x is E2501. `&x` and
// `&mut x` borrow: a borrow held by a variable lasts until the end of that variable's
// block, a borrow passed to a call until the call's arguments are done. While a place is
// borrowed it cannot be moved or assigned (E2504); while it is mutably borrowed it cannot
// be used or borrowed again (E2503). Tensors carry a memory space; operands of one op
// share it (E2511), declarations name it (E2512) and only to_device/to_host/to_pinned/
// to_unified cross between spaces (a BlockIR assign between slots of different spaces).
#include "frontend/lowerer.h"

namespace rung::frontend {
namespace {

// Two places overlap when one path is a prefix of the other on a field boundary.
bool overlaps(const std::string& a, const std::string& b) {
  const std::string& s = a.size() <= b.size() ? a : b;
  const std::string& l = a.size() <= b.size() ? b : a;
  return l.compare(0, s.size(), s) == 0 && (l.size() == s.size() || l[s.size()] == '.');
}

std::string ref_text(RefKind k) { return k == RefKind::mut ? "`&mut`" : k == RefKind::shared ? "`&`" : "an owned value"; }

}  // namespace

void Lowerer::pop_scope() {
  scopes_.pop_back();
  std::erase_if(loans_, [&](const Loan& l) { return l.holder != 0 && l.depth > scopes_.size(); });
}

std::optional<Place> Lowerer::place_of(const ast::Expr& e) {
  // Down `(p).w1.0` to its variable in a loop: a field chain is as deep as it is long.
  std::vector<std::string> fields;  // outermost first
  ast::Expr cur = e;
  while (cur) {
    if (auto p = ast::cast<ast::ParenExpr>(cur.syntax())) {
      cur = p.inner();
    } else if (auto f = ast::cast<ast::FieldExpr>(cur.syntax())) {
      if (f.field()) fields.emplace_back(f.field().text());
      else if (f.tuple_index()) fields.emplace_back(f.tuple_index().text());
      else return std::nullopt;
      cur = f.receiver();
    } else {
      break;
    }
  }
  auto p = cur ? ast::cast<ast::PathExpr>(cur.syntax()) : ast::PathExpr();
  if (!p || !p.name_ref()) return std::nullopt;
  Binding* b = lookup(p.name_ref().text());
  if (!b) return std::nullopt;
  Place pl{b, std::string(p.name_ref().text()), "", span(e)};
  for (auto it = fields.rbegin(); it != fields.rend(); ++it) pl.path += "." + *it;
  return pl;
}

bool Lowerer::check_access(const Place& p, Access a, Span at) {
  if (!checking()) return true;
  Binding& b = *p.b;
  std::string shown = p.name + p.path;
  // A write re-initialises an owned place; through a borrow it needs the borrow alive.
  if (a != Access::write || b.ref != RefKind::owned)
    for (const auto& [path, where] : b.moved)
      if (overlaps(path, p.path)) {
        d_.error("E2501", "use of `" + shown + "` after it was moved")
            .primary(at, "used here after the move")
            .secondary(where, "`" + p.name + path + "` moved here")
            .note("a value has one owner: borrow it with `&" + p.name + "` or make a copy with `copy(" + p.name + path + ")`");
        return false;
      }
  for (const Loan& l : loans_) {
    if (l.target != b.id || !overlaps(l.path, p.path)) continue;
    bool conflict = (a == Access::read || a == Access::borrow) ? l.mut : true;
    if (!conflict) continue;
    std::string held = std::string(l.mut ? "mutably borrowed" : "borrowed") + " here";
    if (a == Access::move || a == Access::write) {
      d_.error("E2504", std::string("cannot ") + (a == Access::move ? "move" : "assign to") + " `" + shown + "` while it is borrowed")
          .primary(at, a == Access::move ? "moved here" : "assigned here")
          .secondary(l.at, held)
          .note(l.holder ? "the borrow lasts until the end of the block of the variable holding it"
                         : "the borrow lasts until the call's arguments are evaluated");
    } else {
      std::string what = a == Access::borrow_mut ? "borrow `" + shown + "` as mutable" : a == Access::borrow ? "borrow `" + shown + "`" : "use `" + shown + "`";
      d_.error("E2503", "cannot " + what + " while it is " + (l.mut ? "mutably borrowed" : "borrowed"))
          .primary(at, a == Access::borrow_mut ? "`&mut` here" : a == Access::borrow ? "borrowed here" : "used here")
          .secondary(l.at, held)
          .note("a `&mut` borrow is the only way to reach a value while it lives");
    }
    return false;
  }
  if (a == Access::borrow_mut && !(b.ref == RefKind::mut || (b.ref == RefKind::owned && b.is_mut))) {
    d_.error("E2505", "cannot borrow `" + shown + "` as mutable: " +
                          (b.ref == RefKind::shared ? "it is a shared borrow" : "it is not declared `let mut`"))
        .primary(at, "`&mut` here")
        .secondary(b.span, "declared here");
    return false;
  }
  if (a == Access::move && b.ref != RefKind::owned) {
    d_.error("E2507", "cannot move `" + shown + "` out of a borrow")
        .primary(at, "moved here")
        .secondary(b.span, "`" + p.name + "` is a borrow")
        .note("make an owned copy with `copy(" + shown + ")`");
    return false;
  }
  if (a == Access::move) b.moved.emplace_back(p.path, at);
  if (a == Access::write && b.ref == RefKind::owned) std::erase_if(b.moved, [&](const auto& m) { return overlaps(m.first, p.path) && m.first.size() >= p.path.size(); });
  return true;
}

void Lowerer::add_loan(const Place& p, bool mut, Span at, int holder) {
  if (!checking()) return;
  loans_.push_back(Loan{p.b->id, p.name, p.path, mut, at, scopes_.size(), holder});
}

Value Lowerer::owned_value(const ast::Expr& e, const std::string& what) {
  Value v = expr(e);
  if (!v.ok() || !checking()) return v;
  if (v.borrow != RefKind::owned) {
    d_.error("E2506", what + " holds an owned value, not a borrow").primary(span(e), "a borrow").note("remove the `&`, or copy: `copy(x)`");
    return error_value(v.span);
  }
  if (auto pl = place_of(e); pl && !check_access(*pl, Access::move, span(e))) return error_value(v.span);
  return v;
}

bool Lowerer::commit_arg(const ast::Expr& arg, const Value& v, RefKind want, Span param_span, const std::string& what) {
  if (!checking()) return true;
  auto pl = place_of(arg);
  // A variable that is itself a borrow passes on as that borrow.
  RefKind got = v.borrow;
  if (got == RefKind::owned && pl && pl->b->ref != RefKind::owned) got = pl->b->ref;
  bool fits = got == want || (want == RefKind::shared && got == RefKind::mut);
  if (!fits) {
    auto& d = d_.error("E2506", what + " expects " + ref_text(want) + ", got " + ref_text(got))
                  .primary(span(arg), ref_text(got))
                  .secondary(param_span, "parameter declared here");
    if (want == RefKind::shared) d.note("borrow it: `&" + arg.syntax().text() + "`");
    else if (want == RefKind::mut) d.note("borrow it mutably: `&mut " + arg.syntax().text() + "`");
    else d.note("pass the value itself, or an owned copy: `copy(...)`");
    return false;
  }
  if (want == RefKind::owned) return !pl || check_access(*pl, Access::move, span(arg));
  if (v.borrow != RefKind::owned)
    if (auto r = ast::cast<ast::RefExpr>(arg.syntax()))
      if (auto inner = place_of(r.operand())) add_loan(*inner, v.borrow == RefKind::mut, span(arg), 0);
  return true;
}

bool Lowerer::is_borrow_init(const ast::Expr& init) {
  if (ast::cast<ast::RefExpr>(init.syntax())) return true;
  auto pl = place_of(init);
  return pl && pl->path.empty() && pl->b->ref != RefKind::owned;
}

void Lowerer::bind_borrow(const ast::Expr& init, const std::string& name) {
  Binding* nb = lookup(name);
  if (!nb || !checking()) return;
  if (auto r = ast::cast<ast::RefExpr>(init.syntax())) {
    nb->ref = r.mut_token() ? RefKind::mut : RefKind::shared;
    if (auto pl = place_of(r.operand())) add_loan(*pl, nb->ref == RefKind::mut, span(init), nb->id);
    return;
  }
  auto pl = place_of(init);
  if (!pl || pl->b->ref == RefKind::owned || pl->b == nb) return;
  nb->ref = pl->b->ref;  // `let y = r`: y borrows what r borrows
  if (nb->ref == RefKind::mut) pl->b->moved.emplace_back("", span(init));  // a `&mut` has one holder: r moves to y
  std::vector<Loan> copies;
  for (const Loan& l : loans_)
    if (l.holder == pl->b->id) {
      Loan c = l;
      c.holder = nb->id, c.depth = scopes_.size();
      copies.push_back(c);
    }
  loans_.insert(loans_.end(), copies.begin(), copies.end());
}

Lowerer::MoveState Lowerer::move_state() {
  MoveState s;
  for (auto& sc : scopes_)
    for (auto& [n, b] : sc) s[b.id] = b.moved;
  return s;
}

void Lowerer::restore_moves(const MoveState& s) {
  for (auto& sc : scopes_)
    for (auto& [n, b] : sc)
      if (auto it = s.find(b.id); it != s.end()) b.moved = it->second;
}

void Lowerer::merge_moves(const MoveState& other) {
  for (auto& sc : scopes_)
    for (auto& [n, b] : sc)
      if (auto it = other.find(b.id); it != other.end())
        for (const auto& m : it->second)
          if (std::none_of(b.moved.begin(), b.moved.end(), [&](const auto& x) { return x.second.begin == m.second.begin; }))
            b.moved.push_back(m);
}

void Lowerer::check_loop_moves(const MoveState& before, Span loop) {
  if (!checking()) return;
  for (auto& sc : scopes_)
    for (auto& [n, b] : sc) {
      auto it = before.find(b.id);
      if (it == before.end()) continue;
      for (const auto& m : b.moved) {
        bool old = std::any_of(it->second.begin(), it->second.end(), [&](const auto& x) { return x.second.begin == m.second.begin; });
        if (old) continue;
        d_.error("E2502", "`" + n + m.first + "` is moved inside a loop, so the next iteration would use it after the move")
            .primary(m.second, "moved here")
            .secondary(loop, "in this loop")
            .note("borrow it with `&" + n + "`, copy it, or assign it a new value before the iteration ends");
        break;
      }
    }
}

bool Lowerer::same_space(const std::vector<Value>& args, Span op_span) {
  const Value* first = nullptr;
  for (const Value& a : args) {
    if (!a.ty.is_tensor() || a.weak || a.constant) continue;
    if (!first) {
      first = &a;
      continue;
    }
    if (a.ty.tensor.space == first->ty.tensor.space) continue;
    std::string s1(memspace_name(first->ty.tensor.space)), s2(memspace_name(a.ty.tensor.space));
    d_.error("E2511", "operands in different memory spaces: " + s1 + " and " + s2)
        .primary(first->span, "in " + s1 + " memory")
        .secondary(a.span, "in " + s2 + " memory")
        .secondary(op_span, "used together here")
        .note("move one explicitly: `let y = to_" + s1 + "(x);` (to_host, to_device, to_pinned, to_unified)");
    return false;
  }
  return true;
}

bool Lowerer::is_transfer(std::string_view name) {
  return name == "to_host" || name == "to_device" || name == "to_pinned" || name == "to_unified";
}

bool Lowerer::space_mismatch(const Ty& want, const Ty& got, Span at, Span decl, const std::string& what) {
  if (want.kind != got.kind || want.leaf_count() != got.leaf_count()) return false;
  auto wl = want.leaves(), gl = got.leaves();
  bool differs = false;
  for (std::size_t i = 0; i < wl.size(); ++i) {
    TensorType a = wl[i], b = gl[i];
    if (a.space != b.space) differs = true;
    b.space = a.space;
    if (!(a == b)) return false;
  }
  if (!differs) return false;
  MemSpace ws = wl[0].space, gs = gl[0].space;
  for (std::size_t i = 0; i < wl.size(); ++i)
    if (wl[i].space != gl[i].space) ws = wl[i].space, gs = gl[i].space;
  std::string w(memspace_name(ws)), g(memspace_name(gs));
  d_.error("E2512", what + " needs " + w + " memory, but the value is in " + g + " memory")
      .primary(at, "in " + g + " memory")
      .secondary(decl, "declared " + w)
      .note("crossing memory spaces is explicit: `let y = to_" + w + "(x);`");
  return true;
}

Lowerer::Slots Lowerer::transfer(const CallSite& c, std::vector<block::Stmt>& out, const std::string& hint) {
  const std::string& name = c.name;
  auto args = c.args ? c.args.positional() : std::vector<ast::Expr>{};
  if (args.size() != 1 || (c.args && !c.args.named().empty())) {
    d_.error("E2513", "`" + name + "` moves one value to another memory space: " + name + "(x)").primary(c.at);
    return std::nullopt;
  }
  auto src = to_slots(args[0], out);
  if (!src || src->first.has_error()) return std::nullopt;
  MemSpace to = *memspace_from_name(name.substr(3));
  Ty ty = src->first;
  std::function<void(Ty&)> move_to = [&](Ty& t) {
    if (t.kind == TyKind::tensor) t.tensor.space = to;
    for (auto& e : t.elems) move_to(e);
  };
  move_to(ty);
  if (ty.leaf_count() == 0) {
    d_.error("E2513", "`" + name + "` moves tensors, not " + src->first.to_string()).primary(span(args[0]));
    return std::nullopt;
  }
  auto slots = new_slots(ty, hint.empty() ? "%" + name + std::to_string(temp_counter_++) : hint, false);
  for (std::size_t i = 0; i < slots.size(); ++i)
    out.push_back(block::Stmt{.kind = block::StmtKind::assign, .args = {src->second[i]}, .results = {slots[i]}, .span = c.at});
  return std::make_pair(ty, slots);
}

}  // namespace rung::frontend
