// `zeros(shape)`, `ones(shape)` and `full(shape, value)`: a scalar broadcast to a shape (the
// registry's `broadcast_to`, so `full` of a variable has a gradient). `dtype:` names the
// element type; without it zeros and ones are f32 and full takes its value's type (a
// literal's by the literal rule: `full([2], 3)` is i64, `full([2], 0.5)` f32).
#include "frontend/lowerer.h"
#include "ir/graph/dtype.h"
#include "ops/registry.h"

namespace rung::frontend {

bool Lowerer::is_constructor(std::string_view name) { return name == "zeros" || name == "ones" || name == "full"; }

Value Lowerer::constructor(const CallSite& site, const std::vector<ast::Expr>& positional,
                           const std::vector<ast::NamedArg>& named) {
  const std::string& name = site.name;
  Span at = site.at;
  std::size_t want = name == "full" ? 2 : 1;
  std::string usage = name == "full" ? "full([3, 4], 0.5) or full([3], 7, dtype: i32)" : name + "([3, 4]) or " + name + "([3], dtype: i32)";
  if (positional.size() != want) {
    d_.error("E2006", "`" + name + "` takes " + (want == 2 ? "a shape and a value" : std::string("a shape")) + ", got " +
                          std::to_string(positional.size()) + " arguments")
        .primary(at).note(usage);
    return error_value(at);
  }
  std::optional<DType> dtype;
  for (const ast::NamedArg& a : named) {
    if (!a.name() || !a.value()) return error_value(at);  // a syntax error, already reported
    if (a.name().text() != "dtype" || dtype) {
      d_.error("E2007", a.name().text() == "dtype" ? "attribute `dtype` is given twice"
                                                    : "`" + name + "` has no attribute `" + std::string(a.name().text()) + "`")
          .primary(span(a.name())).note("attributes of " + name + ": dtype");
      return error_value(at);
    }
    auto v = attr_from_ast(AttrKind::dtype, a.value(), "`dtype` of `" + name + "`", "dtype (f32, i64, ...)", src_, d_);
    if (!v) return error_value(at);
    dtype = v->as<DType>();
  }
  auto shape_attr = attr_from_ast(AttrKind::shape, positional[0], "the shape of `" + name + "`", "list of dimensions ([3, 4], [B, 4])",
                                  src_, d_);
  if (!shape_attr) return error_value(at);
  Shape shape = shape_attr->as<Shape>();
  for (auto& dim : shape)  // in a generic function its dims take their extents at this call
    if (!dim.is_static())
      if (auto it = dim_env_.find(dim.name()); it != dim_env_.end()) dim = it->second;

  Value v = name == "full" ? expr(positional[1])
                           : weak_value(std::make_shared<WeakLit>(WeakLit{{}, {weak_int_leaf(name == "ones" ? 1 : 0, at)}}), at);
  if (!v.ok()) return error_value(at);
  if (!v.ty.is_tensor() || v.ty.tensor.rank() != 0) {
    d_.error("E2104", "the value of `full` is a scalar, not " + v.ty.to_string()).primary(v.span, "this is " + v.ty.to_string());
    return error_value(at);
  }
  if (v.weak && name != "full" && dtype == DType::boolean) {
    v = constant_bool(name == "ones", at);  // zeros/ones of bool: false/true
  } else if (v.weak) {
    v = materialize(v, dtype ? *dtype : name == "full" ? default_literal_dtype(*v.lit) : DType::f32);
    if (!v.ok()) return error_value(at);
  } else if (dtype && v.ty.tensor.dtype != *dtype) {
    d_.error("E2103", "the value of `full` is " + v.ty.to_string() + " but `dtype` says " + std::string(dtype_name(*dtype)))
        .primary(v.span, "this is " + v.ty.to_string())
        .note("convert it first: cast(x, to: " + std::string(dtype_name(*dtype)) + ")");
    return error_value(at);
  }
  const ops::OpDef* op = ops::op_registry().find("broadcast_to");
  return apply_op(*op, {v}, AttrMap{{"shape", AttrValue(shape)}}, at, site.callee);
}

}  // namespace rung::frontend
