// Shape and layout ops. Shape-like operands (Reshape's shape, Slice's bounds, axes, pads,
// repeats) must be known at import (I0012 otherwise); Reshape's 0 and -1 are resolved here,
// over static extents and whole symbols (B*32 / 32 = B), never guessed.
#include <algorithm>
#include <limits>
#include <map>

#include "onnx/handlers.h"

namespace rung::onnx_import {
namespace {

using V = std::optional<Value>;
using Ints = std::vector<std::int64_t>;
constexpr std::int64_t kI64Min = std::numeric_limits<std::int64_t>::min();

// A product of dims that rung's Dim can state: static extents, times at most one symbol
// (when the static part is 1). nullopt: a product like 2*B (I0012 by the caller).
std::optional<Dim> product(const Shape& dims) {
  std::uint64_t p = 1;
  std::optional<std::string> sym;
  for (const auto& d : dims) {
    if (d.is_static()) {
      if (d.extent() != 0 && p > UINT64_MAX / d.extent()) return std::nullopt;
      p *= d.extent();
    } else {
      if (sym) return std::nullopt;
      sym = d.name();
    }
  }
  if (!sym) return Dim::fixed(p);
  if (p == 0) return Dim::fixed(0);
  if (p == 1) return Dim::symbol(*sym);
  return std::nullopt;
}

// in / out as a Dim: the symbols of `out` must all cancel against `in`'s.
std::optional<Dim> quotient(const Shape& in, const Shape& out) {
  std::map<std::string, int> syms;
  std::uint64_t pin = 1, pout = 1;
  for (const auto& d : in) {
    if (d.is_static()) {
      if (d.extent() != 0 && pin > UINT64_MAX / d.extent()) return std::nullopt;
      pin *= d.extent();
    } else {
      ++syms[d.name()];
    }
  }
  for (const auto& d : out) {
    if (d.is_static()) {
      if (d.extent() != 0 && pout > UINT64_MAX / d.extent()) return std::nullopt;
      pout *= d.extent();
    } else if (--syms[d.name()] < 0) {
      return std::nullopt;
    }
  }
  std::vector<std::string> left;
  for (const auto& [s, n] : syms)
    for (int i = 0; i < n; ++i) left.push_back(s);
  if (pout == 0 || pin % pout != 0) return std::nullopt;
  std::uint64_t q = pin / pout;
  if (left.empty()) return Dim::fixed(q);
  if (left.size() == 1 && q == 1) return Dim::symbol(left[0]);
  return std::nullopt;
}

bool reshape(NodeCtx& c) {
  if (!need(c, 2)) return false;
  const Value& x = c.in(0);
  bool allowzero = c.opset() >= 14 && c.attr_int("allowzero", 0) != 0;
  auto target = c.known_ints(c.in(1), "the shape (input 1)");
  if (!target) return false;
  Shape out;
  std::optional<std::size_t> infer;
  for (std::size_t i = 0; i < target->size(); ++i) {
    std::int64_t s = (*target)[i];
    if (s == 0 && !allowzero) {
      if (i >= x.rank()) return c.fail("I0005", "shape[" + std::to_string(i) + "] = 0 copies a dim the input (rank " +
                                                    std::to_string(x.rank()) + ") does not have");
      out.push_back(x.type.shape[i]);
    } else if (s == -1) {
      if (infer) return c.fail("I0005", "the shape has more than one -1");
      infer = i;
      out.push_back(Dim::fixed(1));
    } else if (s < 0) {
      return c.fail("I0005", "shape[" + std::to_string(i) + "] = " + std::to_string(s));
    } else {
      out.push_back(Dim::fixed(static_cast<std::uint64_t>(s)));
    }
  }
  if (infer) {
    Shape rest = out;
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(*infer));
    auto q = quotient(x.type.shape, rest);
    if (!q)
      return c.fail("I0012", "the -1 in the shape cannot be resolved from " + x.type.to_string() + " as a whole dim",
                    "rung's dims are extents or single symbols; a product such as 2*B needs a fixed input shape");
    out[*infer] = *q;
  }
  return out0(c, reshape_to(c, x, std::move(out)));
}

bool flatten(NodeCtx& c) {
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  std::int64_t a = c.attr_int("axis", 1);
  auto r = static_cast<std::int64_t>(x.rank());
  if (a < 0) a += r;
  if (a < 0 || a > r) return c.fail("I0005", "axis " + std::to_string(c.attr_int("axis", 1)) + " is outside [-rank, rank]");
  Shape lo(x.type.shape.begin(), x.type.shape.begin() + a), hi(x.type.shape.begin() + a, x.type.shape.end());
  auto p = product(lo), q = product(hi);
  if (!p || !q) return c.fail("I0012", "flattening " + x.type.to_string() + " gives a product of dims rung cannot state");
  return out0(c, reshape_to(c, x, {*p, *q}));
}

bool transpose(NodeCtx& c) {
  if (!need(c, 1)) return false;
  auto perm = c.attr_ints("perm");
  if (c.attr_error()) return false;
  Ints p;
  if (perm) p = *perm;
  else
    for (std::size_t i = c.in(0).rank(); i-- > 0;) p.push_back(static_cast<std::int64_t>(i));
  return out0(c, c.op("transpose", {c.in(0)}, {{"perm", AttrValue(p)}}));
}

std::optional<Ints> axes_operand(NodeCtx& c, bool as_input, bool required) {
  if (as_input) {
    if (!c.has(1)) {
      if (required) c.fail("I0005", "the axes (input 1) are required");
      return required ? std::nullopt : std::optional<Ints>(Ints{});
    }
    return c.known_ints(c.in(1), "the axes (input 1)");
  }
  auto a = c.attr_ints("axes");
  if (c.attr_error()) return std::nullopt;
  if (!a && required) {
    c.fail("I0005", "the attribute axes is required");
    return std::nullopt;
  }
  return a ? *a : Ints{};
}

bool squeeze(NodeCtx& c, bool as_input) {
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  auto axes = axes_operand(c, as_input, false);
  if (!axes) return false;
  std::vector<bool> drop(x.rank(), false);
  if (axes->empty()) {
    for (std::size_t i = 0; i < x.rank(); ++i) {
      const Dim& d = x.type.shape[i];
      if (!d.is_static()) return c.fail("I0012", "Squeeze without axes over the symbolic dim " + d.name());
      drop[i] = d.extent() == 1;
    }
  }
  for (auto a : *axes) {
    auto ax = c.axis(a, x.rank(), "axis");
    if (!ax) return false;
    const Dim& d = x.type.shape[static_cast<std::size_t>(*ax)];
    if (!(d.is_static() && d.extent() == 1)) return c.fail("I0005", "axis " + std::to_string(a) + " has extent " + d.to_string() + ", not 1");
    drop[static_cast<std::size_t>(*ax)] = true;
  }
  Shape out;
  for (std::size_t i = 0; i < x.rank(); ++i)
    if (!drop[i]) out.push_back(x.type.shape[i]);
  return out0(c, reshape_to(c, x, std::move(out)));
}

bool unsqueeze(NodeCtx& c, bool as_input) {
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  auto axes = axes_operand(c, as_input, true);
  if (!axes) return false;
  std::size_t rank = x.rank() + axes->size();
  std::vector<bool> ones(rank, false);
  for (auto a : *axes) {
    auto ax = c.axis(a, rank, "axis");
    if (!ax) return false;
    if (ones[static_cast<std::size_t>(*ax)]) return c.fail("I0005", "axis " + std::to_string(a) + " is listed twice");
    ones[static_cast<std::size_t>(*ax)] = true;
  }
  Shape out;
  std::size_t j = 0;
  for (std::size_t i = 0; i < rank; ++i) out.push_back(ones[i] ? Dim::fixed(1) : x.type.shape[j++]);
  return out0(c, reshape_to(c, x, std::move(out)));
}

bool concat(NodeCtx& c) {
  if (!need(c, 1)) return false;
  if (!c.has_attr("axis")) return c.fail("I0005", "the attribute axis is required");
  std::vector<Value> xs;
  for (std::size_t i = 0; i < c.input_count(); ++i) {
    if (!c.has(i)) return c.fail("I0005", "input " + std::to_string(i) + " is empty");
    xs.push_back(c.in(i));
  }
  auto ax = c.axis(c.attr_int("axis", 0), xs[0].rank(), "axis");
  if (!ax) return false;
  if (xs.size() == 1) return out0(c, xs[0]);
  return out0(c, c.op("concat", xs, {{"axis", AttrValue(*ax)}}));
}

}  // namespace

std::optional<Value> wrap_negative_indices(NodeCtx& c, const Value& x, const Value& idx, std::int64_t axis, const char* what) {
  const Dim& d = x.type.shape[static_cast<std::size_t>(axis)];
  if (!dtype_info(idx.type.dtype).is_signed) return idx;
  // Negative indices count from the end: normalised with `where` (folded when known).
  if (!d.is_static()) {
    if (!idx.known) {
      c.fail("I0012", std::string(what) + " with run-time indices over the symbolic dim " + d.name());
      return std::nullopt;
    }
    auto vals = c.known_ints(idx, "the indices");
    if (!vals) return std::nullopt;
    if (std::any_of(vals->begin(), vals->end(), [](std::int64_t v) { return v < 0; })) {
      c.fail("I0012", std::string("negative ") + what + " indices over the symbolic dim " + d.name());
      return std::nullopt;
    }
    return idx;
  }
  double n = static_cast<double>(d.extent());
  V neg = c.op("lt", {idx, c.scalar(idx.type.dtype, 0)});
  V wrapped = c.op("add", {idx, c.scalar(idx.type.dtype, n)});
  return neg && wrapped ? c.op("where", {*neg, *wrapped, idx}) : V{};
}

namespace {

bool gather(NodeCtx& c) {
  if (!need(c, 2)) return false;
  const Value& x = c.in(0);
  if (x.rank() == 0) return c.fail("I0005", "Gather from a scalar");
  auto ax = c.axis(c.attr_int("axis", 0), x.rank(), "axis");
  if (!ax) return false;
  V idx = wrap_negative_indices(c, x, c.in(1), *ax, "Gather");
  return idx && out0(c, c.op("gather", {x, *idx}, {{"axis", AttrValue(*ax)}}));
}

// ONNX's slice bounds made Python's (what rung's slice takes): clamped as ONNX clamps, with
// a negative step's end "before element 0" spelled as the int64 minimum.
bool slice_common(NodeCtx& c, const Ints& starts, const Ints& ends, std::optional<Ints> axes, std::optional<Ints> steps) {
  const Value& x = c.in(0);
  std::size_t n = starts.size();
  if (ends.size() != n || (axes && axes->size() != n) || (steps && steps->size() != n))
    return c.fail("I0005", "starts, ends, axes and steps differ in length");
  Ints ax, st, s2, e2;
  for (std::size_t i = 0; i < n; ++i) {
    auto a = c.axis(axes ? (*axes)[i] : static_cast<std::int64_t>(i), x.rank(), "axis");
    if (!a) return false;
    if (std::find(ax.begin(), ax.end(), *a) != ax.end()) return c.fail("I0005", "axis " + std::to_string(*a) + " is sliced twice");
    std::int64_t step = steps ? (*steps)[i] : 1;
    if (step == 0) return c.fail("I0005", "a step of 0");
    std::int64_t b = starts[i], e = ends[i];
    if (step < 0) {
      const Dim& d = x.type.shape[static_cast<std::size_t>(*a)];
      if (!d.is_static()) return c.fail("I0012", "a negative step over the symbolic dim " + d.name());
      auto dim = static_cast<std::int64_t>(d.extent());
      if (b < 0) b = b < -dim ? 0 : b + dim;
      b = std::clamp<std::int64_t>(b, 0, std::max<std::int64_t>(dim - 1, 0));
      if (e < 0) e = e < -dim ? -1 : e + dim;
      e = std::clamp<std::int64_t>(e, -1, std::max<std::int64_t>(dim - 1, -1));
      if (e == -1) e = kI64Min;
    }
    ax.push_back(*a), st.push_back(step), s2.push_back(b), e2.push_back(e);
  }
  if (n == 0) return out0(c, x);
  return out0(c, c.op("slice", {x}, {{"starts", AttrValue(s2)}, {"ends", AttrValue(e2)}, {"axes", AttrValue(ax)}, {"steps", AttrValue(st)}}));
}

bool slice1(NodeCtx& c) {
  if (!need(c, 1)) return false;
  auto starts = c.attr_ints("starts"), ends = c.attr_ints("ends"), axes = c.attr_ints("axes");
  if (c.attr_error()) return false;
  if (!starts || !ends) return c.fail("I0005", "the attributes starts and ends are required");
  return slice_common(c, *starts, *ends, axes, std::nullopt);
}

bool slice10(NodeCtx& c) {
  if (!need(c, 3)) return false;
  auto starts = c.known_ints(c.in(1), "starts (input 1)");
  auto ends = starts ? c.known_ints(c.in(2), "ends (input 2)") : std::nullopt;
  if (!ends) return false;
  std::optional<Ints> axes, steps;
  if (c.has(3) && !(axes = c.known_ints(c.in(3), "axes (input 3)"))) return false;
  if (c.has(4) && !(steps = c.known_ints(c.in(4), "steps (input 4)"))) return false;
  return slice_common(c, *starts, *ends, axes, steps);
}

bool pad_common(NodeCtx& c, const Ints& pads, const std::string& mode, double value) {
  const Value& x = c.in(0);
  if (pads.size() != 2 * x.rank()) return c.fail("I0005", "pads has " + std::to_string(pads.size()) + " values for rank " + std::to_string(x.rank()));
  if (mode != "constant" && mode != "reflect" && mode != "edge") return c.fail("I0005", "mode \"" + mode + "\" is not supported");
  Ints p;
  for (std::size_t i = 0; i < x.rank(); ++i) {
    std::int64_t b = pads[i], e = pads[i + x.rank()];
    if (b < 0 || e < 0) return c.fail("I0005", "negative pads (cropping) are not supported");
    p.push_back(b), p.push_back(e);
  }
  return out0(c, c.op("pad", {x}, {{"pads", AttrValue(p)}, {"mode", AttrValue(mode)}, {"value", AttrValue(value)}}));
}

bool pad2(NodeCtx& c) {
  if (!need(c, 1)) return false;
  auto pads = c.attr_ints("pads");
  std::string mode = c.attr_string("mode", "constant");
  double value = c.attr_float("value", 0.0f);
  if (c.attr_error()) return false;
  if (!pads) return c.fail("I0005", "the attribute pads is required");
  return pad_common(c, *pads, mode, value);
}

bool pad11(NodeCtx& c) {
  if (!need(c, 2)) return false;
  std::string mode = c.attr_string("mode", "constant");
  auto pads = c.known_ints(c.in(1), "pads (input 1)");
  if (!pads) return false;
  double value = 0;
  if (c.has(2)) {
    auto v = c.known_reals(c.in(2), "constant_value (input 2)");
    if (!v) return false;
    if (v->size() != 1) return c.fail("I0005", "constant_value must hold one value");
    value = (*v)[0];
  }
  return pad_common(c, *pads, mode, value);
}

bool expand(NodeCtx& c) {
  if (!need(c, 2)) return false;
  const Value& x = c.in(0);
  auto shape = c.known_ints(c.in(1), "the shape (input 1)");
  if (!shape) return false;
  std::size_t rank = std::max(x.rank(), shape->size());
  Shape out(rank, Dim::fixed(1));
  for (std::size_t i = 0; i < rank; ++i) {
    std::optional<Dim> a, s;
    if (i + x.rank() >= rank) a = x.type.shape[i + x.rank() - rank];
    if (i + shape->size() >= rank) {
      std::int64_t v = (*shape)[i + shape->size() - rank];
      if (v < 0) return c.fail("I0005", "the shape holds " + std::to_string(v));
      s = Dim::fixed(static_cast<std::uint64_t>(v));
    }
    if (!s || s->extent() == 1) out[i] = a.value_or(Dim::fixed(1));
    else if (!a || (a->is_static() && (a->extent() == 1 || a->extent() == s->extent()))) out[i] = *s;
    else if (a->is_static()) return c.fail("I0005", "cannot expand dim " + a->to_string() + " to " + s->to_string());
    else return c.fail("I0012", "expanding the symbolic dim " + a->name() + " to " + s->to_string());
  }
  if (out == x.type.shape) return out0(c, x);
  return out0(c, c.op("broadcast_to", {x}, {{"shape", AttrValue(out)}}));
}

bool tile(NodeCtx& c) {
  if (!need(c, 2)) return false;
  const Value& x = c.in(0);
  auto reps = c.known_ints(c.in(1), "repeats (input 1)");
  if (!reps) return false;
  if (reps->size() != x.rank()) return c.fail("I0005", "repeats has " + std::to_string(reps->size()) + " values for rank " + std::to_string(x.rank()));
  auto dims = c.static_shape(x, "the input");
  if (!dims) return false;
  // [d0, d1] tiled by [r0, r1]: [1, d0, 1, d1] broadcast to [r0, d0, r1, d1], then [r0 d0, r1 d1].
  Shape split, wide, out;
  for (std::size_t i = 0; i < x.rank(); ++i) {
    if ((*reps)[i] < 0) return c.fail("I0005", "a negative repeat");
    auto r = static_cast<std::uint64_t>((*reps)[i]);
    if ((*dims)[i] != 0 && r > UINT64_MAX / (*dims)[i]) return c.fail("I0006", "repeats times the dim overflows");
    split.push_back(Dim::fixed(1)), split.push_back(Dim::fixed((*dims)[i]));
    wide.push_back(Dim::fixed(r)), wide.push_back(Dim::fixed((*dims)[i]));
    out.push_back(Dim::fixed(r * (*dims)[i]));
  }
  V s = reshape_to(c, x, split);
  V w = s ? (split == wide ? s : c.op("broadcast_to", {*s}, {{"shape", AttrValue(wide)}})) : V{};
  return w && out0(c, reshape_to(c, *w, out));
}

bool split(NodeCtx& c) {
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  auto ax = c.axis(c.attr_int("axis", 0), x.rank(), "axis");
  if (!ax) return false;
  std::optional<Ints> sizes;
  if (c.opset() >= 13) {
    if (c.has(1) && !(sizes = c.known_ints(c.in(1), "split (input 1)"))) return false;
  } else {
    sizes = c.attr_ints("split");
    if (c.attr_error()) return false;
  }
  std::size_t n = c.node().output_size();
  const Dim& d = x.type.shape[static_cast<std::size_t>(*ax)];
  if (!d.is_static()) return c.fail("I0012", "Split along the symbolic dim " + d.name());
  if (!sizes) {
    if (n == 0 || d.extent() % n != 0) return c.fail("I0005", "dim " + d.to_string() + " does not split into " + std::to_string(n) + " equal parts");
    sizes = Ints(n, static_cast<std::int64_t>(d.extent() / n));
  }
  if (sizes->size() != n) return c.fail("I0005", "split lists " + std::to_string(sizes->size()) + " sizes for " + std::to_string(n) + " outputs");
  std::int64_t at = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if ((*sizes)[i] < 0) return c.fail("I0005", "a negative split size");
    V part = c.op("slice", {x}, {{"starts", AttrValue(Ints{at})}, {"ends", AttrValue(Ints{at + (*sizes)[i]})},
                                 {"axes", AttrValue(Ints{*ax})}, {"steps", AttrValue(Ints{1})}});
    if (!part) return false;
    c.set(i, *part);
    at += (*sizes)[i];
  }
  if (at != static_cast<std::int64_t>(d.extent())) return c.fail("I0005", "the split sizes add up to " + std::to_string(at) + ", not " + d.to_string());
  return true;
}

}  // namespace

void add_shape_handlers(std::vector<Handler>& h) {
  h.push_back({"Reshape", 5, kMaxOpset, reshape, "reshape (0 and -1 resolved at import; allowzero from 14)"});
  h.push_back({"Flatten", 1, kMaxOpset, flatten, "reshape"});
  h.push_back({"Transpose", 1, kMaxOpset, transpose, "transpose"});
  h.push_back({"Squeeze", 1, 12, [](NodeCtx& c) { return squeeze(c, false); }, "reshape"});
  h.push_back({"Squeeze", 13, kMaxOpset, [](NodeCtx& c) { return squeeze(c, true); }, "reshape (axes input)"});
  h.push_back({"Unsqueeze", 1, 12, [](NodeCtx& c) { return unsqueeze(c, false); }, "reshape"});
  h.push_back({"Unsqueeze", 13, kMaxOpset, [](NodeCtx& c) { return unsqueeze(c, true); }, "reshape (axes input)"});
  h.push_back({"Concat", 4, kMaxOpset, concat, "concat"});
  h.push_back({"Gather", 1, kMaxOpset, gather, "gather (negative indices: lt, add, where)"});
  h.push_back({"Slice", 1, 9, slice1, "slice"});
  h.push_back({"Slice", 10, kMaxOpset, slice10, "slice (bounds as inputs)"});
  h.push_back({"Pad", 2, 10, pad2, "pad"});
  h.push_back({"Pad", 11, kMaxOpset, pad11, "pad (pads and value as inputs)"});
  h.push_back({"Expand", 8, kMaxOpset, expand, "broadcast_to"});
  h.push_back({"Tile", 6, kMaxOpset, tile, "reshape, broadcast_to, reshape"});
  h.push_back({"Split", 2, kMaxOpset, split, "slice per output"});
}

}  // namespace rung::onnx_import
