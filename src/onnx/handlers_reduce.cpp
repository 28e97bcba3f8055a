// Reductions: ONNX's keepdims defaults to 1; absent axes reduce every axis; ReduceSum takes
// its axes as an input from opset 13 (with noop_with_empty_axes); ArgMax/ArgMin's
// select_last_index runs the reduction over the reversed axis.
#include <algorithm>
#include <limits>

#include "onnx/handlers.h"

namespace rung::onnx_import {
namespace {

using V = std::optional<Value>;

// Axes normalised against the rank (I0005 for one outside or repeated); absent: all axes.
std::optional<std::vector<std::int64_t>> axes_of(NodeCtx& c, const std::optional<std::vector<std::int64_t>>& given,
                                                 std::size_t rank) {
  std::vector<std::int64_t> out;
  if (!given) {
    for (std::size_t i = 0; i < rank; ++i) out.push_back(static_cast<std::int64_t>(i));
    return out;
  }
  for (auto a : *given) {
    auto ax = c.axis(a, rank, "axis");
    if (!ax) return std::nullopt;
    if (std::find(out.begin(), out.end(), *ax) != out.end()) {
      c.fail("I0005", "axis " + std::to_string(a) + " is listed twice");
      return std::nullopt;
    }
    out.push_back(*ax);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// `pre` (abs, square or none) then the reduction, then `post` (sqrt, log or none).
bool reduce(NodeCtx& c, const char* pre, const char* op, const char* post, bool axes_input) {
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  bool keep = c.attr_int("keepdims", 1) != 0;
  std::optional<std::vector<std::int64_t>> given;
  if (axes_input) {
    bool noop = c.attr_int("noop_with_empty_axes", 0) != 0;
    if (c.has(1)) {
      given = c.known_ints(c.in(1), "the axes (input 1)");
      if (!given) return false;
    }
    if (given && given->empty()) given.reset();
    if (!given && noop) return out0(c, x);
  } else {
    given = c.attr_ints("axes");
    if (c.attr_error()) return false;
  }
  auto axes = axes_of(c, given, x.rank());
  if (!axes) return false;
  V v = x;
  if (pre) v = c.op(pre, {x});
  if (v) v = c.op(op, {*v}, {{"axes", AttrValue(*axes)}, {"keepdims", AttrValue(keep)}});
  if (v && post) v = c.op(post, {*v});
  return out0(c, v);
}

bool arg(NodeCtx& c, const char* op) {
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  bool keep = c.attr_int("keepdims", 1) != 0;
  auto ax = c.axis(c.attr_int("axis", 0), x.rank(), "axis");
  if (!ax) return false;
  bool last = c.attr_int("select_last_index", 0) != 0;
  if (c.opset() < 12 && last) return c.fail("I0005", "select_last_index exists from opset 12");
  AttrMap attrs{{"axis", AttrValue(*ax)}, {"keepdims", AttrValue(keep)}};
  if (!last) return out0(c, c.op(op, {x}, attrs));
  // The last extreme is the first of the reversed axis: i = (n - 1) - i_reversed.
  const Dim& d = x.type.shape[static_cast<std::size_t>(*ax)];
  if (!d.is_static()) return c.fail("I0012", "select_last_index over the symbolic dim " + d.name());
  V rev = c.op("slice", {x}, {{"starts", AttrValue(std::vector<std::int64_t>{-1})},
                              {"ends", AttrValue(std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::min()})},
                              {"axes", AttrValue(std::vector<std::int64_t>{*ax})},
                              {"steps", AttrValue(std::vector<std::int64_t>{-1})}});
  V i = rev ? c.op(op, {*rev}, attrs) : V{};
  if (!i) return false;
  return out0(c, c.op("sub", {c.scalar(DType::i64, static_cast<double>(d.extent()) - 1), *i}));
}

}  // namespace

void add_reduce_handlers(std::vector<Handler>& h) {
  h.push_back({"ReduceSum", 1, 12, [](NodeCtx& c) { return reduce(c, nullptr, "sum", nullptr, false); }, "sum"});
  h.push_back({"ReduceSum", 13, kMaxOpset, [](NodeCtx& c) { return reduce(c, nullptr, "sum", nullptr, true); }, "sum (axes input)"});
  h.push_back({"ReduceMean", 1, kMaxOpset, [](NodeCtx& c) { return reduce(c, nullptr, "mean", nullptr, false); }, "mean"});
  h.push_back({"ReduceMax", 1, kMaxOpset, [](NodeCtx& c) { return reduce(c, nullptr, "max", nullptr, false); }, "max"});
  h.push_back({"ReduceMin", 1, kMaxOpset, [](NodeCtx& c) { return reduce(c, nullptr, "min", nullptr, false); }, "min"});
  h.push_back({"ReduceProd", 1, kMaxOpset, [](NodeCtx& c) { return reduce(c, nullptr, "prod", nullptr, false); }, "prod"});
  h.push_back({"ReduceLogSumExp", 1, kMaxOpset, [](NodeCtx& c) { return reduce(c, nullptr, "logsumexp", nullptr, false); },
               "logsumexp"});
  h.push_back({"ReduceL1", 1, kMaxOpset, [](NodeCtx& c) { return reduce(c, "abs", "sum", nullptr, false); }, "abs, sum"});
  h.push_back({"ReduceL2", 1, kMaxOpset, [](NodeCtx& c) { return reduce(c, "square", "sum", "sqrt", false); }, "square, sum, sqrt"});
  h.push_back({"ReduceSumSquare", 1, kMaxOpset, [](NodeCtx& c) { return reduce(c, "square", "sum", nullptr, false); },
               "square, sum"});
  h.push_back({"ReduceLogSum", 1, kMaxOpset, [](NodeCtx& c) { return reduce(c, nullptr, "sum", "log", false); }, "sum, log"});
  h.push_back({"ArgMax", 1, kMaxOpset, [](NodeCtx& c) { return arg(c, "argmax"); }, "argmax (select_last_index: slice, argmax, sub)"});
  h.push_back({"ArgMin", 1, kMaxOpset, [](NodeCtx& c) { return arg(c, "argmin"); }, "argmin (select_last_index: slice, argmin, sub)"});
}

}  // namespace rung::onnx_import
