// Expressions to GraphIR nodes, with their types checked on the way: every op goes through
// ops::infer_types, the registry's one type checker (broadcasting, symbolic dims).
#include <cstring>
#include <functional>

#include "frontend/lowerer.h"
#include "ops/registry.h"
#include "ops/typing.h"
#include "syntax/literal.h"

namespace rung::frontend {

using syntax::SyntaxKind;

Value Lowerer::expr(const ast::Expr& e) {
  if (!e) return error_value(Span{src_, 0, 0});
  Span at = span(e);
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
      if (auto n = syntax::int_value(tok.text())) {
        v.ty = Ty::of(TensorType{DType::i64, {}});
        v.weak = true;
        v.number = static_cast<double>(*n);
      }
      return v;  // malformed: the lexer reported it
    case SyntaxKind::FLOAT_NUMBER:
      if (auto n = syntax::float_value(tok.text())) {
        v.ty = Ty::of(TensorType{DType::f32, {}});
        v.weak = v.weak_float = true;
        v.number = *n;
      }
      return v;
    case SyntaxKind::TRUE_KW:
    case SyntaxKind::FALSE_KW: return constant_scalar(DType::boolean, tok.kind() == SyntaxKind::TRUE_KW ? 1 : 0, v.span);
    case SyntaxKind::STRING:
      if (auto s = syntax::string_value(tok.text())) {
        v.ty = Ty::string();
        v.text = *s;
      }
      return v;
    default: return v;
  }
}

Value Lowerer::constant_scalar(DType dt, double x, Span at, MemSpace space) {
  Bytes bytes;
  auto put = [&](const void* p, std::size_t n) {
    const auto* c = static_cast<const std::uint8_t*>(p);
    bytes.insert(bytes.end(), c, c + n);  // hosts are little-endian (checked at configure time)
  };
  switch (dt) {
    case DType::f32: { float f = static_cast<float>(x); put(&f, 4); break; }
    case DType::f64: put(&x, 8); break;
    case DType::i64: { auto i = static_cast<std::int64_t>(x); put(&i, 8); break; }
    case DType::i32: { auto i = static_cast<std::int32_t>(x); put(&i, 4); break; }
    case DType::i16: { auto i = static_cast<std::int16_t>(x); put(&i, 2); break; }
    case DType::i8: { auto i = static_cast<std::int8_t>(x); put(&i, 1); break; }
    case DType::u64: { auto i = static_cast<std::uint64_t>(x); put(&i, 8); break; }
    case DType::u32: { auto i = static_cast<std::uint32_t>(x); put(&i, 4); break; }
    case DType::u16: { auto i = static_cast<std::uint16_t>(x); put(&i, 2); break; }
    case DType::u8:
    case DType::boolean: { auto i = static_cast<std::uint8_t>(x); put(&i, 1); break; }
    default:
      d_.error("E2090", std::string("literals of type ") + std::string(dtype_name(dt)) + " are not supported yet")
          .primary(at).note("write the literal as f32 and convert it with cast(x, to: ...)");
      return error_value(at);
  }
  Value v;
  v.ty = Ty::of(TensorType{dt, {}, space});
  v.constant = true;
  v.refs = {b_.constant(v.ty.tensor, std::move(bytes))};
  v.span = at;
  return v;
}

Value Lowerer::materialize(Value v, DType dt, MemSpace space) {
  if (!v.weak) return v;
  if (v.weak_float && !dtype_info(dt).is_float) dt = DType::f32;
  return constant_scalar(dt, v.number, v.span, space);
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
    Value v;
    v.ty = Ty::of(TensorType{DType::i64, {}});
    v.weak = true;
    v.number = static_cast<double>(it->second.extent());
    v.span = at;
    return v;
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
  DType hint = DType::f32;
  MemSpace space = MemSpace::host;
  for (const auto& a : args)
    if (!a.weak && a.ty.is_tensor()) {
      hint = a.ty.tensor.dtype;
      break;
    }
  bool constant = true;
  for (const auto& a : args)
    if (!a.weak && !a.constant && a.ty.is_tensor()) {
      space = a.ty.tensor.space, constant = false;
      break;
    }
  if (!same_space(args, op_span.valid() ? op_span : at)) return error_value(at);
  std::vector<TensorType> types;
  std::vector<ValueRef> refs;
  for (auto& a : args) {
    if (!a.ok()) return error_value(at);
    if (a.weak) a = materialize(a, hint, space);
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
  Value l = expr(e.lhs()), r = expr(e.rhs());
  if (!opname || !l.ok() || !r.ok()) return error_value(at);
  // Two untyped literals fold (arithmetic only).
  if (l.weak && r.weak && tok.kind() != SyntaxKind::AT) {
    Value v = l;
    v.span = at;
    v.weak_float = l.weak_float || r.weak_float;
    switch (tok.kind()) {
      case SyntaxKind::PLUS: v.number = l.number + r.number; return v;
      case SyntaxKind::MINUS: v.number = l.number - r.number; return v;
      case SyntaxKind::STAR: v.number = l.number * r.number; return v;
      case SyntaxKind::SLASH:
        if (v.weak_float) {
          v.number = l.number / r.number;
          return v;
        }
        break;
      default: break;
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
  if (minus && v.weak) {
    v.number = -v.number;
    v.span = at;
    return v;
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

Value Lowerer::index(const ast::IndexExpr& e) {
  Span at = span(e);
  Value base = expr(e.base());
  if (!base.ok() || !e.index_list()) return error_value(at);
  std::vector<std::int64_t> starts, ends, axes, steps;
  auto number = [&](const ast::Expr& x, std::int64_t dflt, std::int64_t& out) -> bool {
    if (!x) {
      out = dflt;
      return true;
    }
    Value v = expr(x);
    if (!v.weak || v.weak_float) {
      if (v.ok()) d_.error("E2090", "indices and slice bounds are integer literals for now").primary(span(x));
      return false;
    }
    out = static_cast<std::int64_t>(v.number);
    return true;
  };
  std::int64_t axis = 0;
  std::vector<std::int64_t> dropped;  // axes indexed by a single position: removed after slicing
  for (const syntax::SyntaxNode& item : e.index_list().items()) {
    auto sl = ast::cast<ast::Slice>(item);
    if (!sl) {  // `x[i]`: the slice i:i+1, then the axis goes
      std::int64_t i = 0;
      if (!number(ast::cast<ast::Expr>(item), 0, i)) return error_value(at);
      starts.push_back(i), ends.push_back(i == -1 ? std::int64_t{1} << 62 : i + 1), steps.push_back(1), axes.push_back(axis);
      dropped.push_back(axis++);
      continue;
    }
    if (!sl.start() && !sl.stop() && !sl.step()) {  // `:` keeps the whole axis (symbolic extents too)
      ++axis;
      continue;
    }
    std::int64_t s0, s1, st;
    if (!number(sl.start(), 0, s0) || !number(sl.stop(), std::int64_t{1} << 62, s1) || !number(sl.step(), 1, st))
      return error_value(at);
    starts.push_back(s0), ends.push_back(s1), steps.push_back(st), axes.push_back(axis++);
  }
  const ops::OpDef* op = ops::op_registry().find("slice");
  AttrMap attrs{{"starts", AttrValue(starts)}, {"ends", AttrValue(ends)}, {"axes", AttrValue(axes)}, {"steps", AttrValue(steps)}};
  if (base.ty.is_tensor() && static_cast<std::size_t>(axis) > base.ty.tensor.rank()) {
    d_.error("E2102", std::to_string(axis) + " indices for a tensor of rank " + std::to_string(base.ty.tensor.rank()))
        .primary(span(e.index_list()), "indices").secondary(base.span, "this is " + base.ty.to_string());
    return error_value(at);
  }
  if (axes.empty()) {  // only `:`s: the value itself
    base.span = at;
    return base;
  }
  Value v = apply_op(*op, {base}, attrs, at, at);
  if (dropped.empty() || !v.ok() || !v.ty.is_tensor()) return v;
  Shape kept;
  for (std::size_t k = 0; k < v.ty.tensor.rank(); ++k)
    if (std::find(dropped.begin(), dropped.end(), static_cast<std::int64_t>(k)) == dropped.end()) kept.push_back(v.ty.tensor.shape[k]);
  const ops::OpDef* reshape = ops::op_registry().find("reshape");
  return apply_op(*reshape, {v}, AttrMap{{"shape", AttrValue(kept)}}, at, at);
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
    if (xv.weak) xv = materialize(xv, xv.weak_float ? DType::f32 : DType::i64);
    if (!xv.ok()) return error_value(v.span);
    elems.push_back(xv.ty);
    v.refs.insert(v.refs.end(), xv.refs.begin(), xv.refs.end());
  }
  v.ty = elems.empty() ? Ty::unit() : Ty::tuple(std::move(elems));
  return v;
}

Value Lowerer::tensor_lit(const ast::TensorExpr& e) {
  Span at = span(e);
  std::vector<double> nums;
  bool any_float = false;
  // Nested literals make matrices: `[[1, 2], [3, 4]]` is 2x2; every row has the same shape.
  std::vector<std::uint64_t> shape;
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
        if (!xv.weak) {
          d_.error("E2090", "tensor literals hold number literals for now").primary(xv.span);
          return std::nullopt;
        }
        any_float = any_float || xv.weak_float;
        nums.push_back(xv.number);
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
  std::vector<Dim> dims;
  for (auto n : *got) dims.push_back(Dim::fixed(n));
  TensorType t{any_float ? DType::f32 : DType::i64, dims};
  Bytes bytes;
  for (double n : nums) {
    std::uint8_t buf[8];
    if (any_float) {
      float f = static_cast<float>(n);
      std::memcpy(buf, &f, 4);
      bytes.insert(bytes.end(), buf, buf + 4);
    } else {
      auto i = static_cast<std::int64_t>(n);
      std::memcpy(buf, &i, 8);
      bytes.insert(bytes.end(), buf, buf + 8);
    }
  }
  Value v;
  v.ty = Ty::of(t);
  v.refs = {b_.constant(t, std::move(bytes))};
  v.span = at;
  v.constant = true;
  return v;
}

Value Lowerer::block_value(const ast::BlockExpr& e, bool fn_body) {
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
    if (v.weak) v = materialize(v, want.is_tensor() ? want.tensor.dtype : (v.weak_float ? DType::f32 : DType::i64));
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
