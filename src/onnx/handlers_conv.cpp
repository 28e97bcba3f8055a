// Conv, ConvTranspose, MaxPool and AveragePool onto the registry's conv family (docs/semantics.md
// §17). ONNX lists pads as [b0, b1, ..., e0, e1, ...], rung as [b0, e0, b1, e1, ...]; auto_pad
// SAME_UPPER / SAME_LOWER / VALID is resolved to explicit pads here (ops::same_pads), and
// ConvTranspose's output_shape to pads (and an output_padding where it asks for more than the
// window gives). rung's windows are 1-D or 2-D: a 3-D one is refused (I0005).
#include "onnx/handlers.h"
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

// Spatial extents of x ([N, C, spatial...], 1 or 2 of them, static).
bool spatial_of(NodeCtx& c, const Value& x, Geometry& g) {
  if (x.rank() != 3 && x.rank() != 4)
    return c.fail("I0005", x.rank() == 5 ? "3-D windows are not supported (rung's conv and pools take 1-D or 2-D: [N, C, L] or [N, C, H, W]), got " + x.type.to_string()
                                         : "the input must be [N, C, L] or [N, C, H, W], got " + x.type.to_string());
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

bool conv(NodeCtx& c) { return need(c, 2) && out0(c, conv_of(c, conv_inputs(c))); }

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
  AttrMap a = window_attrs(g);
  a.emplace("kernel_shape", AttrValue(Ints(g.k.begin(), g.k.end())));
  a.emplace("ceil_mode", AttrValue(ceil_mode));
  a.emplace("count_include_pad", AttrValue(c.opset() >= 7 && c.attr_int("count_include_pad", 0) != 0));
  return out0(c, c.op("avg_pool", {x}, a));
}

}  // namespace

void add_conv_handlers(std::vector<Handler>& h) {
  h.push_back({"Conv", 1, kMaxOpset, conv, "conv (1-D, 2-D; pads reordered, auto_pad resolved)"});
  h.push_back({"ConvTranspose", 1, kMaxOpset, conv_transpose, "conv_transpose (output_shape resolved to pads and output_padding)"});
  h.push_back({"MaxPool", 1, kMaxOpset, max_pool, "max_pool (Indices; storage_order 1: div, mul, sub, add; int8/uint8 through an exact cast to f32)"});
  h.push_back({"AveragePool", 1, kMaxOpset, avg_pool, "avg_pool"});
}

}  // namespace rung::onnx_import
