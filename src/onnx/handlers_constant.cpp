// Values known at import: Constant, Shape, Size and ConstantOfShape fold to constants (Shape
// and Size need static dims: I0012 otherwise); Cast, CastLike, Identity and Range.
#include <cmath>

#include "onnx/dtypes.h"
#include "onnx/handlers.h"

namespace rung::onnx_import {
namespace {

using V = std::optional<Value>;

bool constant(NodeCtx& c) {
  int given = 0;
  for (const char* a : {"value", "sparse_value", "value_float", "value_floats", "value_int", "value_ints", "value_string", "value_strings"})
    given += c.has_attr(a);
  if (given != 1) return c.fail("I0005", "a Constant needs exactly one value attribute, it has " + std::to_string(given));
  if (c.has_attr("sparse_value")) return c.fail("I0005", "sparse_value is not supported");
  if (c.has_attr("value_string") || c.has_attr("value_strings")) return c.fail("I0007", "string tensors are not supported");
  if (const auto* t = c.attr_tensor("value")) {
    auto v = c.converter().reader.read(*t, c.place() + ".attribute \"value\"");
    if (!v) return false;
    c.set(0, c.constant(std::move(*v)));
    return true;
  }
  if (c.has_attr("value_float")) return (c.set(0, c.scalar(DType::f32, c.attr_float("value_float", 0))), true);
  if (c.has_attr("value_int")) {
    ops::HostTensor t = ops::HostTensor::from_i64({}, std::vector<std::int64_t>{c.attr_int("value_int", 0)});
    return (c.set(0, c.constant(std::move(t))), true);
  }
  if (auto fs = c.attr_floats("value_floats")) {
    ops::HostTensor t = ops::HostTensor::from_f32({fs->size()}, *fs);
    return (c.set(0, c.constant(std::move(t))), true);
  }
  if (auto is = c.attr_ints("value_ints")) {
    ops::HostTensor t = ops::HostTensor::from_i64({is->size()}, *is);
    return (c.set(0, c.constant(std::move(t))), true);
  }
  return false;  // a wrong attribute type, reported by the reader
}

bool shape(NodeCtx& c) {
  if (!need(c, 1)) return false;
  auto dims = c.static_shape(c.in(0), "the input of Shape");
  if (!dims) return false;
  auto r = static_cast<std::int64_t>(dims->size());
  std::int64_t b = c.opset() >= 15 ? c.attr_int("start", 0) : 0, e = c.opset() >= 15 ? c.attr_int("end", r) : r;
  auto clampi = [&](std::int64_t v) { return std::clamp<std::int64_t>(v < 0 ? v + r : v, 0, r); };
  b = clampi(b), e = clampi(e);
  std::vector<std::int64_t> out;
  for (std::int64_t i = b; i < e; ++i) out.push_back(static_cast<std::int64_t>((*dims)[static_cast<std::size_t>(i)]));
  c.set(0, c.constant(ops::HostTensor::from_i64({out.size()}, out)));
  return true;
}

bool size(NodeCtx& c) {
  if (!need(c, 1)) return false;
  auto n = c.in(0).type.element_count();
  if (!n) return c.fail("I0012", "Size of " + c.in(0).type.to_string() + " (symbolic dims)");
  c.set(0, c.constant(ops::HostTensor::from_i64({}, std::vector<std::int64_t>{static_cast<std::int64_t>(*n)})));
  return true;
}

bool constant_of_shape(NodeCtx& c) {
  if (!need(c, 1)) return false;
  auto dims = c.known_ints(c.in(0), "the shape (input 0)");
  if (!dims) return false;
  Value fill = c.scalar(DType::f32, 0);
  if (const auto* t = c.attr_tensor("value")) {
    auto v = c.converter().reader.read(*t, c.place() + ".attribute \"value\"");
    if (!v) return false;
    if (v->numel() != 1) return c.fail("I0005", "the value must hold one element, it holds " + std::to_string(v->numel()));
    ops::HostTensor s(v->dtype(), {});
    std::copy(v->bytes().begin(), v->bytes().end(), s.bytes().begin());
    fill = c.constant(std::move(s));
  } else if (c.attr_error()) {
    return false;
  }
  Shape s;
  for (auto d : *dims) {
    if (d < 0) return c.fail("I0006", "the shape holds " + std::to_string(d));
    s.push_back(Dim::fixed(static_cast<std::uint64_t>(d)));
  }
  // Folded when small (broadcast_to of known values); past the fold limit it stays a graph op.
  return out0(c, c.op("broadcast_to", {fill}, {{"shape", AttrValue(s)}}));
}

bool cast(NodeCtx& c) {
  if (!need(c, 1)) return false;
  if (!c.has_attr("to")) return c.fail("I0005", "the attribute to is required");
  auto to = c.attr_int("to", 0);
  auto dt = dtype_of(static_cast<std::int32_t>(to));
  if (!dt) return c.fail("I0007", "Cast to " + onnx_type_name(static_cast<std::int32_t>(to)) + " is not supported");
  return out0(c, cast_to(c, c.in(0), *dt));
}

bool cast_like(NodeCtx& c) { return need(c, 2) && out0(c, cast_to(c, c.in(0), c.in(1).type.dtype)); }

bool identity(NodeCtx& c) { return need(c, 1) && out0(c, c.in(0)); }

bool range(NodeCtx& c) {
  if (!need(c, 3)) return false;
  DType dt = c.in(0).type.dtype;
  double v[3];
  for (std::size_t i = 0; i < 3; ++i) {
    if (c.in(i).rank() != 0 || c.in(i).type.dtype != dt) return c.fail("I0005", "start, limit and delta must be scalars of one dtype");
    auto r = c.known_reals(c.in(i), i == 0 ? "start" : i == 1 ? "limit" : "delta");
    if (!r) return false;
    v[i] = (*r)[0];
    if (!dtype_info(dt).is_float && std::fabs(v[i]) > 9007199254740992.0)
      return c.fail("I0005", "integer bounds beyond 2^53 (rung's arange takes reals)");
  }
  if (v[2] == 0) return c.fail("I0005", "delta is 0");
  return out0(c, c.op("arange", {}, {{"start", AttrValue(v[0])}, {"stop", AttrValue(v[1])}, {"step", AttrValue(v[2])},
                                     {"dtype", AttrValue(dt)}}));
}

}  // namespace

void add_constant_handlers(std::vector<Handler>& h) {
  h.push_back({"Constant", 1, kMaxOpset, constant, "const"});
  h.push_back({"Shape", 1, kMaxOpset, shape, "folded to a const (start/end from 15)"});
  h.push_back({"Size", 1, kMaxOpset, size, "folded to a const"});
  h.push_back({"ConstantOfShape", 9, kMaxOpset, constant_of_shape, "broadcast_to of the value (folded when small)"});
  h.push_back({"Cast", 6, kMaxOpset, cast, "cast"});
  h.push_back({"CastLike", 15, kMaxOpset, cast_like, "cast"});
  h.push_back({"Identity", 1, kMaxOpset, identity, "(the input itself)"});
  h.push_back({"Range", 11, kMaxOpset, range, "arange (bounds known at import)"});
}

}  // namespace rung::onnx_import
