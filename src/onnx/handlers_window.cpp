// HannWindow, HammingWindow and BlackmanWindow (opset 17) as their ONNX function bodies
// compute them, in f32 and in that order: N = size (periodic) or size - 1, step = tau / N,
// angle = iota * step, y = a0 - a1 cos(angle) + a2 cos(2 angle), cast to output_datatype.
// The size must be known at import (it sets the output's extent); the whole window then
// folds to a constant when it fits the fold limit.
#include "onnx/dtypes.h"
#include "onnx/handlers.h"

namespace rung::onnx_import {
namespace {

using V = std::optional<Value>;

struct Coefficients {
  float a0, a1, a2;  // the function bodies' f32 constants; a2 = 0: no third term
};

bool window(NodeCtx& c, Coefficients k) {
  if (!need(c, 1)) return false;
  const Value& size = c.in(0);
  if (size.rank() != 0) return c.fail("I0005", "size must be a scalar, got " + size.type.to_string());
  bool periodic = c.attr_int("periodic", 1) != 0;
  auto to_code = c.attr_int("output_datatype", 1);  // FLOAT
  if (c.attr_error()) return false;
  auto to = dtype_of(static_cast<std::int32_t>(to_code));
  if (!to || *to == DType::boolean)
    return c.fail("I0007", "output_datatype " + onnx_type_name(static_cast<std::int32_t>(to_code)) + " is not supported");
  auto n = c.known_ints(size, "size (input 0)");
  if (!n) return false;
  if ((*n)[0] < 0 || (*n)[0] > (1 << 24))  // f32 counts exactly to 2^24
    return c.fail("I0005", "size " + std::to_string((*n)[0]) + " is outside [0, 2^24]");
  auto count = static_cast<std::uint64_t>((*n)[0]);
  auto f = [&](double v) { return c.scalar(DType::f32, v); };
  double denom = static_cast<double>(count) - (periodic ? 0 : 1);
  V step = c.op("div", {f(6.2831855f), f(denom)});  // the bodies' Tau, rounded to f32
  V i = c.op("iota", {}, {{"shape", AttrValue(Shape{Dim::fixed(count)})}, {"axis", AttrValue(std::int64_t{0})},
                          {"dtype", AttrValue(DType::f32)}});
  V angle = i && step ? c.op("mul", {*i, *step}) : V{};
  V cos1 = angle ? c.op("cos", {*angle}) : V{};
  V t1 = cos1 ? c.op("mul", {f(k.a1), *cos1}) : V{};
  V y = t1 ? c.op("sub", {f(k.a0), *t1}) : V{};
  if (y && k.a2 != 0) {  // with a2 = 0 the body adds 0 * cos(2 angle) = +-0, which changes nothing
    V two = c.op("mul", {*angle, f(2)});
    V cos2 = two ? c.op("cos", {*two}) : V{};
    V t2 = cos2 ? c.op("mul", {f(k.a2), *cos2}) : V{};
    y = t2 ? c.op("add", {*y, *t2}) : V{};
  }
  return y && out0(c, cast_to(c, *y, *to));
}

}  // namespace

void add_window_handlers(std::vector<Handler>& h) {
  const char* how = "iota, mul, cos, sub (size known at import; folded)";
  h.push_back({"HannWindow", 17, kMaxOpset, [](NodeCtx& c) { return window(c, {0.5f, 0.5f, 0.0f}); }, how});
  h.push_back({"HammingWindow", 17, kMaxOpset,
               [](NodeCtx& c) { return window(c, {25.0f / 46.0f, 21.0f / 46.0f, 0.0f}); }, how});
  h.push_back({"BlackmanWindow", 17, kMaxOpset, [](NodeCtx& c) { return window(c, {0.42f, 0.5f, 0.08f}); },
               "iota, mul, cos, sub, add (size known at import; folded)"});
}

}  // namespace rung::onnx_import
