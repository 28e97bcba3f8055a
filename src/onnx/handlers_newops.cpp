// ONNX ops that map onto the registry ops added for the node tests (issue 19): rounding,
// inverse trigonometry, bit shifts, GatherElements and CumSum, each one rung op.
#include "onnx/handlers.h"

namespace rung::onnx_import {
namespace {

bool unary(NodeCtx& c, const char* op) { return need(c, 1) && out0(c, c.op(op, {c.in(0)})); }

bool bit_shift(NodeCtx& c) {
  if (!need(c, 2)) return false;
  std::string dir = c.attr_string("direction", "");
  if (dir == "LEFT") return out0(c, c.op("bit_shift", {c.in(0), c.in(1)}, {{"direction", AttrValue(std::string("left"))}}));
  if (dir == "RIGHT") return out0(c, c.op("bit_shift", {c.in(0), c.in(1)}, {{"direction", AttrValue(std::string("right"))}}));
  return c.fail("I0005", "BitShift needs direction \"LEFT\" or \"RIGHT\", not \"" + dir + "\"");
}

bool gather_elements(NodeCtx& c) {
  if (!need(c, 2)) return false;
  const Value& x = c.in(0);
  if (x.rank() == 0) return c.fail("I0005", "GatherElements from a scalar");
  auto ax = c.axis(c.attr_int("axis", 0), x.rank(), "axis");
  if (!ax) return false;
  std::optional<Value> idx = wrap_negative_indices(c, x, c.in(1), *ax, "GatherElements");
  return idx && out0(c, c.op("gather_elements", {x, *idx}, {{"axis", AttrValue(*ax)}}));
}

// CumSum's axis is an input: known at import (a constant or folded), else I0012.
bool cumsum(NodeCtx& c) {
  if (!need(c, 2)) return false;
  const Value& x = c.in(0);
  if (x.rank() == 0) return c.fail("I0005", "CumSum of a scalar");
  auto axes = c.known_ints(c.in(1), "the axis");
  if (!axes) return false;
  if (axes->size() != 1) return c.fail("I0005", "CumSum's axis must hold one value, not " + std::to_string(axes->size()));
  auto ax = c.axis((*axes)[0], x.rank(), "axis");
  if (!ax) return false;
  bool exclusive = c.attr_int("exclusive", 0) != 0, reverse = c.attr_int("reverse", 0) != 0;
  return out0(c, c.op("cumsum", {x}, {{"axis", AttrValue(*ax)}, {"exclusive", AttrValue(exclusive)}, {"reverse", AttrValue(reverse)}}));
}

}  // namespace

void add_newops_handlers(std::vector<Handler>& h) {
  auto u = [&](const char* onnx, int since, HandlerFn fn, const char* how) { h.push_back({onnx, since, kMaxOpset, fn, how}); };
  u("Floor", 6, [](NodeCtx& c) { return unary(c, "floor"); }, "floor");
  u("Ceil", 6, [](NodeCtx& c) { return unary(c, "ceil"); }, "ceil");
  u("Round", 11, [](NodeCtx& c) { return unary(c, "round"); }, "round");
  u("Asin", 7, [](NodeCtx& c) { return unary(c, "asin"); }, "asin");
  u("Acos", 7, [](NodeCtx& c) { return unary(c, "acos"); }, "acos");
  u("Atan", 7, [](NodeCtx& c) { return unary(c, "atan"); }, "atan");
  u("BitShift", 11, bit_shift, "bit_shift");
  u("CumSum", 11, cumsum, "cumsum (the axis known at import)");
  u("GatherElements", 11, gather_elements, "gather_elements (negative indices: lt, add, where)");
}

}  // namespace rung::onnx_import
