// Expressions to GraphIR nodes, with their types checked on the way: every op goes through
// ops::infer_types, the registry's one type checker (broadcasting, symbolic dims).
#include <cstring>
#include <functional>

#include "frontend/lowerer.h"
#include "ir/graph/dtype.h"
#include "ops/registry.h"
#include "ops/typing.h"
#include "syntax/literal.h"

namespace rung::frontend {

using syntax::SyntaxKind;

namespace {

// The dtype a literal operand of `op` takes: that of a typed operand of the same type
// variable (`x * 2` with x: f16 is f16), or the operand's fixed dtype; else its default:
// i64, or f32 for a float literal or where the variable admits no i64 (`sqrt(4)`).
DType literal_dtype(const ops::OpDef& op, const std::vector<Value>& args, std::size_t i) {
  auto spec_of = [&](std::size_t k) -> const ops::OperandSpec* {
    return op.operands.empty() ? nullptr : &op.operands[std::min(k, op.operands.size() - 1)];
  };
  const ops::OperandSpec* mine = spec_of(i);
  if (!mine) return default_literal_dtype(*args[i].lit);
  if (auto dt = dtype_from_name(mine->type)) return *dt;
  bool any_float = false;
  for (std::size_t k = 0; k < args.size(); ++k) {
    const ops::OperandSpec* s = spec_of(k);
    if (!s || s->type != mine->type) continue;
    if (!args[k].weak && args[k].ok() && args[k].ty.is_tensor()) return args[k].ty.tensor.dtype;
    any_float = any_float || args[k].weak_float;
  }
  DType dt = any_float ? DType::f32 : DType::i64;
  if (const ops::TypeVar* tv = op.find_type_var(mine->type); tv && !tv->allowed.contains(dt) && tv->allowed.contains(DType::f32))
    dt = DType::f32;
  return dt;
}

}  // namespace

Value Lowerer::expr(const ast::Expr& e) {
  if (!e) return error_value(Span{src_, 0, 0});
  Span at = span(e);
  Nest nest(*this, at);
  if (!nest.ok()) return error_value(at);
  auto unsupported = [&](const std::string& what) {
    d_.error("E2090", what).primary(at);
    return error_value(at);
  };
  if ((e.kind() == SyntaxKind::PATH_EXPR || e.kind() == SyntaxKind::FIELD_EXPR) && place_checked_ == 0 && checking())
    if (auto pl = place_of(e)) {  // a read of a variable or a field path: not moved, not mutably borrowed elsewhere
      if (!check_access(*pl, Access::read, at)) return error_value(at);
      ++place_checked_;
      Value v = e.kind() == SyntaxKind::PATH_EXPR ? path(ast::cast<ast::PathExpr>(e.syntax())) : field(ast::cast<ast::FieldExpr>(e.syntax()));
      --place_checked_;
      return v;
    }
  switch (e.kind()) {
    case SyntaxKind::LITERAL: return literal(ast::cast<ast::Literal>(e.syntax()));
    case SyntaxKind::PATH_EXPR: return path(ast::cast<ast::PathExpr>(e.syntax()));
    case SyntaxKind::PAREN_EXPR: {
      Value v = expr(ast::cast<ast::ParenExpr>(e.syntax()).inner());
      v.span = at;
      return v;
    }
    case SyntaxKind::TUPLE_EXPR: return tuple(ast::cast<ast::TupleExpr>(e.syntax()));
    case SyntaxKind::TENSOR_EXPR: return tensor_lit(ast::cast<ast::TensorExpr>(e.syntax()));
    case SyntaxKind::BLOCK_EXPR: return block_value(ast::cast<ast::BlockExpr>(e.syntax()));
    case SyntaxKind::BIN_EXPR: return binary(ast::cast<ast::BinExpr>(e.syntax()));
    case SyntaxKind::PREFIX_EXPR: return prefix(ast::cast<ast::PrefixExpr>(e.syntax()));
    case SyntaxKind::REF_EXPR: {  // `&x` reads x in place; the context decides how long the borrow lives
      auto r = ast::cast<ast::RefExpr>(e.syntax());
      bool mut = static_cast<bool>(r.mut_token());
      if (auto pl = place_of(r.operand()); pl && checking() && place_checked_ == 0) {
        if (!check_access(*pl, mut ? Access::borrow_mut : Access::borrow, at)) return error_value(at);
        ++place_checked_;
        Value v = expr(r.operand());
        --place_checked_;
        v.span = at;
        v.borrow = mut ? RefKind::mut : RefKind::shared;
        return v;
      }
      Value v = expr(r.operand());
      v.span = at;
      if (v.ok()) v.borrow = mut ? RefKind::mut : RefKind::shared;
      return v;
    }
    case SyntaxKind::CALL_EXPR: return call(e);
    case SyntaxKind::FIELD_EXPR: return field(ast::cast<ast::FieldExpr>(e.syntax()));
    case SyntaxKind::INDEX_EXPR: return index(ast::cast<ast::IndexExpr>(e.syntax()));
    case SyntaxKind::STRUCT_LIT: return struct_lit(ast::cast<ast::StructLit>(e.syntax()));
    case SyntaxKind::METHOD_CALL_EXPR: return call(e);
    case SyntaxKind::RANGE_EXPR: return unsupported("a range is only allowed as the iterable of a `for` loop");
    case SyntaxKind::IF_EXPR: return unsupported("an `if` value inside a larger expression is not supported yet: bind it with `let` first");
    default: return unsupported("this expression is only allowed as a statement");
  }
}

Value Lowerer::literal(const ast::Literal& lit) {
  Value v;
  v.span = span(lit);
  auto tok = lit.token();
  switch (tok.kind()) {
    case SyntaxKind::INT_NUMBER:
      if (auto n = syntax::int_value(tok.text())) return weak_value(std::make_shared<WeakLit>(WeakLit{{}, {weak_int_leaf(*n, v.span)}}), v.span);
      return v;  // malformed: the lexer reported it
    case SyntaxKind::FLOAT_NUMBER:
      if (syntax::float_value(tok.text())) {
        std::string digits;
        for (char c : tok.text())
          if (c != '_') digits += c;
        return weak_value(std::make_shared<WeakLit>(WeakLit{{}, {weak_float_leaf(std::move(digits), v.span)}}), v.span);
      }
      return v;
    case SyntaxKind::TRUE_KW:
    case SyntaxKind::FALSE_KW: return constant_bool(tok.kind() == SyntaxKind::TRUE_KW, v.span);
    case SyntaxKind::STRING:
      if (auto s = syntax::string_value(tok.text())) {
        v.ty = Ty::string();
        v.text = *s;
      }
      return v;
    default: return v;
  }
}

Value Lowerer::weak_value(std::shared_ptr<const WeakLit> lit, Span at) {
  Value v;
  std::vector<Dim> dims;
  for (auto n : lit->shape) dims.push_back(Dim::fixed(n));
  v.ty = Ty::of(TensorType{default_literal_dtype(*lit), dims});
  v.weak = true;
  v.weak_float = lit->is_float();
  v.lit = std::move(lit);
  v.span = at;
  return v;
}

Value Lowerer::too_deep_literal(Span op) {
  d_.error("E2090", "a literal expression of more than " + std::to_string(kMaxWeakDepth) + " operations")
      .primary(op, "one too many")
      .note("bind a part of it with a typed `let` first");
  return error_value(op);
}

Value Lowerer::constant_bool(bool b, Span at) {
  Value v;
  v.ty = Ty::of(TensorType{DType::boolean, {}});
  v.constant = true;
  v.refs = {b_.constant(v.ty.tensor, Bytes{static_cast<std::uint8_t>(b ? 1 : 0)})};
  v.span = at;
  return v;
}

Value Lowerer::materialize(Value v, DType dt, MemSpace space) {
  if (!v.weak) return v;
  auto bytes = evaluate_weak(*v.lit, dt, d_);
  if (!bytes) return error_value(v.span);
  Value c;
  c.ty = Ty::of(TensorType{dt, v.ty.tensor.shape, space});
  c.constant = true;
  c.refs = {b_.constant(c.ty.tensor, std::move(*bytes))};
  c.span = v.span;
  return c;
}

Value Lowerer::path(const ast::PathExpr& p) {
  Span at = span(p);
  if (!p.name_ref()) return error_value(at);
  std::string name(p.name_ref().text());
  if (Binding* b = lookup(name)) {
    Value v;
    v.ty = b->ty;
    v.span = at;
    if (b->in_slots)
      for (auto s : b->slots) v.refs.push_back(slot_param(s));
    else
      v.refs = b->refs, v.constant = b->constant;
    return v;
  }
  if (current_ && std::find(current_->generics.begin(), current_->generics.end(), name) != current_->generics.end()) {
    // A generic dimension used as a value: its extent at this call, an untyped integer.
    auto it = dim_env_.find(name);
    if (it == dim_env_.end() || !it->second.is_static()) {
      d_.error("E2112", "dimension `" + name + "` has no known extent here")
          .primary(at, it == dim_env_.end() ? "not bound" : "bound to the symbol " + it->second.to_string())
          .note("a dimension used as a value needs a static extent at the call");
      return error_value(at);
    }
    return weak_value(std::make_shared<WeakLit>(WeakLit{{}, {weak_int_leaf(it->second.extent(), at)}}), at);
  }
  if (find_fn(name) || ops::op_registry().find(name)) {
    d_.error("E2009", "`" + name + "` is a function; functions are not values").primary(at).note("call it: " + name + "(...)");
    return error_value(at);
  }
  auto& d = d_.error("E2001", "unknown name `" + name + "`").primary(at, "not found in this scope");
  if (auto near = closest_name(name); !near.empty()) d.note("did you mean `" + near + "`?");
  return error_value(at);
}

Value Lowerer::apply_op(const ops::OpDef& op, std::vector<Value> args, const AttrMap& attrs, Span at, Span op_span) {
  if (op.family == "random") need_effect("rand", op_span, "`" + op.name + "` draws random numbers");
  MemSpace space = MemSpace::host;
  bool constant = true;
  for (const auto& a : args)
    if (!a.weak && !a.constant && a.ty.is_tensor()) {
      space = a.ty.tensor.space, constant = false;
      break;
    }
  if (!same_space(args, op_span.valid() ? op_span : at)) return error_value(at);
  std::vector<TensorType> types;
  std::vector<ValueRef> refs;
  for (std::size_t i = 0; i < args.size(); ++i) {
    Value& a = args[i];
    if (!a.ok()) return error_value(at);
    if (a.weak) a = materialize(a, literal_dtype(op, args, i), space);
    if (!a.ok()) return error_value(at);
    if (!a.ty.is_tensor()) {
      d_.error("E2104", "`" + op.name + "` takes tensors, not " + a.ty.to_string()).primary(a.span, "this is " + a.ty.to_string());
      return error_value(at);
    }
    types.push_back(a.ty.tensor);
    refs.push_back(a.refs[0]);
  }
  std::vector<std::string> why;
  auto typed = ops::infer_types(op, types, attrs, why);
  if (!typed) {
    bool same_dtype = true;
    for (const auto& t : types) same_dtype = same_dtype && t.dtype == types[0].dtype;
    std::string shown;
    for (const auto& t : types) shown += (shown.empty() ? "" : " and ") + t.to_string();
    bool shape_problem = same_dtype && types.size() >= 1;
    auto& d = d_.error(shape_problem ? "E2102" : "E2103",
                       std::string(shape_problem ? "shape mismatch" : "type mismatch") + " in `" + op.name + "`: " +
                           (shown.empty() ? std::string("no operands") : shown));
    if (args.empty()) d.primary(at);
    for (std::size_t i = 0; i < args.size(); ++i) {
      std::string label = "this is " + types[i].to_string();
      if (i == 0) d.primary(args[i].span, label);
      else d.secondary(args[i].span, label);
    }
    if (op_span.valid() && args.size() > 1) d.secondary(op_span, "in this " + op.name);
    for (const auto& w : why) d.note(w);
    return error_value(at);
  }
  for (auto& r : typed->results) r.space = space;  // constants take the space of the values they meet
  auto outs = b_.op_multi(op.name, refs, typed->results, typed->attrs.map());
  if (!outs.empty() && at.valid()) prog_.node_spans.emplace(prog_.graph.node(outs[0].node).hash, at);  // debug info
  Value v;
  v.span = at;
  v.constant = constant;
  v.refs = outs;
  if (typed->results.size() == 1) {
    v.ty = Ty::of(typed->results[0]);
  } else {
    std::vector<Ty> elems;
    for (const auto& t : typed->results) elems.push_back(Ty::of(t));
    v.ty = Ty::tuple(std::move(elems));
  }
  return v;
}

Value Lowerer::binary(const ast::BinExpr& e) {
  // `a + b + c + ...` nests to the left as deep as it is long: walk down its left spine and
  // fold back up in a loop, so a long chain costs no stack (or nesting levels).
  std::vector<ast::BinExpr> spine{e};
  while (auto inner = ast::cast<ast::BinExpr>(spine.back().lhs().syntax())) spine.push_back(inner);
  Value v = expr(spine.back().lhs());
  for (auto it = spine.rbegin(); it != spine.rend(); ++it) v = binary_step(*it, std::move(v));
  return v;
}

Value Lowerer::binary_step(const ast::BinExpr& e, Value l) {
  Span at = span(e);
  auto tok = e.op_token();
  const char* opname = nullptr;
  switch (tok.kind()) {
    case SyntaxKind::PLUS: opname = "add"; break;
    case SyntaxKind::MINUS: opname = "sub"; break;
    case SyntaxKind::STAR: opname = "mul"; break;
    case SyntaxKind::SLASH: opname = "div"; break;
    case SyntaxKind::AT: opname = "matmul"; break;
    case SyntaxKind::PERCENT: opname = "remainder"; break;
    case SyntaxKind::EQ2: opname = "eq"; break;
    case SyntaxKind::NEQ: opname = "ne"; break;
    case SyntaxKind::LT: opname = "lt"; break;
    case SyntaxKind::LTEQ: opname = "le"; break;
    case SyntaxKind::GT: opname = "gt"; break;
    case SyntaxKind::GTEQ: opname = "ge"; break;
    case SyntaxKind::AMP2: opname = "logical_and"; break;
    case SyntaxKind::PIPE2: opname = "logical_or"; break;
    default: break;
  }
  Value r = expr(e.rhs());
  if (!opname || !l.ok() || !r.ok()) return error_value(at);
  // Arithmetic of two literal scalars stays a literal: computed once the context gives it a
  // dtype (`let x: f32 = 7 / 2` is 3.5, `7 / 2` alone is the i64 3).
  if (l.weak && r.weak && l.lit->shape.empty() && r.lit->shape.empty()) {
    std::optional<WeakNum::Op> wop;
    switch (tok.kind()) {
      case SyntaxKind::PLUS: wop = WeakNum::Op::add; break;
      case SyntaxKind::MINUS: wop = WeakNum::Op::sub; break;
      case SyntaxKind::STAR: wop = WeakNum::Op::mul; break;
      case SyntaxKind::SLASH: wop = WeakNum::Op::div; break;
      case SyntaxKind::PERCENT: wop = WeakNum::Op::rem; break;
      default: break;
    }
    if (wop) {
      auto n = weak_node(*wop, l.lit->elems[0], r.lit->elems[0], at);
      if (!n) return too_deep_literal(span(tok));
      return weak_value(std::make_shared<WeakLit>(WeakLit{{}, {std::move(n)}}), at);
    }
  }
  const ops::OpDef* op = ops::op_registry().find(opname);
  if (!op) {
    d_.error("E2090", "the operator `" + std::string(tok.text()) + "` has no op in this build (`" + opname + "`)").primary(span(tok));
    return error_value(at);
  }
  for (const Value* side : {&l, &r})
    if (!side->ty.is_tensor()) {
      d_.error("E2104", "`" + std::string(tok.text()) + "` needs tensors, not " + side->ty.to_string())
          .primary(side->span, "this is " + side->ty.to_string())
          .secondary(span(tok));
      return error_value(at);
    }
  return apply_op(*op, {l, r}, {}, at, span(tok));
}

Value Lowerer::prefix(const ast::PrefixExpr& e) {
  Span at = span(e);
  Value v = expr(e.operand());
  if (!v.ok()) return error_value(at);
  bool minus = e.op_token().kind() == SyntaxKind::MINUS;
  if (minus && v.weak) {  // `-2`, `-[1, 2]`: still a literal
    auto lit = std::make_shared<WeakLit>(*v.lit);
    for (auto& x : lit->elems)
      if (!(x = weak_negate(x, at))) return too_deep_literal(span(e.op_token()));
    return weak_value(std::move(lit), at);
  }
  const ops::OpDef* op = ops::op_registry().find(minus ? "neg" : "logical_not");
  if (!op) {
    d_.error("E2090", "the operator `!` has no op in this build").primary(at);
    return error_value(at);
  }
  return apply_op(*op, {v}, {}, at, span(e.op_token()));
}

Value Lowerer::field(const ast::FieldExpr& e) {
  Span at = span(e);
  Value base = expr(e.receiver());
  if (!base.ok()) return error_value(at);
  std::size_t idx = 0;
  if (auto ti = e.tuple_index()) {
    auto n = syntax::int_value(ti.text());
    if (base.ty.kind != TyKind::tuple || !n || *n >= base.ty.elems.size()) {
      d_.error("E2106", "no element ." + std::string(ti.text()) + " in a value of type " + base.ty.to_string())
          .primary(span(ti)).secondary(base.span, "this is " + base.ty.to_string());
      return error_value(at);
    }
    idx = *n;
  } else {
    if (!e.field()) return error_value(at);
    std::string name(e.field().text());
    if (base.ty.kind != TyKind::structure) {
      d_.error("E2106", "`" + base.ty.to_string() + "` has no fields").primary(span(e.field()), "field `" + name + "`")
          .secondary(base.span, "this is " + base.ty.to_string());
      return error_value(at);
    }
    auto& names = base.ty.field_names;
    auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      d_.error("E2003", "struct `" + base.ty.name + "` has no field `" + name + "`")
          .primary(span(e.field()), "unknown field").note("fields: " + list);
      return error_value(at);
    }
    idx = static_cast<std::size_t>(it - names.begin());
  }
  std::size_t offset = 0;
  for (std::size_t i = 0; i < idx; ++i) offset += base.ty.elems[i].leaf_count();
  Value v;
  v.ty = base.ty.elems[idx];
  v.span = at;
  v.refs.assign(base.refs.begin() + static_cast<std::ptrdiff_t>(offset),
                base.refs.begin() + static_cast<std::ptrdiff_t>(offset + v.ty.leaf_count()));
  return v;
}

Value Lowerer::struct_lit(const ast::StructLit& e) {
  Span at = span(e);
  if (!e.name_ref()) return error_value(at);
  std::string name(e.name_ref().text());
  StructInfo* info = find_struct(name);
  if (!info) {
    d_.error("E2005", "unknown struct `" + name + "`").primary(span(e.name_ref()));
    return error_value(at);
  }
  const Ty& st = info->ty;
  DimMap dims;  // a generic struct's dims, found from the field values
  std::map<std::string, Span> dims_seen;
  if (st.has_error()) return error_value(at);
  std::vector<std::optional<Value>> vals(st.elems.size());
  bool ok = true;
  if (auto fl = e.fields())
    for (const ast::StructLitField& f : fl.fields()) {
      if (!f.name_ref()) continue;
      std::string fname(f.name_ref().text());
      auto pos = std::find(st.field_names.begin(), st.field_names.end(), fname);
      Value v;
      if (f.value()) {
        v = owned_value(f.value(), "a struct field");
      } else {  // shorthand `P { x }`: moves x
        if (Binding* b = lookup(fname)) {
          if (checking() && !check_access(Place{b, fname, "", span(f)}, Access::move, span(f))) {
            ok = false;
            continue;
          }
          v.ty = b->ty;
          v.span = span(f);
          if (b->in_slots)
            for (auto s : b->slots) v.refs.push_back(slot_param(s));
          else
            v.refs = b->refs;
        } else {
          d_.error("E2001", "unknown name `" + fname + "`").primary(span(f));
          ok = false;
          continue;
        }
      }
      if (pos == st.field_names.end()) {
        d_.error("E2005", "struct `" + name + "` has no field `" + fname + "`").primary(span(f.name_ref()), "unknown field");
        ok = false;
        continue;
      }
      std::size_t i = static_cast<std::size_t>(pos - st.field_names.begin());
      if (vals[i]) {
        d_.error("E2005", "field `" + fname + "` is given twice").primary(span(f));
        ok = false;
        continue;
      }
      if (!v.ok()) {
        ok = false;
        continue;
      }
      if (v.weak && st.elems[i].is_tensor()) v = materialize(v, st.elems[i].tensor.dtype, st.elems[i].tensor.space);
      if (!info->generics.empty()) {
        unify_param_span_ = i < info->field_spans.size() ? info->field_spans[i] : at;
        if (!unify(st.elems[i], v.ty, dims, v.span, "field `" + fname + "` of `" + name + "`", dims_seen)) {
          ok = false;
          continue;
        }
        vals[i] = std::move(v);
        continue;
      }
      if (!same_type(v.ty, st.elems[i])) {
        if (space_mismatch(st.elems[i], v.ty, v.span, span(f.name_ref()), "field `" + fname + "`")) {
          ok = false;
          continue;
        }
        d_.error("E2101", "field `" + fname + "` of `" + name + "` is " + st.elems[i].to_string() + ", not " + v.ty.to_string())
            .primary(v.span, "this is " + v.ty.to_string());
        ok = false;
        continue;
      }
      vals[i] = std::move(v);
    }
  std::string missing;
  for (std::size_t i = 0; i < vals.size(); ++i)
    if (!vals[i] && ok) missing += (missing.empty() ? "" : ", ") + st.field_names[i];
  if (!missing.empty()) {
    d_.error("E2005", "missing fields in `" + name + "`: " + missing).primary(at);
    ok = false;
  }
  if (!ok) return error_value(at);
  Value v;
  v.ty = substitute(st, dims);
  v.span = at;
  for (auto& f : vals) v.refs.insert(v.refs.end(), f->refs.begin(), f->refs.end());
  return v;
}

Value Lowerer::tuple(const ast::TupleExpr& e) {
  Value v;
  v.span = span(e);
  std::vector<Ty> elems;
  for (const ast::Expr& x : e.elements()) {
    Value xv = owned_value(x, "a tuple element");
    xv = materialize_default(xv);
    if (!xv.ok()) return error_value(v.span);
    elems.push_back(xv.ty);
    v.refs.insert(v.refs.end(), xv.refs.begin(), xv.refs.end());
  }
  v.ty = elems.empty() ? Ty::unit() : Ty::tuple(std::move(elems));
  return v;
}

Value Lowerer::tensor_lit(const ast::TensorExpr& e) {
  Span at = span(e);
  auto lit = std::make_shared<WeakLit>();
  // Nested literals make matrices: `[[1, 2], [3, 4]]` is 2x2; every row has the same shape.
  std::function<std::optional<std::vector<std::uint64_t>>(const ast::TensorExpr&)> collect =
      [&](const ast::TensorExpr& t) -> std::optional<std::vector<std::uint64_t>> {
    std::optional<std::vector<std::uint64_t>> inner;
    std::uint64_t n = 0;
    Span first;
    for (const ast::Expr& x : t.elements()) {
      if (++n == 1) first = span(x);
      std::vector<std::uint64_t> here;
      if (auto sub = ast::cast<ast::TensorExpr>(x.syntax())) {
        auto r = collect(sub);
        if (!r) return std::nullopt;
        here = *r;
      } else {
        Value xv = expr(x);
        if (!xv.ok()) return std::nullopt;
        if (!xv.weak || !xv.lit->shape.empty()) {
          d_.error("E2090", "tensor literals hold number literals for now").primary(xv.span);
          return std::nullopt;
        }
        lit->elems.push_back(xv.lit->elems[0]);
      }
      if (!inner) {
        inner = here;
      } else if (*inner != here) {
        d_.error("E2116", "the rows of a tensor literal differ in shape").primary(span(x), "this row differs from the first")
            .secondary(first, "the first");
        return std::nullopt;
      }
    }
    std::vector<std::uint64_t> out{n};
    if (inner) out.insert(out.end(), inner->begin(), inner->end());
    return out;
  };
  auto got = collect(e);
  if (!got) return error_value(at);
  lit->shape = *got;
  return weak_value(std::move(lit), at);  // its dtype comes from where it is used, like a scalar's
}

Value Lowerer::block_value(const ast::BlockExpr& e, bool fn_body) {
  Nest nest(*this, span(e));
  if (!nest.ok()) return error_value(span(e));
  push_scope();
  for (const ast::Stmt& s : e.statements()) pure_stmt(s);
  Value v;
  if (auto tail = e.tail()) {
    v = fn_body ? owned_value(tail, "a function's result") : expr(tail);
  } else {
    v.ty = Ty::unit();
    v.span = span(e);
  }
  pop_scope();
  return v;
}

void Lowerer::pure_stmt(const ast::Stmt& s) {
  if (auto let = ast::cast<ast::LetStmt>(s.syntax())) {
    if (!let.init()) return;
    bool borrows = is_borrow_init(let.init());
    Value v = borrows ? expr(let.init()) : owned_value(let.init(), "a `let` binding");
    Ty want = let.type() ? resolve_type(let.type()) : Ty::error();
    v = want.is_tensor() ? materialize(v, want.tensor.dtype, want.tensor.space) : materialize_default(v);
    if (!v.ok()) {
      bind_pattern(let.pattern(), Ty::error(), {}, {}, false, span(let));
      return;
    }
    if (let.type() && !want.has_error() && !same_type(want, v.ty) &&
        !space_mismatch(want, v.ty, v.span, span(let.type()), "the `let` annotation")) {
      d_.error("E2101", "`let` declares " + want.to_string() + " but the value is " + v.ty.to_string())
          .primary(v.span, "this is " + v.ty.to_string())
          .secondary(span(let.type()), "declared here");
    }
    bind_pattern(let.pattern(), v.ty, {}, v.refs, false, span(let));
    if (auto ip = ast::cast<ast::IdentPat>(let.pattern().syntax()); ip && ip.name() && v.constant)
      if (Binding* b = lookup(ip.name().text())) b->constant = true;
    if (borrows)
      if (auto ip = ast::cast<ast::IdentPat>(let.pattern().syntax()); ip && ip.name()) bind_borrow(let.init(), std::string(ip.name().text()));
    return;
  }
  if (auto es = ast::cast<ast::ExprStmt>(s.syntax())) {
    (void)expr(es.expr());
    return;
  }
}

void Lowerer::bind_pattern(const ast::Pattern& p, const Ty& t, const std::vector<block::SlotId>& slots,
                           const std::vector<ValueRef>& refs, bool in_slots, Span at) {
  if (!p) return;
  if (auto ip = ast::cast<ast::IdentPat>(p.syntax())) {
    if (!ip.name()) return;
    Binding b{.ty = t, .refs = refs, .slots = slots, .in_slots = in_slots, .is_mut = static_cast<bool>(ip.mut_token()),
              .span = span(ip)};
    bind(std::string(ip.name().text()), std::move(b));
    return;
  }
  auto tp = ast::cast<ast::TuplePat>(p.syntax());
  if (!tp) return;  // `_`
  auto elems = tp.elements();
  if (!t.has_error() && (t.kind != TyKind::tuple || t.elems.size() != elems.size())) {
    d_.error("E2110", "this pattern has " + std::to_string(elems.size()) + " elements but the value is " + t.to_string())
        .primary(span(tp)).secondary(at, "value here");
  }
  bool fits = !t.has_error() && t.kind == TyKind::tuple && t.elems.size() == elems.size();
  std::size_t offset = 0;
  for (std::size_t i = 0; i < elems.size(); ++i) {
    if (!fits) {
      bind_pattern(elems[i], Ty::error(), {}, {}, in_slots, at);
      continue;
    }
    std::size_t n = t.elems[i].leaf_count();
    std::vector<block::SlotId> s;
    std::vector<ValueRef> r;
    if (in_slots) s.assign(slots.begin() + static_cast<std::ptrdiff_t>(offset), slots.begin() + static_cast<std::ptrdiff_t>(offset + n));
    else r.assign(refs.begin() + static_cast<std::ptrdiff_t>(offset), refs.begin() + static_cast<std::ptrdiff_t>(offset + n));
    bind_pattern(elems[i], t.elems[i], s, r, in_slots, at);
    offset += n;
  }
}

}  // namespace rung::frontend
