// Ops built from index arithmetic over iota: DepthToSpace and SpaceToDepth (reshape,
// transpose, reshape), Trilu and EyeLike (a mask from two iotas), OneHot and Hardmax (a
// comparison with an iota along the class axis).
#include "onnx/dtypes.h"
#include "onnx/handlers.h"

namespace rung::onnx_import {
namespace {

using V = std::optional<Value>;
using Ints = std::vector<std::int64_t>;

Shape fixed(std::initializer_list<std::uint64_t> dims) {
  Shape s;
  for (auto d : dims) s.push_back(Dim::fixed(d));
  return s;
}

V iota(NodeCtx& c, Shape shape, std::int64_t axis) {
  return c.op("iota", {}, {{"shape", AttrValue(std::move(shape))}, {"axis", AttrValue(axis)}, {"dtype", AttrValue(DType::i64)}});
}

// x [N, C, H, W] as blocks of b: reshape to `split`, permute, reshape to `out`.
bool blocks(NodeCtx& c, const Value& x, const Shape& split, const Ints& perm, const Shape& out) {
  V s = reshape_to(c, x, split);
  V t = s ? c.op("transpose", {*s}, {{"perm", AttrValue(perm)}}) : V{};
  return t && out0(c, reshape_to(c, *t, out));
}

bool depth_to_space(NodeCtx& c) {
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  std::int64_t b = c.attr_int("blocksize", 0);
  std::string mode = c.opset() >= 11 ? c.attr_string("mode", "DCR") : "DCR";
  if (x.rank() != 4 || b <= 0) return c.fail("I0005", "DepthToSpace takes [N, C, H, W] and a positive blocksize");
  if (mode != "DCR" && mode != "CRD") return c.fail("I0005", "mode \"" + mode + "\"");
  Value chw = x;
  Shape d = x.type.shape;
  for (std::size_t i = 1; i < 4; ++i)
    if (!d[i].is_static()) return c.fail("I0012", "DepthToSpace over the symbolic dim " + d[i].name());
  auto bb = static_cast<std::uint64_t>(b);
  std::uint64_t C = d[1].extent(), H = d[2].extent(), W = d[3].extent();
  if (bb > C || bb * bb > C || C % (bb * bb) != 0)  // bb <= C keeps bb * bb from wrapping
    return c.fail("I0005", "C = " + std::to_string(C) + " is not a multiple of blocksize^2 = " + std::to_string(b) + "^2");
  if (H > UINT64_MAX / bb || W > UINT64_MAX / bb) return c.fail("I0006", "H or W times the blocksize overflows");
  Shape out{d[0], Dim::fixed(C / (bb * bb)), Dim::fixed(H * bb), Dim::fixed(W * bb)};
  if (mode == "DCR")
    return blocks(c, x, {d[0], Dim::fixed(bb), Dim::fixed(bb), Dim::fixed(C / (bb * bb)), d[2], d[3]}, {0, 3, 4, 1, 5, 2}, out);
  return blocks(c, x, {d[0], Dim::fixed(C / (bb * bb)), Dim::fixed(bb), Dim::fixed(bb), d[2], d[3]}, {0, 1, 4, 2, 5, 3}, out);
}

bool space_to_depth(NodeCtx& c) {
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  std::int64_t b = c.attr_int("blocksize", 0);
  if (x.rank() != 4 || b <= 0) return c.fail("I0005", "SpaceToDepth takes [N, C, H, W] and a positive blocksize");
  Shape d = x.type.shape;
  for (std::size_t i = 1; i < 4; ++i)
    if (!d[i].is_static()) return c.fail("I0012", "SpaceToDepth over the symbolic dim " + d[i].name());
  auto bb = static_cast<std::uint64_t>(b);
  std::uint64_t C = d[1].extent(), H = d[2].extent(), W = d[3].extent();
  if (H % bb != 0 || W % bb != 0) return c.fail("I0005", "H and W must be multiples of blocksize");
  if (bb > UINT64_MAX / bb || C > UINT64_MAX / (bb * bb)) return c.fail("I0006", "C times blocksize^2 overflows");
  return blocks(c, x, {d[0], d[1], Dim::fixed(H / bb), Dim::fixed(bb), Dim::fixed(W / bb), Dim::fixed(bb)}, {0, 3, 5, 1, 2, 4},
                {d[0], Dim::fixed(C * bb * bb), Dim::fixed(H / bb), Dim::fixed(W / bb)});
}

// j - i over the last two dims [M, N] (static), and its comparison with k.
V diagonal_mask(NodeCtx& c, std::uint64_t m, std::uint64_t n, std::int64_t k, const char* cmp) {
  V i = iota(c, fixed({m, n}), 0), j = iota(c, fixed({m, n}), 1);
  V d = i && j ? c.op("sub", {*j, *i}) : V{};
  return d ? c.op(cmp, {*d, c.scalar(DType::i64, static_cast<double>(k))}) : V{};
}

bool trilu(NodeCtx& c) {
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  bool upper = c.attr_int("upper", 1) != 0;
  std::int64_t k = 0;
  if (c.has(1)) {
    auto kv = c.known_ints(c.in(1), "k (input 1)");
    if (!kv) return false;
    if (kv->size() != 1) return c.fail("I0005", "k must hold one value");
    k = (*kv)[0];
  }
  if (x.rank() < 2) return c.fail("I0005", "Trilu takes a rank >= 2 input");
  const Dim &dm = x.type.shape[x.rank() - 2], &dn = x.type.shape[x.rank() - 1];
  if (!dm.is_static() || !dn.is_static()) return c.fail("I0012", "Trilu over symbolic matrix dims");
  // upper keeps j - i >= k, lower keeps j - i <= k
  V keep = diagonal_mask(c, dm.extent(), dn.extent(), k, upper ? "ge" : "le");
  return keep && out0(c, c.op("where", {*keep, x, c.scalar(x.type.dtype, 0)}));
}

bool eye_like(NodeCtx& c) {
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  if (x.rank() != 2) return c.fail("I0005", "EyeLike takes a 2-D input");
  auto dims = c.static_shape(x, "the input");
  if (!dims) return false;
  DType dt = x.type.dtype;
  if (c.has_attr("dtype")) {
    auto d = dtype_of(static_cast<std::int32_t>(c.attr_int("dtype", 1)));
    if (!d) return c.fail("I0007", "dtype " + std::to_string(c.attr_int("dtype", 1)) + " is not supported");
    dt = *d;
  }
  V on = diagonal_mask(c, (*dims)[0], (*dims)[1], c.attr_int("k", 0), "eq");
  return on && out0(c, cast_to(c, *on, dt));
}

bool one_hot(NodeCtx& c) {
  if (!need(c, 3)) return false;
  const Value& idx = c.in(0);
  auto depth = c.known_reals(c.in(1), "depth (input 1)");
  if (!depth) return false;
  if (depth->size() != 1 || (*depth)[0] < 1 || (*depth)[0] > 1e9) return c.fail("I0005", "depth must be one positive value");
  auto n = static_cast<std::uint64_t>((*depth)[0]);
  const Value& values = c.in(2);
  if (values.type.element_count() != std::optional<std::uint64_t>(2)) return c.fail("I0005", "values must hold [off, on]");
  std::size_t rank = idx.rank() + 1;
  auto ax = c.axis(c.attr_int("axis", -1), rank, "axis");
  if (!ax) return false;
  // Indices in [-depth, depth) count from the end when negative; others give all `off`.
  V i = cast_to(c, idx, DType::i64);
  V neg = i ? c.op("lt", {*i, c.scalar(DType::i64, 0)}) : V{};
  V wrapped = i ? c.op("add", {*i, c.scalar(DType::i64, static_cast<double>(n))}) : V{};
  V norm = neg && wrapped ? c.op("where", {*neg, *wrapped, *i}) : V{};
  if (!norm) return false;
  Shape at = norm->type.shape, classes(rank, Dim::fixed(1));
  at.insert(at.begin() + *ax, Dim::fixed(1));
  classes[static_cast<std::size_t>(*ax)] = Dim::fixed(n);
  V col = reshape_to(c, *norm, at);
  V cls = iota(c, classes, *ax);
  V hit = col && cls ? c.op("eq", {*col, *cls}) : V{};
  V flat = reshape_to(c, values, fixed({2}));
  auto pick = [&](std::int64_t k) -> V {
    if (!flat) return std::nullopt;
    return c.op("slice", {*flat}, {{"starts", AttrValue(Ints{k})}, {"ends", AttrValue(Ints{k + 1})}, {"axes", AttrValue(Ints{0})},
                                   {"steps", AttrValue(Ints{1})}});
  };
  V off = pick(0), on = pick(1);
  return hit && off && on && out0(c, c.op("where", {*hit, *on, *off}));
}

bool hardmax(NodeCtx& c) {
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  auto ax = c.axis(c.attr_int("axis", c.opset() >= 13 ? -1 : 1), x.rank(), "axis");
  if (!ax) return false;
  if (c.opset() < 13 && *ax + 1 != static_cast<std::int64_t>(x.rank()))
    return c.fail("I0005", "Hardmax below opset 13 over an axis other than the last (the flattened form) is not supported");
  auto dims = c.static_shape(x, "the input");
  if (!dims) return false;
  V first = c.op("argmax", {x}, {{"axis", AttrValue(*ax)}, {"keepdims", AttrValue(true)}});  // the first maximum
  Shape along(x.rank(), Dim::fixed(1));
  along[static_cast<std::size_t>(*ax)] = x.type.shape[static_cast<std::size_t>(*ax)];
  V cls = iota(c, along, *ax);
  V hit = first && cls ? c.op("eq", {*first, *cls}) : V{};
  return hit && out0(c, cast_to(c, *hit, x.type.dtype));
}

}  // namespace

void add_layout_handlers(std::vector<Handler>& h) {
  h.push_back({"DepthToSpace", 1, kMaxOpset, depth_to_space, "reshape, transpose, reshape (DCR; CRD from 11)"});
  h.push_back({"SpaceToDepth", 1, kMaxOpset, space_to_depth, "reshape, transpose, reshape"});
  h.push_back({"Trilu", 14, kMaxOpset, trilu, "iota, sub, ge/le, where"});
  h.push_back({"EyeLike", 9, kMaxOpset, eye_like, "iota, sub, eq, cast"});
  h.push_back({"OneHot", 9, kMaxOpset, one_hot, "cast, lt, add, where, reshape, iota, eq, slice, where"});
  h.push_back({"Hardmax", 1, kMaxOpset, hardmax, "argmax, iota, eq, cast (below 13: the last axis only)"});
}

}  // namespace rung::onnx_import
