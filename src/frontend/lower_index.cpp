// Indexing and slicing, `x[...]`, with Python/NumPy's meaning (docs/language.md, "Indexing
// and slicing"). Literal slices and literal positions become one `slice` op (a position i
// is the slice i:i+1, its axis then dropped by a `reshape`); a run-time position (an integer
// scalar such as a loop variable) is a `gather` with a rank-0 index, which drops its axis
// and checks the index when it runs.
#include <algorithm>
#include <optional>

#include "frontend/lowerer.h"
#include "ops/registry.h"
#include "ops/slice_bounds.h"

namespace rung::frontend {

namespace {

// An untyped integer literal's exact value (nullopt for anything else, or one past int64:
// the callers report that one as E2121 through materialize).
std::optional<std::int64_t> literal_integer(const Value& v) {
  if (!v.ok() || !v.weak || v.weak_float) return std::nullopt;
  return v.integer();
}

// The integer literal n (exact: a leaf and, for a negative n, its sign).
std::shared_ptr<const WeakLit> integer_literal(std::int64_t n, Span at) {
  auto magnitude = n < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n);
  WeakNumPtr leaf = weak_int_leaf(magnitude, at);
  if (n < 0) leaf = weak_negate(leaf, at);
  return std::make_shared<const WeakLit>(WeakLit{{}, {std::move(leaf)}});
}

}  // namespace

Value Lowerer::index(const ast::IndexExpr& e) {
  Span at = span(e);
  Value base = expr(e.base());
  if (!base.ok() || !e.index_list()) return error_value(at);
  if (!base.ty.is_tensor()) {
    d_.error("E2104", "only tensors are indexed, not " + base.ty.to_string()).primary(base.span, "this is " + base.ty.to_string());
    return error_value(at);
  }
  const Shape& shape = base.ty.tensor.shape;
  std::vector<syntax::SyntaxNode> items;
  for (const syntax::SyntaxNode& item : e.index_list().items()) items.push_back(item);
  if (items.size() > shape.size()) {
    d_.error("E2102", std::to_string(items.size()) + " indices for a tensor of rank " + std::to_string(shape.size()))
        .primary(span(e.index_list()), "indices").secondary(base.span, "this is " + base.ty.to_string());
    return error_value(at);
  }
  std::vector<std::int64_t> starts, ends, axes, steps;
  std::vector<std::size_t> dropped;               // axes a literal position removes (after the slice)
  std::vector<std::pair<std::size_t, Value>> picks;  // axes a run-time position removes (gather)
  // A slice bound or step: an integer literal, or omitted (`dflt`).
  auto bound = [&](const ast::Expr& x, std::int64_t dflt, std::int64_t& out) -> bool {
    if (!x) {
      out = dflt;
      return true;
    }
    Value v = expr(x);
    if (auto k = literal_integer(v)) {
      out = *k;
      return true;
    }
    if (v.ok() && v.weak && !v.weak_float) return (void)materialize(v, DType::i64), false;  // past int64: E2121
    if (v.ok())
      d_.error("E2132", "slice bounds and steps are integer literals").primary(span(x), "this is " + v.ty.to_string())
          .note("a slice's length must be known when the program is built; a run-time position indexes one element: x[i]");
    return false;
  };
  for (std::size_t axis = 0; axis < items.size(); ++axis) {
    const Dim& dim = shape[axis];
    if (auto sl = ast::cast<ast::Slice>(items[axis])) {
      if (!sl.start() && !sl.stop() && !sl.step()) continue;  // `:` keeps the whole axis (symbolic extents too)
      std::int64_t st = 1, s0 = 0, s1 = 0;
      if (!bound(sl.step(), 1, st)) return error_value(at);
      if (st == 0) {
        d_.error("E2130", "slice step is zero").primary(span(sl.step()), "step 0")
            .note("a step is a non-zero integer: negative steps walk the axis backwards");
        return error_value(at);
      }
      // An omitted bound is Python's None: the int64 extreme on its side of the step.
      if (!bound(sl.start(), ops::omitted_start(st), s0) || !bound(sl.stop(), ops::omitted_end(st), s1)) return error_value(at);
      starts.push_back(s0), ends.push_back(s1), steps.push_back(st), axes.push_back(static_cast<std::int64_t>(axis));
      continue;
    }
    auto ix = ast::cast<ast::Expr>(items[axis]);
    Value v = expr(ix);
    if (!v.ok()) return error_value(at);
    if (auto k = literal_integer(v)) {
      if (dim.is_static()) {  // checked now: -n <= k < n
        auto n = static_cast<std::int64_t>(std::min<std::uint64_t>(dim.extent(), static_cast<std::uint64_t>(ops::kSliceMax)));
        if (*k < -n || *k >= n) {
          d_.error("E2131", "index " + std::to_string(*k) + " is out of range for axis " + std::to_string(axis) + " of extent " +
                                std::to_string(n))
              .primary(span(ix), "out of range").secondary(base.span, "this is " + base.ty.to_string())
              .note(n == 0 ? "an axis of extent 0 has no elements to index"
                           : "an index is in " + std::to_string(-n) + ".." + std::to_string(n - 1) + "; a negative one counts from the end");
          return error_value(at);
        }
        std::int64_t i = *k < 0 ? *k + n : *k;
        starts.push_back(i), ends.push_back(i + 1), steps.push_back(1), axes.push_back(static_cast<std::int64_t>(axis));
        dropped.push_back(axis);
        continue;
      }
      if (*k < 0) {
        d_.error("E2131", "a negative index of the symbolic dim " + dim.to_string() + " (axis " + std::to_string(axis) + ")")
            .primary(span(ix)).secondary(base.span, "this is " + base.ty.to_string())
            .note("counting from the end needs the extent; give the dim a static extent or index from the front");
        return error_value(at);
      }
      picks.emplace_back(axis, materialize(v, DType::i64));  // checked against the bound extent when it runs
      continue;
    }
    if (v.weak && !v.weak_float) return (void)materialize(v, DType::i64), error_value(at);  // past int64: E2121
    if (v.weak || !v.ty.is_tensor() || v.ty.tensor.rank() != 0 || !dtype_info(v.ty.tensor.dtype).is_integer) {
      d_.error("E2132", "an index is an integer literal or an integer scalar, not " + v.ty.to_string())
          .primary(span(ix), "this is " + v.ty.to_string());
      return error_value(at);
    }
    picks.emplace_back(axis, v);
  }

  Value v = base;
  v.span = at;
  if (!axes.empty()) {
    AttrMap attrs{{"starts", AttrValue(starts)}, {"ends", AttrValue(ends)}, {"axes", AttrValue(axes)}, {"steps", AttrValue(steps)}};
    v = apply_op(*ops::op_registry().find("slice"), {v}, attrs, at, at);
    if (!v.ok()) return v;
  }
  Shape kept;  // the result's shape: the positions' axes gone
  for (std::size_t d = 0; d < v.ty.tensor.rank(); ++d)
    if (std::find(dropped.begin(), dropped.end(), d) == dropped.end() &&
        std::none_of(picks.begin(), picks.end(), [&](const auto& p) { return p.first == d; }))
      kept.push_back(v.ty.tensor.shape[d]);
  // Run-time positions, the last axis first so the earlier axis numbers stay put.
  for (auto it = picks.rbegin(); it != picks.rend(); ++it) {
    auto [axis, i] = *it;
    if (!i.ok()) return error_value(at);
    const Dim& dim = shape[axis];
    if (dim.is_static() && dtype_info(i.ty.tensor.dtype).is_signed) i = python_position(i, static_cast<std::int64_t>(dim.extent()));
    if (!i.ok()) return error_value(at);
    v = apply_op(*ops::op_registry().find("gather"), {v, i}, AttrMap{{"axis", AttrValue(static_cast<std::int64_t>(axis))}}, at, at);
    if (!v.ok()) return v;
  }
  if (!dropped.empty()) v = apply_op(*ops::op_registry().find("reshape"), {v}, AttrMap{{"shape", AttrValue(kept)}}, at, at);
  return v;
}

// i + n where -n <= i < 0, else i: Python's negative positions. An index out of range keeps
// the value the program computed, so the gather's run-time error names that value.
Value Lowerer::python_position(const Value& i, std::int64_t n) {
  const auto& reg = ops::op_registry();
  Span at = i.span;
  auto weak_integer = [&](std::int64_t k, Span where) { return weak_value(integer_literal(k, where), where); };
  Value neg = apply_op(*reg.find("lt"), {i, weak_integer(0, at)}, {}, at, at);
  Value in_range = apply_op(*reg.find("ge"), {i, weak_integer(-n, at)}, {}, at, at);
  Value wrap = apply_op(*reg.find("logical_and"), {neg, in_range}, {}, at, at);
  Value shifted = apply_op(*reg.find("add"), {i, weak_integer(n, at)}, {}, at, at);
  return apply_op(*reg.find("where"), {wrap, shifted, i}, {}, at, at);
}

}  // namespace rung::frontend
