// Ops that move elements by index arithmetic, exactly: Upsample (nearest, integer scales) as a
// repeat per axis (reshape, broadcast_to, reshape), and ReverseSequence as a one-hot pick
// along the time axis (its lengths may be computed at run time).
#include <cmath>

#include "onnx/handlers.h"

namespace rung::onnx_import {
namespace {

using V = std::optional<Value>;
using Ints = std::vector<std::int64_t>;

bool upsample(NodeCtx& c, bool scales_input) {
  if (!need(c, scales_input ? 2 : 1)) return false;
  const Value& x = c.in(0);
  std::string mode = c.attr_string("mode", "nearest");
  std::optional<std::vector<double>> scales;
  if (scales_input) {
    scales = c.known_reals(c.in(1), "scales (input 1)");
  } else {
    auto f = c.attr_floats("scales");
    if (c.attr_error()) return false;
    if (!f) return c.fail("I0005", "the attribute scales is required");
    scales = std::vector<double>(f->begin(), f->end());
  }
  if (!scales) return false;
  if (mode != "nearest") return c.fail("I0005", "Upsample mode \"" + mode + "\" (rung imports nearest)");
  if (scales->size() != x.rank())
    return c.fail("I0005", std::to_string(scales->size()) + " scales for the rank-" + std::to_string(x.rank()) + " input");
  // Nearest with an integer scale s repeats each element s times: [d] -> [d, 1] -> [d, s] -> [d s].
  Shape split, wide, out;
  for (std::size_t i = 0; i < x.rank(); ++i) {
    double s = (*scales)[i];
    if (!(s >= 1) || s != std::floor(s) || s > 65536)
      return c.fail("I0005", "scale " + std::to_string(s) + " on axis " + std::to_string(i) + " (rung imports integer scales >= 1)");
    const Dim& d = x.type.shape[i];
    if (!d.is_static() && s != 1) return c.fail("I0012", "axis " + std::to_string(i) + " has the symbolic dim " + d.name());
    auto k = static_cast<std::uint64_t>(s);
    split.push_back(d);
    split.push_back(Dim::fixed(1));
    wide.push_back(d);
    wide.push_back(Dim::fixed(k));
    out.push_back(k == 1 ? d : Dim::fixed(d.extent() * k));
  }
  V r = reshape_to(c, x, split);
  V b = r ? c.op("broadcast_to", {*r}, {{"shape", AttrValue(wide)}}) : V{};
  return b && out0(c, reshape_to(c, *b, out));
}

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
  h.push_back({"Upsample", 7, 8, [](NodeCtx& c) { return upsample(c, false); },
               "reshape, broadcast_to, reshape (nearest, integer scales)"});
  h.push_back({"Upsample", 9, 9, [](NodeCtx& c) { return upsample(c, true); },
               "reshape, broadcast_to, reshape (nearest, integer scales as an input)"});
  h.push_back({"ReverseSequence", 10, kMaxOpset, reverse_sequence, "iota, lt, sub, where, eq, transpose, where, sum (a one-hot pick)"});
}

}  // namespace rung::onnx_import
