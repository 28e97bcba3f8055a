// Ops that move elements by index arithmetic, exactly: ReverseSequence as a one-hot pick along
// the time axis (its lengths may be computed at run time). Upsample is resize's
// (handlers_resize.cpp).
#include <cmath>

#include "onnx/handlers.h"

namespace rung::onnx_import {
namespace {

using V = std::optional<Value>;
using Ints = std::vector<std::int64_t>;

bool reverse_sequence(NodeCtx& c) {
  if (!need(c, 2)) return false;
  const Value& x = c.in(0);
  const Value& lens = c.in(1);
  auto ba = c.attr_int("batch_axis", 1), ta = c.attr_int("time_axis", 0);
  if (c.attr_error()) return false;
  if (!((ba == 0 && ta == 1) || (ba == 1 && ta == 0))) return c.fail("I0005", "batch_axis and time_axis must be 0 and 1 in some order");
  if (x.rank() < 2) return c.fail("I0005", "the input must have rank 2 or more, got " + x.type.to_string());
  if (lens.rank() != 1 || lens.type.dtype != DType::i64)
    return c.fail("I0005", "sequence_lens must be int64[batch], got " + lens.type.to_string());
  const Dim& t_dim = x.type.shape[static_cast<std::size_t>(ta)];
  if (!t_dim.is_static()) return c.fail("I0012", "the time axis has the symbolic dim " + t_dim.name());
  std::size_t r = x.rank();
  auto i64 = [&](double v) { return c.scalar(DType::i64, v); };
  // The source step of each output element: len - 1 - t inside the sequence, t after it.
  Shape ls(r, Dim::fixed(1)), ts(r, Dim::fixed(1));
  ls[static_cast<std::size_t>(ba)] = lens.type.shape[0];
  ts[static_cast<std::size_t>(ta)] = t_dim;
  V len = reshape_to(c, lens, ls);
  V t = c.op("iota", {}, {{"shape", AttrValue(ts)}, {"axis", AttrValue(ta)}, {"dtype", AttrValue(DType::i64)}});
  V inside = len && t ? c.op("lt", {*t, *len}) : V{};
  V last = len ? c.op("sub", {*len, i64(1)}) : V{};
  V back = last && t ? c.op("sub", {*last, *t}) : V{};
  V src = inside && back ? c.op("where", {*inside, *back, *t}) : V{};
  if (!src) return false;
  // One-hot along a new last axis s: out = sum_s where(src == s, x[time = s], 0). Exactly one
  // term is not +0 (none when a length exceeds the axis), so the sum is exact in any order.
  Shape se = src->type.shape, ss(r + 1, Dim::fixed(1));
  se.push_back(Dim::fixed(1));
  ss[r] = t_dim;
  V srce = reshape_to(c, *src, se);
  V s = c.op("iota", {}, {{"shape", AttrValue(ss)}, {"axis", AttrValue(static_cast<std::int64_t>(r))}, {"dtype", AttrValue(DType::i64)}});
  V hit = srce && s ? c.op("eq", {*srce, *s}) : V{};
  bool boolean = x.type.dtype == DType::boolean;  // summed as u8 (0 or 1), exact
  V xv = boolean ? cast_to(c, x, DType::u8) : V{x};
  Ints perm;
  for (std::size_t i = 0; i < r; ++i)
    if (static_cast<std::int64_t>(i) != ta) perm.push_back(static_cast<std::int64_t>(i));
  perm.push_back(ta);
  V moved = xv ? c.op("transpose", {*xv}, {{"perm", AttrValue(perm)}}) : V{};  // time last, as s
  Shape xs = x.type.shape;
  xs[static_cast<std::size_t>(ta)] = Dim::fixed(1);
  xs.push_back(t_dim);
  V xe = moved ? reshape_to(c, *moved, xs) : V{};
  V picked = hit && xe ? c.op("where", {*hit, *xe, c.scalar(xe->type.dtype, 0)}) : V{};
  V y = picked ? c.op("sum", {*picked}, {{"axes", AttrValue(Ints{static_cast<std::int64_t>(r)})}, {"keepdims", AttrValue(false)}}) : V{};
  if (y && boolean) y = cast_to(c, *y, DType::boolean);
  return out0(c, y);
}

}  // namespace

void add_index_handlers(std::vector<Handler>& h) {
  h.push_back({"ReverseSequence", 10, kMaxOpset, reverse_sequence, "iota, lt, sub, where, eq, transpose, where, sum (a one-hot pick)"});
}

}  // namespace rung::onnx_import
