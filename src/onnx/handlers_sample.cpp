// GridSample (opset 16, 4-D) and RoiAlign (10-): resampling at coordinates that come from
// an operand (the grid, the rois and batch indices). Those are known at import here (a
// constant or a graph input bound at import; I0012 names it otherwise; a bilinear or nearest
// GridSample without reflection also takes a run-time grid: grid_sample_runtime). The importer then
// computes every tap, its source pixel and its weight, as the suite's references do (GridSample
// as PyTorch's grid_sampler_2d, RoiAlign as onnxruntime's RoiAlign, both in the input's float
// type), and the run-time part is a gather of pixel rows ([N*H*W, C] plus a zero row for
// taps outside) times constant weights, summed over the taps (RoiAlign's avg then divides by
// the sample count; its max takes the largest weighted corner, as onnxruntime does).
#include <algorithm>
#include <cmath>

#include "onnx/handlers.h"

namespace rung::onnx_import {
namespace {

using V = std::optional<Value>;
using Ints = std::vector<std::int64_t>;
using U64s = std::vector<std::uint64_t>;

constexpr std::uint64_t kMaxTaps = 1u << 22;  // taps expanded at import (index and weight each)

// y[l0, C, l1, l2] = reduce over t of w[l, t] * rows(x)[idx[l, t]]; rows(x) is x [N, C, H, W]
// as [N*H*W, C] with a zero row at N*H*W. `w` empty: a plain pick (t = 1).
V tap_sum(NodeCtx& c, const Value& x, const U64s& xs, const U64s& idx, const std::vector<double>& w, const U64s& lead,
          std::uint64_t taps, const char* reduce, bool in_order = false) {
  std::uint64_t pixels = xs[0] * xs[2] * xs[3];
  V moved = c.op("transpose", {x}, {{"perm", AttrValue(Ints{0, 2, 3, 1})}});
  V rows = moved ? reshape_to(c, *moved, {Dim::fixed(pixels), Dim::fixed(xs[1])}) : V{};
  Value zero = c.constant(ops::HostTensor(x.type.dtype, {1, xs[1]}));
  V padded = rows ? c.op("concat", {*rows, zero}, {{"axis", AttrValue(std::int64_t{0})}}) : V{};
  Ints iv(idx.begin(), idx.end());
  V g = padded ? c.op("gather", {*padded, c.constant(ops::HostTensor::from_i64({iv.size()}, iv))}, {{"axis", AttrValue(std::int64_t{0})}}) : V{};
  if (g && !w.empty()) g = c.op("mul", {*g, c.constant(ops::HostTensor::from_f64({w.size(), 1}, w, x.type.dtype))});
  Shape s{Dim::fixed(lead[0]), Dim::fixed(lead[1]), Dim::fixed(lead[2]), Dim::fixed(taps), Dim::fixed(xs[1])};
  V shaped = g ? reshape_to(c, *g, s) : V{};
  V red;
  if (in_order && shaped) {  // ((t0 + t1) + t2) + ...: the taps added in order, as a run-time grid adds them
    for (std::uint64_t t = 0; t < taps; ++t) {
      auto ti = static_cast<std::int64_t>(t);
      V sl = c.op("slice", {*shaped}, {{"starts", AttrValue(Ints{ti})}, {"ends", AttrValue(Ints{ti + 1})}, {"axes", AttrValue(Ints{3})}});
      red = !sl ? V{} : t == 0 ? sl : red ? c.op("add", {*red, *sl}) : V{};
      if (!red) return std::nullopt;
    }
    red = reshape_to(c, *red, {s[0], s[1], s[2], s[4]});
  } else if (shaped) {
    red = c.op(reduce, {*shaped}, {{"axes", AttrValue(Ints{3})}, {"keepdims", AttrValue(false)}});
  }
  return red ? c.op("transpose", {*red}, {{"perm", AttrValue(Ints{0, 3, 1, 2})}}) : V{};
}

bool float_input(NodeCtx& c, const Value& x) {
  DType d = x.type.dtype;
  if (d == DType::f32 || d == DType::f64 || d == DType::f16 || d == DType::bf16) return true;
  return c.fail("I0005", "the input must be a float tensor, not " + x.type.to_string());
}

// GridSample's and RoiAlign's X: a float [N, C, H, W] of static extents and at most 2^40
// elements; its extents, or nullopt after the diagnostic.
std::optional<U64s> sampled_input(NodeCtx& c, const Value& x) {
  if (!float_input(c, x)) return std::nullopt;
  if (x.rank() != 4) return c.fail("I0005", "the input must be [N, C, H, W], got " + x.type.to_string()), std::nullopt;
  auto xs = c.static_shape(x, "the input");
  if (!xs) return std::nullopt;
  if (!x.type.element_count() || *x.type.element_count() > (std::uint64_t{1} << 40))
    return c.fail("I0006", "the input " + x.type.to_string() + " is too large"), std::nullopt;
  return xs;
}

// The known float elements of a coordinate operand, in T.
template <typename T>
std::optional<std::vector<T>> coords(NodeCtx& c, const Value& v, const std::string& what) {
  if (!v.known) {
    c.not_known(v, what);
    return std::nullopt;
  }
  const auto& t = *v.known;
  if (!dtype_info(t.dtype()).is_float) {
    c.fail("I0005", what + " must be a float tensor, not " + t.type().to_string());
    return std::nullopt;
  }
  if (t.numel() > kMaxTaps) {
    c.fail("I0005", what + " has more than 2^22 elements, past what rung expands at import");
    return std::nullopt;
  }
  std::vector<T> out(t.numel());
  for (std::uint64_t i = 0; i < t.numel(); ++i) out[i] = static_cast<T>(t.load_f64(i));
  return out;
}

// ---- GridSample: PyTorch's grid_sampler_2d (aten/src/ATen/native/GridSampler.h) ----------

enum class Pad { zeros, border, reflection };

template <typename T>
T unnormalize(T coord, std::int64_t size, bool align) {
  return align ? ((coord + 1) / 2) * static_cast<T>(size - 1) : ((coord + 1) * static_cast<T>(size) - 1) / 2;
}
template <typename T>
T clip(T in, std::int64_t size) {
  return std::min(static_cast<T>(size - 1), std::max(in, static_cast<T>(0)));
}
template <typename T>
T reflect(T in, std::int64_t twice_low, std::int64_t twice_high) {
  if (twice_low == twice_high) return static_cast<T>(0);
  T mn = static_cast<T>(twice_low) / 2, span = static_cast<T>(twice_high - twice_low) / 2;
  in = std::fabs(in - mn);
  T extra = std::fmod(in, span);
  T flips = std::floor(in / span);
  return std::fmod(flips, static_cast<T>(2)) == 0 ? extra + mn : span - extra + mn;
}
template <typename T>
T pad_coord(T coord, std::int64_t size, Pad p, bool align) {
  if (p == Pad::border) return clip(coord, size);
  if (p == Pad::reflection) return clip(align ? reflect(coord, 0, 2 * (size - 1)) : reflect(coord, -1, 2 * size - 1), size);
  return coord;
}
// An integer-valued coordinate inside [0, size) (NaN and huge values are outside).
template <typename T>
bool inside(T v, std::int64_t size) {
  return v >= 0 && v < static_cast<T>(size);
}
template <typename T>
T cubic1(T x, T a) { return ((a + 2) * x - (a + 3)) * x * x + 1; }
template <typename T>
T cubic2(T x, T a) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; }

template <typename T>
bool grid_taps(NodeCtx& c, const std::vector<T>& grid, const U64s& xs, const U64s& gs, const std::string& mode, Pad pad,
               bool align, U64s& idx, std::vector<double>& w, std::uint64_t& taps) {
  const auto n_b = xs[0], h = xs[2], wd = xs[3];
  const auto H = static_cast<std::int64_t>(h), W = static_cast<std::int64_t>(wd);
  const std::uint64_t zero_row = n_b * h * wd;
  taps = mode == "nearest" ? 1 : mode == "bilinear" ? 4 : 16;
  std::uint64_t points = gs[0] * gs[1] * gs[2];
  if (points > kMaxTaps / taps) return c.fail("I0005", "the grid's taps exceed the 2^22 rung expands at import");
  auto at = [&](std::uint64_t n, T yy, T xx) -> std::uint64_t {  // yy, xx integer-valued
    if (!inside(yy, H) || !inside(xx, W)) return zero_row;
    return (n * h + static_cast<std::uint64_t>(yy)) * wd + static_cast<std::uint64_t>(xx);
  };
  for (std::uint64_t p = 0; p < points; ++p) {
    std::uint64_t n = p / (gs[1] * gs[2]);
    T gx = grid[2 * p], gy = grid[2 * p + 1];
    if (mode == "bicubic") {
      T ix = unnormalize(gx, W, align), iy = unnormalize(gy, H, align);
      T x0 = std::floor(ix), y0 = std::floor(iy), tx = ix - x0, ty = iy - y0;
      const T a = static_cast<T>(-0.75);
      T cx[4] = {cubic2(tx + 1, a), cubic1(tx, a), cubic1(1 - tx, a), cubic2(1 - tx + 1, a)};
      T cy[4] = {cubic2(ty + 1, a), cubic1(ty, a), cubic1(1 - ty, a), cubic2(1 - ty + 1, a)};
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
          // get_value_bounded: the tap's coordinates padded, then truncated to int.
          T yy = std::trunc(pad_coord(y0 - 1 + static_cast<T>(i), H, pad, align));
          T xx = std::trunc(pad_coord(x0 - 1 + static_cast<T>(j), W, pad, align));
          idx.push_back(at(n, yy, xx));
          w.push_back(static_cast<double>(cy[i] * cx[j]));
        }
      continue;
    }
    T ix = pad_coord(unnormalize(gx, W, align), W, pad, align), iy = pad_coord(unnormalize(gy, H, align), H, pad, align);
    if (mode == "nearest") {
      idx.push_back(at(n, std::nearbyint(iy), std::nearbyint(ix)));  // halves to even, as std::nearbyint
      continue;
    }
    T x0 = std::floor(ix), y0 = std::floor(iy), x1 = x0 + 1, y1 = y0 + 1;
    T nw = (x1 - ix) * (y1 - iy), ne = (ix - x0) * (y1 - iy), sw = (x1 - ix) * (iy - y0), se = (ix - x0) * (iy - y0);
    idx.push_back(at(n, y0, x0)), w.push_back(static_cast<double>(nw));
    idx.push_back(at(n, y0, x1)), w.push_back(static_cast<double>(ne));
    idx.push_back(at(n, y1, x0)), w.push_back(static_cast<double>(sw));
    idx.push_back(at(n, y1, x1)), w.push_back(static_cast<double>(se));
  }
  return true;
}

// GridSample with a grid computed at run time (bilinear or nearest; zeros or border padding):
// the same coordinate arithmetic as grid_taps, as graph ops in the input's float type; each
// tap's row index is computed (the zero row when it lies outside) and gathered, and the four
// bilinear taps are added in PyTorch's order, nw + ne + sw + se.
bool grid_sample_runtime(NodeCtx& c, const Value& x, const Value& grid, const U64s& xs, const std::string& mode, Pad pad, bool align) {
  auto gsv = c.static_shape(grid, "the grid");
  if (!gsv) return false;
  const U64s& gs = *gsv;
  if (gs.size() != 4 || gs[0] != xs[0] || gs[3] != 2 || grid.type.dtype != x.type.dtype)
    return c.fail("I0005", "the grid must be [N, H_out, W_out, 2] of the input's N and type, got " + grid.type.to_string());
  const DType dt = x.type.dtype;
  const std::uint64_t n_b = xs[0], ch = xs[1], h = xs[2], wd = xs[3];
  const Shape pts{Dim::fixed(gs[0]), Dim::fixed(gs[1]), Dim::fixed(gs[2])};
  auto k = [&](double v) { return c.scalar(dt, v); };
  auto bin = [&](const char* op, const V& a, const Value& b) -> V { return a ? c.op(op, {*a, b}) : V{}; };
  auto comp = [&](std::int64_t i) -> V {
    V sl = c.op("slice", {grid}, {{"starts", AttrValue(Ints{i})}, {"ends", AttrValue(Ints{i + 1})}, {"axes", AttrValue(Ints{3})}});
    return sl ? reshape_to(c, *sl, pts) : V{};
  };
  auto coord = [&](V g, std::uint64_t size) -> V {
    auto sz = static_cast<double>(size);
    V t = bin("add", g, k(1));
    if (align) t = bin("mul", bin("div", t, k(2)), k(sz - 1));
    else t = bin("div", bin("sub", bin("mul", t, k(sz)), k(1)), k(2));
    if (pad == Pad::border) {  // min(size - 1, max(t, 0)); NaN gives size - 1, as std::min/std::max do
      V cl = bin("minimum", bin("maximum", t, k(0)), k(sz - 1));
      V nan = t ? c.op("ne", {*t, *t}) : V{};
      t = nan && cl ? c.op("where", {*nan, k(sz - 1), *cl}) : V{};
    }
    return t;
  };
  V moved = c.op("transpose", {x}, {{"perm", AttrValue(Ints{0, 2, 3, 1})}});
  V rows = moved ? reshape_to(c, *moved, {Dim::fixed(n_b * h * wd), Dim::fixed(ch)}) : V{};
  V rz = rows ? c.op("concat", {*rows, c.constant(ops::HostTensor(dt, {1, ch}))}, {{"axis", AttrValue(std::int64_t{0})}}) : V{};
  V nb = c.op("iota", {}, {{"shape", AttrValue(pts)}, {"axis", AttrValue(std::int64_t{0})}, {"dtype", AttrValue(DType::i64)}});
  V nbase = nb ? c.op("mul", {*nb, c.scalar(DType::i64, static_cast<double>(h * wd))}) : V{};
  auto tap = [&](V yy, V xx) -> V {  // rows at integer-valued (yy, xx): [N, Ho, Wo, C]
    if (!yy || !xx || !nbase || !rz) return std::nullopt;
    V ly = c.op("ge", {*yy, k(0)}), hy = c.op("lt", {*yy, k(static_cast<double>(h))});
    V lx = c.op("ge", {*xx, k(0)}), hx = c.op("lt", {*xx, k(static_cast<double>(wd))});
    if (!ly || !hy || !lx || !hx) return std::nullopt;
    V in_y = c.op("logical_and", {*ly, *hy}), in_x = c.op("logical_and", {*lx, *hx});
    V inside = in_y && in_x ? c.op("logical_and", {*in_y, *in_x}) : V{};
    V ys = inside ? c.op("where", {*inside, *yy, k(0)}) : V{}, xs2 = inside ? c.op("where", {*inside, *xx, k(0)}) : V{};
    V yi = ys ? cast_to(c, *ys, DType::i64) : V{}, xi = xs2 ? cast_to(c, *xs2, DType::i64) : V{};
    V at = yi && xi ? bin("add", bin("add", bin("mul", yi, c.scalar(DType::i64, static_cast<double>(wd))), *xi), *nbase) : V{};
    V idx = at ? c.op("where", {*inside, *at, c.scalar(DType::i64, static_cast<double>(n_b * h * wd))}) : V{};
    return idx ? c.op("gather", {*rz, *idx}, {{"axis", AttrValue(std::int64_t{0})}}) : V{};
  };
  V ix = coord(comp(0), wd), iy = coord(comp(1), h);
  if (!ix || !iy || !nbase) return false;
  V y;
  if (mode == "nearest") {
    y = tap(c.op("round", {*iy}), c.op("round", {*ix}));  // halves to even, as std::nearbyint
  } else {
    V x0 = c.op("floor", {*ix}), y0 = c.op("floor", {*iy});
    V x1 = bin("add", x0, k(1)), y1 = bin("add", y0, k(1));
    if (!x0 || !y0 || !x1 || !y1) return false;
    V e = c.op("sub", {*x1, *ix}), w = c.op("sub", {*ix, *x0}), s = c.op("sub", {*y1, *iy}), n = c.op("sub", {*iy, *y0});
    if (!e || !w || !s || !n) return false;
    Shape col = pts;
    col.push_back(Dim::fixed(1));
    auto term = [&](const V& a, const V& b, V yy, V xx) -> V {  // (a * b) * rows(yy, xx)
      V wt = a && b ? c.op("mul", {*a, *b}) : V{};
      V wc = wt ? reshape_to(c, *wt, col) : V{};
      V v = tap(yy, xx);
      return wc && v ? c.op("mul", {*v, *wc}) : V{};
    };
    V nw = term(e, s, y0, x0), ne = term(w, s, y0, x1), sw = term(e, n, y1, x0), se = term(w, n, y1, x1);
    if (!nw || !ne || !sw || !se) return false;
    y = bin("add", bin("add", bin("add", nw, *ne), *sw), *se);
  }
  return y && out0(c, c.op("transpose", {*y}, {{"perm", AttrValue(Ints{0, 3, 1, 2})}}));
}

bool grid_sample(NodeCtx& c) {
  if (!need(c, 2)) return false;
  const Value &x = c.in(0), &grid = c.in(1);
  bool align = c.attr_int("align_corners", 0) != 0;
  std::string mode = c.attr_string("mode", "bilinear"), pm = c.attr_string("padding_mode", "zeros");
  if (c.attr_error()) return false;
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic")
    return c.fail("I0005", "mode \"" + mode + "\" is not one of bilinear, nearest, bicubic");
  Pad pad = pm == "zeros" ? Pad::zeros : pm == "border" ? Pad::border : Pad::reflection;
  if (pm != "zeros" && pm != "border" && pm != "reflection")
    return c.fail("I0005", "padding_mode \"" + pm + "\" is not one of zeros, border, reflection");
  auto xs = sampled_input(c, x);
  if (!xs) return false;
  if (!grid.known && mode != "bicubic" && pad != Pad::reflection) return grid_sample_runtime(c, x, grid, *xs, mode, pad, align);
  if (!grid.known) return c.not_known(grid, "the grid (input 1) of a bicubic or reflection GridSample");
  const auto& gt = grid.known->shape();
  if (gt.size() != 4 || gt[0] != (*xs)[0] || gt[3] != 2)
    return c.fail("I0005", "the grid must be [N, H_out, W_out, 2] with the input's N, got " + grid.type.to_string());
  U64s gs(gt.begin(), gt.end()), idx;
  std::vector<double> w;
  std::uint64_t taps = 0;
  bool ok;
  if (x.type.dtype == DType::f64) {
    auto g = coords<double>(c, grid, "the grid (input 1)");
    ok = g && grid_taps<double>(c, *g, *xs, gs, mode, pad, align, idx, w, taps);
  } else {
    auto g = coords<float>(c, grid, "the grid (input 1)");
    ok = g && grid_taps<float>(c, *g, *xs, gs, mode, pad, align, idx, w, taps);
  }
  if (!ok) return false;
  if (mode == "nearest") w.clear();
  return out0(c, tap_sum(c, x, *xs, idx, w, {gs[0], gs[1], gs[2]}, taps, "sum", true));
}

// ---- RoiAlign: onnxruntime's RoiAlignForward (pre_calc_for_bilinear_interpolate) ---------

template <typename T>
bool roi_taps(NodeCtx& c, const std::vector<T>& rois, const std::vector<std::int64_t>& batch, const U64s& xs, std::uint64_t oh,
              std::uint64_t ow, std::int64_t ratio, T scale, bool half_pixel, bool max_mode, U64s& idx, std::vector<double>& w,
              std::vector<double>& counts, std::uint64_t& taps) {
  const std::uint64_t h = xs[2], wd = xs[3];
  const auto H = static_cast<std::int64_t>(h), W = static_cast<std::int64_t>(wd);
  const std::uint64_t n_rois = batch.size(), bins = oh * ow;
  struct Roi { T sh, sw, bh, bw; std::int64_t gh, gw; };
  std::vector<Roi> geo;
  taps = 0;
  for (std::uint64_t r = 0; r < n_rois; ++r) {
    const T off = half_pixel ? static_cast<T>(0.5) : static_cast<T>(0);
    T sw = rois[4 * r] * scale - off, sh = rois[4 * r + 1] * scale - off;
    T ew = rois[4 * r + 2] * scale - off, eh = rois[4 * r + 3] * scale - off;
    T rw = ew - sw, rh = eh - sh;
    if (!half_pixel) rw = std::max(rw, static_cast<T>(1)), rh = std::max(rh, static_cast<T>(1));
    T bh = rh / static_cast<T>(oh), bw = rw / static_cast<T>(ow);
    double gh = ratio > 0 ? static_cast<double>(ratio) : static_cast<double>(std::ceil(rh / static_cast<T>(oh)));
    double gw = ratio > 0 ? static_cast<double>(ratio) : static_cast<double>(std::ceil(rw / static_cast<T>(ow)));
    if (!(gh >= 0 && gw >= 0 && gh * gw * 4 <= static_cast<double>(kMaxTaps)))
      return c.fail("I0005", "roi " + std::to_string(r) + " needs a sampling grid past the 2^22 taps rung expands at import");
    geo.push_back({sh, sw, bh, bw, static_cast<std::int64_t>(gh), static_cast<std::int64_t>(gw)});
    taps = std::max<std::uint64_t>(taps, static_cast<std::uint64_t>(gh * gw) * 4);
  }
  taps = std::max<std::uint64_t>(taps, 1);
  if (n_rois * bins > kMaxTaps / taps) return c.fail("I0005", "the rois' taps exceed the 2^22 rung expands at import");
  const std::uint64_t zero_row = xs[0] * h * wd;
  for (std::uint64_t r = 0; r < n_rois; ++r) {
    const Roi& g = geo[r];
    const std::uint64_t base = static_cast<std::uint64_t>(batch[r]) * h * wd;
    counts.push_back(static_cast<double>(std::max<std::int64_t>(g.gh * g.gw, 1)));
    for (std::uint64_t ph = 0; ph < oh; ++ph)
      for (std::uint64_t pw = 0; pw < ow; ++pw) {
        std::uint64_t first = idx.size();
        for (std::int64_t iy = 0; iy < g.gh; ++iy) {
          T yy = g.sh + static_cast<T>(ph) * g.bh + static_cast<T>(static_cast<T>(iy) + static_cast<T>(0.5)) * g.bh / static_cast<T>(g.gh);
          for (std::int64_t ix = 0; ix < g.gw; ++ix) {
            T xx = g.sw + static_cast<T>(pw) * g.bw + static_cast<T>(static_cast<T>(ix) + static_cast<T>(0.5)) * g.bw / static_cast<T>(g.gw);
            T y = yy, x = xx;
            if (!(y >= -1 && y <= static_cast<T>(H) && x >= -1 && x <= static_cast<T>(W))) {  // NaN too
              for (int k = 0; k < 4; ++k) idx.push_back(base), w.push_back(0);  // pos 0 with weight 0, as onnxruntime
              continue;
            }
            if (y <= 0) y = 0;
            if (x <= 0) x = 0;
            auto yl = static_cast<std::int64_t>(y), xl = static_cast<std::int64_t>(x), yh = yl + 1, xh = xl + 1;
            if (yl >= H - 1) yh = yl = H - 1, y = static_cast<T>(yl);
            if (xl >= W - 1) xh = xl = W - 1, x = static_cast<T>(xl);
            T ly = y - static_cast<T>(yl), lx = x - static_cast<T>(xl), hy = 1 - ly, hx = 1 - lx;
            auto pos = [&](std::int64_t a, std::int64_t b) { return base + static_cast<std::uint64_t>(a * W + b); };
            idx.push_back(pos(yl, xl)), w.push_back(static_cast<double>(hy * hx));
            idx.push_back(pos(yl, xh)), w.push_back(static_cast<double>(hy * lx));
            idx.push_back(pos(yh, xl)), w.push_back(static_cast<double>(ly * hx));
            idx.push_back(pos(yh, xh)), w.push_back(static_cast<double>(ly * lx));
          }
        }
        // Pad to `taps`: the zero row (sum) or a repeat of the first tap (max; none: the zero row).
        while (idx.size() - first < taps) {
          bool rep = max_mode && idx.size() > first;
          idx.push_back(rep ? idx[first] : zero_row);
          w.push_back(rep ? w[first] : 0);
        }
      }
  }
  return true;
}

bool roi_align(NodeCtx& c) {
  if (!need(c, 3)) return false;
  const Value& x = c.in(0);
  std::string mode = c.attr_string("mode", "avg");
  std::int64_t oh = c.attr_int("output_height", 1), ow = c.attr_int("output_width", 1), ratio = c.attr_int("sampling_ratio", 0);
  double scale = c.attr_float("spatial_scale", 1.0f);
  std::string ctm = c.opset() >= 16 ? c.attr_string("coordinate_transformation_mode", "half_pixel") : "output_half_pixel";
  if (c.attr_error()) return false;
  if (mode != "avg" && mode != "max") return c.fail("I0005", "mode \"" + mode + "\" is not avg or max");
  if (ctm != "half_pixel" && ctm != "output_half_pixel")
    return c.fail("I0005", "coordinate_transformation_mode \"" + ctm + "\" is not half_pixel or output_half_pixel");
  if (oh < 1 || ow < 1 || oh > (1 << 16) || ow > (1 << 16))
    return c.fail("I0005", "output_height and output_width must be in [1, 65536], got " + std::to_string(oh) + " and " + std::to_string(ow));
  if (ratio < 0 || ratio > (1 << 10)) return c.fail("I0005", "sampling_ratio " + std::to_string(ratio) + " is outside [0, 1024]");
  auto xs = sampled_input(c, x);
  if (!xs) return false;
  const Value &rv = c.in(1), &bv = c.in(2);
  if (!rv.known) return c.not_known(rv, "the rois (input 1)");
  if (!bv.known) return c.not_known(bv, "the batch indices (input 2)");
  const auto& rs = rv.known->shape();
  const auto& bs = bv.known->shape();
  if (rs.size() != 2 || rs[1] != 4 || bs.size() != 1 || bs[0] != rs[0])
    return c.fail("I0005", "rois must be [R, 4] and batch_indices [R], got " + rv.type.to_string() + " and " + bv.type.to_string());
  if (rs[0] > kMaxTaps) return c.fail("I0005", "more than 2^22 rois");
  if (dtype_info(bv.known->dtype()).is_float) return c.fail("I0005", "batch_indices must be integers, not " + bv.type.to_string());
  std::vector<std::int64_t> batch;
  for (std::uint64_t i = 0; i < bs[0]; ++i) {
    std::int64_t b = bv.known->load_i64(i);
    if (b < 0 || static_cast<std::uint64_t>(b) >= (*xs)[0])
      return c.fail("I0005", "batch_indices[" + std::to_string(i) + "] = " + std::to_string(b) + " is outside [0, " + std::to_string((*xs)[0]) + ")");
    batch.push_back(b);
  }
  U64s idx;
  std::vector<double> w, counts;
  std::uint64_t taps = 0;
  bool half = ctm == "half_pixel", mx = mode == "max";
  auto uh = static_cast<std::uint64_t>(oh), uw = static_cast<std::uint64_t>(ow);
  bool ok;
  if (x.type.dtype == DType::f64) {
    auto r = coords<double>(c, rv, "the rois (input 1)");
    ok = r && roi_taps<double>(c, *r, batch, *xs, uh, uw, ratio, scale, half, mx, idx, w, counts, taps);
  } else {
    auto r = coords<float>(c, rv, "the rois (input 1)");
    ok = r && roi_taps<float>(c, *r, batch, *xs, uh, uw, ratio, static_cast<float>(scale), half, mx, idx, w, counts, taps);
  }
  if (!ok) return false;
  V y = tap_sum(c, x, *xs, idx, w, {rs[0], uh, uw}, taps, mx ? "max" : "sum");
  if (!y || mx) return out0(c, y);
  auto n_r = counts.size();
  return out0(c, c.op("div", {*y, c.constant(ops::HostTensor::from_f64({n_r, 1, 1, 1}, counts, x.type.dtype))}));
}

}  // namespace

void add_sample_handlers(std::vector<Handler>& h) {
  h.push_back({"GridSample", 16, kMaxOpset, grid_sample,
               "transpose, concat, gather of pixel rows, mul by weights, sum over the taps (the grid known at import); "
               "a run-time grid: slice, add, mul, div, floor/round, compares, where, cast, gather, mul, add"});
  h.push_back({"RoiAlign", 10, kMaxOpset, roi_align,
               "transpose, concat, gather of pixel rows, mul by weights, sum and div (avg) or max (the rois known at import)"});
}

}  // namespace rung::onnx_import
