// Conv, ConvTranspose, MaxPool and AveragePool onto the registry's conv family (docs/semantics.md
// §17). ONNX lists pads as [b0, b1, ..., e0, e1, ...], rung as [b0, e0, b1, e1, ...]; auto_pad
// SAME_UPPER / SAME_LOWER / VALID is resolved to explicit pads here (ops::same_pads), and
// ConvTranspose's output_shape to pads (and an output_padding where it asks for more than the
// window gives). rung's windows are 1-D or 2-D; a 3-D window ([N, C, D, H, W]) is composed
// from them exactly (the section "3-D windows" below says how).
#include <algorithm>
#include <array>

#include "onnx/handlers.h"
#include "ops/window_axis.h"
#include "ops/window_geometry.h"

namespace rung::onnx_import {
namespace {

using V = std::optional<Value>;
using Ints = std::vector<std::int64_t>;

// The geometry every window op reads: spatial rank, input and kernel extents, and the
// attributes strides / dilations / pads (ONNX order, resolved from auto_pad) per axis.
struct Geometry {
  std::size_t rank = 0;
  std::vector<std::uint64_t> in, k;
  Ints strides, dilations, begin, end;
  std::string auto_pad = "NOTSET";
};

// Spatial extents of x ([N, C, spatial...], 1, 2 or 3 of them, static).
bool spatial_of(NodeCtx& c, const Value& x, Geometry& g) {
  if (x.rank() != 3 && x.rank() != 4 && x.rank() != 5)
    return c.fail("I0005", "the input must be [N, C, L], [N, C, H, W] or [N, C, D, H, W], got " + x.type.to_string());
  g.rank = x.rank() - 2;
  for (std::size_t i = 2; i < x.rank(); ++i) {
    if (!x.type.shape[i].is_static()) return c.fail("I0012", "the spatial dims of the input must be static, got " + x.type.to_string());
    g.in.push_back(x.type.shape[i].extent());
  }
  return true;
}

// A per-axis list attribute: `rank` values >= lo, or `dflt` each when absent.
bool per_axis(NodeCtx& c, const char* name, std::size_t count, std::int64_t lo, std::int64_t dflt, Ints& out) {
  auto v = c.attr_ints(name);
  if (c.attr_error()) return false;
  if (!v) {
    out.assign(count, dflt);
    return true;
  }
  if (v->size() != count)
    return c.fail("I0005", std::string("`") + name + "` needs " + std::to_string(count) + " values, got " + std::to_string(v->size()));
  for (auto x : *v)
    if (x < lo) return c.fail("I0005", std::string("`") + name + "` value " + std::to_string(x) + " is below " + std::to_string(lo));
  out = *v;
  return true;
}

// kernel_shape (when given it must be w's), strides, dilations (from `dilation_since`), pads
// and auto_pad. `same` resolves SAME_UPPER / SAME_LOWER for conv and the pools; ConvTranspose
// resolves them itself (its SAME is about the output extent).
bool read_window(NodeCtx& c, Geometry& g, bool kernel_from_attr, int dilation_since, bool resolve_same) {
  auto ks = c.attr_ints("kernel_shape");
  if (c.attr_error()) return false;
  if (kernel_from_attr) {
    if (!ks) return c.fail("I0005", "`kernel_shape` is required");
    if (ks->size() != g.rank)
      return c.fail("I0005", "`kernel_shape` needs " + std::to_string(g.rank) + " values, got " + std::to_string(ks->size()));
    for (auto v : *ks) {
      if (v < 1) return c.fail("I0005", "`kernel_shape` value " + std::to_string(v) + " is below 1");
      g.k.push_back(static_cast<std::uint64_t>(v));
    }
  } else if (ks) {
    std::vector<std::uint64_t> given(ks->begin(), ks->end());
    if (given != g.k) return c.fail("I0005", "`kernel_shape` disagrees with the weights' spatial dims");
  }
  if (!per_axis(c, "strides", g.rank, 1, 1, g.strides)) return false;
  if (c.opset() >= dilation_since) {
    if (!per_axis(c, "dilations", g.rank, 1, 1, g.dilations)) return false;
  } else {
    g.dilations.assign(g.rank, 1);
  }
  g.auto_pad = c.attr_string("auto_pad", "NOTSET");
  auto pads = c.attr_ints("pads");
  if (c.attr_error()) return false;
  if (g.auto_pad != "NOTSET" && g.auto_pad != "SAME_UPPER" && g.auto_pad != "SAME_LOWER" && g.auto_pad != "VALID")
    return c.fail("I0005", "`auto_pad` " + g.auto_pad + " is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
  if (pads && g.auto_pad != "NOTSET") return c.fail("I0005", "`pads` together with `auto_pad` " + g.auto_pad);
  g.begin.assign(g.rank, 0);
  g.end.assign(g.rank, 0);
  if (pads) {
    if (pads->size() != 2 * g.rank)
      return c.fail("I0005", "`pads` needs " + std::to_string(2 * g.rank) + " values (all begins, then all ends), got " +
                                 std::to_string(pads->size()));
    for (std::size_t i = 0; i < g.rank; ++i) {
      g.begin[i] = (*pads)[i];
      g.end[i] = (*pads)[g.rank + i];
      if (g.begin[i] < 0 || g.end[i] < 0) return c.fail("I0005", "negative `pads` are not supported");
    }
  }
  if (resolve_same && (g.auto_pad == "SAME_UPPER" || g.auto_pad == "SAME_LOWER"))
    for (std::size_t i = 0; i < g.rank; ++i) {
      auto [b, e] = ops::same_pads(g.in[i], g.k[i], static_cast<std::uint64_t>(g.strides[i]),
                                   static_cast<std::uint64_t>(g.dilations[i]), g.auto_pad == "SAME_UPPER");
      g.begin[i] = static_cast<std::int64_t>(b);
      g.end[i] = static_cast<std::int64_t>(e);
    }
  return true;
}

// rung's attributes: strides, dilations, pads as [b0, e0, b1, e1].
AttrMap window_attrs(const Geometry& g) {
  Ints pads;
  for (std::size_t i = 0; i < g.rank; ++i) {
    pads.push_back(g.begin[i]);
    pads.push_back(g.end[i]);
  }
  return {{"strides", AttrValue(g.strides)}, {"dilations", AttrValue(g.dilations)}, {"pads", AttrValue(pads)}};
}

bool weights(NodeCtx& c, const Value& x, const Value& w, Geometry& g) {
  if (w.rank() != x.rank()) return c.fail("I0005", "the weights must have the input's rank, got " + w.type.to_string());
  for (std::size_t i = 2; i < w.rank(); ++i) {
    if (!w.type.shape[i].is_static()) return c.fail("I0012", "the weights' dims must be static, got " + w.type.to_string());
    g.k.push_back(w.type.shape[i].extent());
  }
  return true;
}

}  // namespace

std::optional<Value> conv_of(NodeCtx& c, const std::vector<Value>& in) {
  const Value &x = in[0], &w = in[1];
  Geometry g;
  if (!spatial_of(c, x, g) || !weights(c, x, w, g) || !read_window(c, g, false, 1, true)) return std::nullopt;
  AttrMap a = window_attrs(g);
  a.emplace("groups", AttrValue(c.attr_int("group", 1)));
  return c.op("conv", in, a);
}

namespace {

std::vector<Value> conv_inputs(NodeCtx& c) {
  std::vector<Value> in{c.in(0), c.in(1)};
  if (c.has(2)) in.push_back(c.in(2));
  return in;
}

// ---- 3-D windows ----------------------------------------------------------------------
// rung's window ops take 1-D and 2-D windows. A 3-D one over [N, C, D, H, W] is composed from
// them so that each result element is what the 3-D form of the op's definition gives
// (docs/semantics.md §17 read with a third axis; docs/onnx.md, "3-D windows"):
// - MaxPool: max is order-free (§2: NaN wins, +0 over -0), so a 2-D max_pool over (H, W) with
//   D folded into the channels, then a 1-D max_pool over D with (C, OH, OW) in the channels.
//   Padding takes part in neither, as in the 3-D window.
// - AveragePool: each of the KD*KH*KW taps a strided slice of the zero-padded input, stacked
//   on a new last axis in (kd, kh, kw) order; the canonical sum over it, then one division by
//   the window's count (avg_pool's rule; a count is the product of the per-axis counts).
// - Conv, ConvTranspose: the one fma chain over (c, kd, kh, kw) of an output element is the
//   2-D op's chain over the channels c*KD + kd. The depth taps are gathered into the channels
//   (strided slices of the zero-padded input; for ConvTranspose of the input spread out by the
//   depth stride) and the output depths into the batch.

constexpr std::uint64_t kMaxTaps3d = 4096;            // slices one composed 3-D window may emit
constexpr std::uint64_t kMaxWindowAttr = 1ull << 24;  // kernel, strides, dilations, pads
constexpr std::uint64_t kMaxExtent3d = 1ull << 32;    // each input extent
constexpr std::uint64_t kMaxElements3d = 1ull << 40;  // a gathered intermediate

Shape fixed(const std::vector<std::uint64_t>& d) {
  Shape s;
  for (auto v : d) s.push_back(Dim::fixed(v));
  return s;
}

std::uint64_t u(std::int64_t v) { return static_cast<std::uint64_t>(v); }
std::int64_t s64(std::uint64_t v) { return static_cast<std::int64_t>(v); }

// The axes [from, from + n) of g as a window of their own.
Geometry sub(const Geometry& g, std::size_t from, std::size_t n) {
  Geometry r;
  r.rank = n;
  r.in.assign(g.in.begin() + s64(from), g.in.begin() + s64(from + n));
  r.k.assign(g.k.begin() + s64(from), g.k.begin() + s64(from + n));
  r.strides.assign(g.strides.begin() + s64(from), g.strides.begin() + s64(from + n));
  r.dilations.assign(g.dilations.begin() + s64(from), g.dilations.begin() + s64(from + n));
  r.begin.assign(g.begin.begin() + s64(from), g.begin.begin() + s64(from + n));
  r.end.assign(g.end.begin() + s64(from), g.end.begin() + s64(from + n));
  return r;
}

// The product of `d`, or nullopt when it passes `limit`.
std::optional<std::uint64_t> product_upto(const std::vector<std::uint64_t>& d, std::uint64_t limit) {
  std::uint64_t n = 1;
  for (auto v : d)
    if (__builtin_mul_overflow(n, v, &n) || n > limit) return std::nullopt;
  return n;
}

// The static [N, C, D, H, W] of x, with every window attribute (and `extra`) at most 2^24 and
// every extent at most 2^32, so the extent arithmetic below cannot overflow.
std::optional<std::vector<std::uint64_t>> dims_3d(NodeCtx& c, const Value& x, const Geometry& g, const Ints& extra = {}) {
  auto dims = c.static_shape(x, "the input (a 3-D window is composed from 1-D and 2-D ones)");
  if (!dims) return std::nullopt;
  bool over = false;
  for (std::size_t i = 0; i < 3; ++i)
    over = over || g.k[i] > kMaxWindowAttr || u(g.strides[i]) > kMaxWindowAttr || u(g.dilations[i]) > kMaxWindowAttr ||
           u(g.begin[i]) > kMaxWindowAttr || u(g.end[i]) > kMaxWindowAttr;
  for (auto v : extra) over = over || u(v) > kMaxWindowAttr;
  if (over) {
    c.fail("I0005", "a 3-D window's kernel_shape, strides, dilations, pads and output_padding must be at most 2^24");
    return std::nullopt;
  }
  std::vector<std::uint64_t> nonzero;
  for (auto v : *dims) {
    if (v > kMaxExtent3d) {
      c.fail("I0005", "a 3-D window's input extents must be at most 2^32, got " + x.type.to_string());
      return std::nullopt;
    }
    nonzero.push_back(std::max<std::uint64_t>(v, 1));
  }
  if (!product_upto(nonzero, std::uint64_t{1} << 62)) {  // so that every product of extents below fits
    c.fail("I0006", "the extents of " + x.type.to_string() + " multiply past 2^62");
    return std::nullopt;
  }
  for (std::size_t i = 0; i < 3; ++i)
    if (g.k[i] == 0) {
      c.fail("I0005", "a kernel extent of 0");
      return std::nullopt;
    }
  return dims;
}

// The element count of `d`, or I0006 when it passes 2^40 (`what` names the tensor).
bool small_enough(NodeCtx& c, const std::vector<std::uint64_t>& d, const std::string& what) {
  return product_upto(d, kMaxElements3d) || c.fail("I0006", what + " would hold more than 2^40 elements");
}

V transpose(NodeCtx& c, const V& v, Ints perm) { return v ? c.op("transpose", {*v}, {{"perm", AttrValue(std::move(perm))}}) : V{}; }
V reshape(NodeCtx& c, const V& v, const std::vector<std::uint64_t>& d) { return v ? reshape_to(c, *v, fixed(d)) : V{}; }

// v padded with `value` by (before, after) per axis; unchanged when every pad is 0.
V pad_with(NodeCtx& c, const V& v, const Ints& pads, double value) {
  if (!v) return v;
  bool any = false;
  for (auto p : pads) any = any || p != 0;
  if (!any) return v;
  return c.op("pad", {*v}, {{"pads", AttrValue(pads)}, {"mode", AttrValue(std::string("constant"))}, {"value", AttrValue(value)}});
}

// The elements start + i*step, i < count, along each axis of `axes` of v.
V strided(NodeCtx& c, const Value& v, const Ints& axes, const std::vector<std::uint64_t>& start, const std::vector<std::uint64_t>& count,
          const std::vector<std::uint64_t>& step) {
  Ints st, en, sp;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    st.push_back(s64(start[i]));
    en.push_back(s64(start[i] + (count[i] - 1) * step[i] + 1));
    sp.push_back(s64(step[i]));
  }
  return c.op("slice", {v}, {{"starts", AttrValue(st)}, {"ends", AttrValue(en)}, {"axes", AttrValue(axes)}, {"steps", AttrValue(sp)}});
}

// [N*OD, C*KD, H, W] from t = [N, C, L, H, W]: element (n*OD + od, c*KD + kd) is the plane
// t[n, c, first(kd) + od*step].
template <typename First>
V depth_taps(NodeCtx& c, const V& t, std::uint64_t KD, std::uint64_t OD, std::uint64_t step, First first) {
  if (!t) return t;
  auto d = c.static_shape(*t, "the padded input");
  if (!d) return V{};
  std::uint64_t N = (*d)[0], C = (*d)[1], H = (*d)[3], W = (*d)[4];
  if (!small_enough(c, {N, OD, C, KD, H, W}, "the input gathered by depth taps")) return V{};
  std::vector<Value> parts;
  for (std::uint64_t kd = 0; kd < KD; ++kd) {
    V s = strided(c, *t, {2}, {first(kd)}, {OD}, {step});
    V r = reshape(c, s, {N, C, 1, OD, H, W});
    if (!r) return V{};
    parts.push_back(*r);
  }
  V cat = parts.size() == 1 ? V(parts[0]) : c.op("concat", parts, {{"axis", AttrValue(std::int64_t{2})}});  // [N, C, KD, OD, H, W]
  return reshape(c, transpose(c, cat, {0, 3, 1, 2, 4, 5}), {N * OD, C * KD, H, W});
}

// y [N*OD, M, OH, OW] back to [N, M, OD, OH, OW].
bool depth_out(NodeCtx& c, const V& y, std::uint64_t N, std::uint64_t OD) {
  if (!y) return false;
  auto d = c.static_shape(*y, "the 2-D result");
  if (!d) return false;
  return out0(c, transpose(c, reshape(c, y, {N, OD, (*d)[1], (*d)[2], (*d)[3]}), {0, 2, 1, 3, 4}));
}

bool conv_3d(NodeCtx& c, const Value& x, const Value& w, const Geometry& g, std::int64_t groups) {
  auto d = dims_3d(c, x, g);
  if (!d) return false;
  auto wd = c.static_shape(w, "the weights of a 3-D Conv");
  if (!wd) return false;
  std::uint64_t N = (*d)[0], M = (*wd)[0], Cg = (*wd)[1], KD = g.k[0];
  if (KD > kMaxTaps3d) return c.fail("I0005", "a 3-D Conv with more than 4096 depth taps");
  ops::WindowAxis ax{(*d)[2], KD, u(g.strides[0]), u(g.dilations[0]), u(g.begin[0]), u(g.end[0]), 0};
  std::string err;
  auto OD = ops::window_out_extent(ax, false, err);
  if (!OD) return c.fail("I0005", "depth axis: " + err);
  V xp = pad_with(c, x, {0, 0, 0, 0, g.begin[0], g.end[0], 0, 0, 0, 0}, 0.0);
  V xt = depth_taps(c, xp, KD, *OD, ax.stride, [&](std::uint64_t kd) { return kd * ax.dilation; });
  V w2 = reshape(c, w, {M, Cg * KD, (*wd)[3], (*wd)[4]});  // [M, Cg, KD, KH, KW]: channel c*KD + kd
  if (!xt || !w2) return false;
  std::vector<Value> in{*xt, *w2};
  if (c.has(2)) in.push_back(c.in(2));
  AttrMap a = window_attrs(sub(g, 1, 2));
  a.emplace("groups", AttrValue(groups));
  return depth_out(c, c.op("conv", in, a), N, *OD);
}

bool conv_transpose_3d(NodeCtx& c, const Value& x, const Value& w, const Geometry& g, const Ints& op, std::int64_t groups) {
  auto d = dims_3d(c, x, g, op);
  if (!d) return false;
  auto wd = c.static_shape(w, "the weights of a 3-D ConvTranspose");
  if (!wd) return false;
  std::uint64_t N = (*d)[0], C = (*d)[1], D = (*d)[2], H = (*d)[3], W = (*d)[4];
  std::uint64_t Cw = (*wd)[0], Mg = (*wd)[1], KD = g.k[0];
  if (KD > kMaxTaps3d) return c.fail("I0005", "a 3-D ConvTranspose with more than 4096 depth taps");
  std::int64_t sd = g.strides[0], dd = g.dilations[0], bd = g.begin[0], ed = g.end[0], opd = op[0];
  if (opd >= sd && opd >= dd) return c.fail("I0005", "`output_padding` of the depth axis must be below its stride or dilation");
  if (D == 0) return c.fail("I0005", "a 3-D ConvTranspose over an empty depth axis");
  std::int64_t OD = sd * (s64(D) - 1) + opd + dd * (s64(KD) - 1) + 1 - bd - ed;  // every term < 2^57
  if (OD < 1) return c.fail("I0005", "the pads leave an output depth of " + std::to_string(OD));
  // xu: x spread out along D by the stride (sd - 1 zeros after each plane), then padded so
  // that every tap's source od + bd - kd*dd (shifted by P) lies inside.
  V xu = x;
  std::int64_t Lu = s64(D);
  if (sd > 1) {
    if (!small_enough(c, {N, C, D, u(sd), H, W}, "the input spread out by the depth stride")) return false;
    xu = reshape(c, pad_with(c, reshape(c, xu, {N, C, D, 1, H, W}), {0, 0, 0, 0, 0, 0, 0, sd - 1, 0, 0, 0, 0}, 0.0), {N, C, D * u(sd), H, W});
    Lu = s64(D) * sd;
  }
  std::int64_t P = std::max<std::int64_t>(0, dd * (s64(KD) - 1) - bd), A = std::max<std::int64_t>(0, OD + bd - Lu);
  xu = pad_with(c, xu, {0, 0, 0, 0, P, A, 0, 0, 0, 0}, 0.0);
  V xt = depth_taps(c, xu, KD, u(OD), 1, [&](std::uint64_t kd) { return u(bd + P - s64(kd) * dd); });
  // w [C, M/groups, KD, KH, KW] -> [C*KD, M/groups, KH, KW]: input channel c*KD + kd.
  V w2 = reshape(c, transpose(c, w, {0, 2, 1, 3, 4}), {Cw * KD, Mg, (*wd)[3], (*wd)[4]});
  if (!xt || !w2) return false;
  std::vector<Value> in{*xt, *w2};
  if (c.has(2)) in.push_back(c.in(2));
  AttrMap a = window_attrs(sub(g, 1, 2));
  a.emplace("groups", AttrValue(groups));
  a.emplace("output_padding", AttrValue(Ints{op[1], op[2]}));
  return depth_out(c, c.op("conv_transpose", in, a), N, u(OD));
}

bool max_pool_3d(NodeCtx& c, const Value& x, const Geometry& g, bool ceil_mode) {
  if (c.want(1)) return c.fail("I0005", "the Indices output of a 3-D MaxPool is not supported");
  auto d = dims_3d(c, x, g);
  if (!d) return false;
  std::uint64_t N = (*d)[0], C = (*d)[1], D = (*d)[2], H = (*d)[3], W = (*d)[4];
  auto pool = [&](const V& v, const Geometry& w) -> V {
    if (!v) return v;
    AttrMap a = window_attrs(w);
    a.emplace("kernel_shape", AttrValue(Ints(w.k.begin(), w.k.end())));
    a.emplace("ceil_mode", AttrValue(ceil_mode));
    auto r = c.op_multi("max_pool", {*v}, a);
    return r ? V((*r)[0]) : V{};
  };
  V hw = pool(reshape(c, x, {N, C * D, H, W}), sub(g, 1, 2));  // [N, C*D, OH, OW]
  if (!hw) return false;
  std::uint64_t OH = hw->type.shape[2].extent(), OW = hw->type.shape[3].extent();
  V cols = reshape(c, transpose(c, reshape(c, hw, {N, C, D, OH * OW}), {0, 1, 3, 2}), {N, C * OH * OW, D});
  V dp = pool(cols, sub(g, 0, 1));  // [N, C*OH*OW, OD]
  if (!dp) return false;
  std::uint64_t OD = dp->type.shape[2].extent();
  return out0(c, transpose(c, reshape(c, dp, {N, C, OH, OW, OD}), {0, 1, 4, 2, 3}));
}

bool avg_pool_3d(NodeCtx& c, const Value& x, const Geometry& g, bool ceil_mode, bool include_pad) {
  auto d = dims_3d(c, x, g);
  if (!d) return false;
  std::uint64_t N = (*d)[0], C = (*d)[1];
  if (!product_upto({g.k[0], g.k[1], g.k[2]}, kMaxTaps3d)) return c.fail("I0005", "a 3-D AveragePool with more than 4096 taps");
  std::array<ops::WindowAxis, 3> ax;
  std::vector<std::uint64_t> out(3);
  Ints pads{0, 0, 0, 0};
  for (std::size_t i = 0; i < 3; ++i) {
    ax[i] = {(*d)[2 + i], g.k[i], u(g.strides[i]), u(g.dilations[i]), u(g.begin[i]), u(g.end[i]), 0};
    std::string err;
    auto o = ops::window_out_extent(ax[i], ceil_mode, err);
    if (!o) return c.fail("I0005", "spatial axis " + std::to_string(i) + ": " + err);
    ax[i].out = out[i] = *o;
    if (out[i] * ax[i].k > (1ull << 24))  // the per-axis counts below are computed at import
      return c.fail("I0005", "a 3-D AveragePool whose output extent times kernel extent passes 2^24 on spatial axis " + std::to_string(i));
    if (!ops::every_window_touches_input(ax[i], err)) return c.fail("I0005", "spatial axis " + std::to_string(i) + ": " + err);
    // Zeros before, and after as far as the last tap reaches (the ceil_mode overhang included).
    std::int64_t reach = s64((out[i] - 1) * ax[i].stride + (ax[i].k - 1) * ax[i].dilation + 1);
    pads.push_back(g.begin[i]);
    pads.push_back(std::max<std::int64_t>(0, reach - g.begin[i] - s64(ax[i].in)));
  }
  if (!small_enough(c, {N, C, out[0], out[1], out[2], g.k[0] * g.k[1] * g.k[2]}, "the stacked window taps")) return false;
  DType dt = x.type.dtype, ct = dt == DType::f64 ? DType::f64 : DType::f32;  // f16/bf16 compute in f32
  V xc = cast_to(c, x, ct);
  V xp = pad_with(c, xc, pads, 0.0);
  if (!xp) return false;
  std::vector<Value> taps;
  std::vector<std::uint64_t> one = out;
  one.insert(one.begin(), {N, C});
  one.push_back(1);
  for (std::uint64_t a = 0; a < g.k[0]; ++a)
    for (std::uint64_t b = 0; b < g.k[1]; ++b)
      for (std::uint64_t e = 0; e < g.k[2]; ++e) {
        V t = reshape(c, strided(c, *xp, {2, 3, 4}, {a * ax[0].dilation, b * ax[1].dilation, e * ax[2].dilation}, out,
                                 {ax[0].stride, ax[1].stride, ax[2].stride}), one);
        if (!t) return false;
        taps.push_back(*t);
      }
  V stack = taps.size() == 1 ? V(taps[0]) : c.op("concat", taps, {{"axis", AttrValue(std::int64_t{5})}});
  V sum = stack ? c.op("sum", {*stack}, {{"axes", AttrValue(Ints{5})}}) : V{};
  if (!sum) return false;
  // The divisor per output: the product of the per-axis counts, each a [OD, 1, 1], [OH, 1]
  // or [OW] constant (a scalar where an axis's counts agree); products of integers <= 4096, exact.
  V div;
  for (std::size_t i = 0; i < 3; ++i) {
    std::vector<double> n;
    for (std::uint64_t o = 0; o < out[i]; ++o) n.push_back(static_cast<double>(ax[i].pool_count(o, include_pad)));
    bool same = std::all_of(n.begin(), n.end(), [&](double v) { return v == n[0]; });
    std::vector<std::uint64_t> shape{out[i]};
    shape.resize(3 - i, 1);
    Value f = same ? c.scalar(ct, n[0]) : c.constant(ops::HostTensor::from_f64(shape, n, ct));
    div = div ? c.op("mul", {*div, f}) : V(f);
    if (!div) return false;
  }
  V y = c.op("div", {*sum, *div});
  return y && out0(c, cast_to(c, *y, dt));
}

bool conv(NodeCtx& c) {
  if (!need(c, 2)) return false;
  const Value &x = c.in(0), &w = c.in(1);
  if (x.rank() == 5) {
    Geometry g;
    if (!spatial_of(c, x, g) || !weights(c, x, w, g) || !read_window(c, g, false, 1, true)) return false;
    return conv_3d(c, x, w, g, c.attr_int("group", 1));
  }
  return out0(c, conv_of(c, conv_inputs(c)));
}

bool conv_transpose(NodeCtx& c) {
  if (!need(c, 2)) return false;
  const Value &x = c.in(0), &w = c.in(1);
  Geometry g;
  if (!spatial_of(c, x, g) || !weights(c, x, w, g) || !read_window(c, g, false, 1, false)) return false;
  Ints op;
  if (!per_axis(c, "output_padding", g.rank, 0, 0, op)) return false;
  auto shape = c.attr_ints("output_shape");
  if (c.attr_error()) return false;
  if (shape && shape->size() == g.rank + 2) shape = Ints(shape->begin() + 2, shape->end());  // [N, C, spatial...] given whole
  if (shape && shape->size() != g.rank)
    return c.fail("I0005", "`output_shape` needs " + std::to_string(g.rank) + " spatial extents, got " + std::to_string(shape->size()));
  bool same = g.auto_pad == "SAME_UPPER" || g.auto_pad == "SAME_LOWER";
  if (shape || same) {
    // The extent asked for (output_shape, or in * stride under SAME) fixes the total padding
    // of the full extent s*(in-1) + output_padding + d*(k-1) + 1; SAME_UPPER puts the odd one
    // after, NOTSET and SAME_LOWER before (the ONNX spec). Asking for more than the full
    // extent adds output_padding after instead.
    for (std::size_t i = 0; i < g.rank; ++i) {
      std::int64_t in = static_cast<std::int64_t>(g.in[i]), k = static_cast<std::int64_t>(g.k[i]);
      std::int64_t want = shape ? (*shape)[i] : in * g.strides[i];
      std::int64_t full = g.strides[i] * (in - 1) + op[i] + g.dilations[i] * (k - 1) + 1;
      std::int64_t total = full - want;
      if (total < 0) {
        op[i] += -total;
        g.begin[i] = g.end[i] = 0;
        continue;
      }
      std::int64_t half = total / 2;
      bool upper = g.auto_pad == "SAME_UPPER";
      g.begin[i] = upper ? half : total - half;
      g.end[i] = upper ? total - half : half;
    }
  }
  if (g.rank == 3) return conv_transpose_3d(c, x, w, g, op, c.attr_int("group", 1));
  AttrMap a = window_attrs(g);
  a.emplace("groups", AttrValue(c.attr_int("group", 1)));
  a.emplace("output_padding", AttrValue(op));
  return out0(c, c.op("conv_transpose", conv_inputs(c), a));
}

// ONNX's pooled extent is the ceiling without PyTorch's rule that drops a window starting in
// the after-padding (rung's, docs/semantics.md §17); a model where the two differ is refused.
bool ceil_extents_agree(NodeCtx& c, const Geometry& g) {
  for (std::size_t i = 0; i < g.rank; ++i) {
    std::int64_t padded = static_cast<std::int64_t>(g.in[i]) + g.begin[i] + g.end[i];
    std::int64_t span = g.dilations[i] * (static_cast<std::int64_t>(g.k[i]) - 1) + 1;
    if (padded < span) return true;  // the shape rule names this
    std::int64_t out = (padded - span + g.strides[i] - 1) / g.strides[i] + 1;
    if ((out - 1) * g.strides[i] >= static_cast<std::int64_t>(g.in[i]) + g.begin[i])
      return c.fail("I0005", "ceil_mode: the last window of spatial axis " + std::to_string(i) +
                                 " starts in the end padding (ONNX keeps it, rung drops it as PyTorch does)");
  }
  return true;
}

bool pool_window(NodeCtx& c, const Value& x, Geometry& g, int dilation_since, bool& ceil_mode) {
  if (!spatial_of(c, x, g) || !read_window(c, g, true, dilation_since, true)) return false;
  ceil_mode = c.opset() >= 10 && c.attr_int("ceil_mode", 0) != 0;
  return !ceil_mode || ceil_extents_agree(c, g);
}

bool max_pool(NodeCtx& c) {
  if (!need(c, 1)) return false;
  // int8 / uint8 (opset 12) through f32 and back: every value is exact in f32 and the maximum
  // commutes with an exact monotone cast, so this is the integer max pool.
  DType dt = c.in(0).type.dtype;
  bool small_int = dt == DType::u8 || dt == DType::i8;
  V xv = small_int ? cast_to(c, c.in(0), DType::f32) : V{c.in(0)};
  if (!xv) return false;
  const Value& x = *xv;
  Geometry g;
  bool ceil_mode = false;
  if (!pool_window(c, x, g, 10, ceil_mode)) return false;
  std::int64_t order = c.opset() >= 8 ? c.attr_int("storage_order", 0) : 0;
  if (order != 0 && order != 1) return c.fail("I0005", "`storage_order` " + std::to_string(order) + " is not 0 or 1");
  if (g.rank == 3) return max_pool_3d(c, x, g, ceil_mode);
  AttrMap a = window_attrs(g);
  a.emplace("kernel_shape", AttrValue(Ints(g.k.begin(), g.k.end())));
  a.emplace("ceil_mode", AttrValue(ceil_mode));
  auto r = c.op_multi("max_pool", {x}, a);
  if (!r) return false;
  V y = small_int ? cast_to(c, (*r)[0], dt) : V{(*r)[0]};
  if (!y) return false;
  c.set(0, *y);
  if (!c.want(1)) return true;
  V idx = (*r)[1];
  if (order == 1 && g.rank == 2) {
    // Column-major within the plane: i = plane + h*W + w becomes plane + w*H + h.
    std::int64_t H = static_cast<std::int64_t>(g.in[0]), W = static_cast<std::int64_t>(g.in[1]);
    auto k = [&](std::int64_t v) { return c.scalar(DType::i64, static_cast<double>(v)); };
    V plane = c.op("div", {*idx, k(H * W)});
    V base = plane ? c.op("mul", {*plane, k(H * W)}) : V{};
    V q = base ? c.op("sub", {*idx, *base}) : V{};
    V h = q ? c.op("div", {*q, k(W)}) : V{};
    V hw = h ? c.op("mul", {*h, k(W)}) : V{};
    V w = hw ? c.op("sub", {*q, *hw}) : V{};
    V wh = w ? c.op("mul", {*w, k(H)}) : V{};
    V s = wh ? c.op("add", {*base, *wh}) : V{};
    idx = s ? c.op("add", {*s, *h}) : V{};
    if (!idx) return false;
  }
  c.set(1, *idx);
  return true;
}

bool avg_pool(NodeCtx& c) {
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  Geometry g;
  bool ceil_mode = false;
  if (!pool_window(c, x, g, 19, ceil_mode)) return false;  // dilations arrive at opset 19
  bool include_pad = c.opset() >= 7 && c.attr_int("count_include_pad", 0) != 0;
  if (g.rank == 3) return avg_pool_3d(c, x, g, ceil_mode, include_pad);
  AttrMap a = window_attrs(g);
  a.emplace("kernel_shape", AttrValue(Ints(g.k.begin(), g.k.end())));
  a.emplace("ceil_mode", AttrValue(ceil_mode));
  a.emplace("count_include_pad", AttrValue(include_pad));
  return out0(c, c.op("avg_pool", {x}, a));
}

}  // namespace

void add_conv_handlers(std::vector<Handler>& h) {
  h.push_back({"Conv", 1, kMaxOpset, conv, "conv (1-D, 2-D; pads reordered, auto_pad resolved; 3-D: depth taps gathered into the channels (pad, slice, concat, transpose, reshape), a 2-D conv)"});
  h.push_back({"ConvTranspose", 1, kMaxOpset, conv_transpose, "conv_transpose (output_shape resolved to pads and output_padding; 3-D: the depth-stride-spread input's taps gathered into the channels, a 2-D conv_transpose)"});
  h.push_back({"MaxPool", 1, kMaxOpset, max_pool, "max_pool (Indices; storage_order 1: div, mul, sub, add; int8/uint8 through an exact cast to f32; 3-D: a 2-D then a 1-D max_pool, no Indices)"});
  h.push_back({"AveragePool", 1, kMaxOpset, avg_pool, "avg_pool (3-D: slice per tap, concat, sum, div)"});
}

}  // namespace rung::onnx_import
