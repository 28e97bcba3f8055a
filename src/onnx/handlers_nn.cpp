// MatMul and Gemm, softmax (below opset 13 it flattens to 2-D at `axis`), BatchNormalization
// (inference, and training_mode from opset 14), LayerNormalization, Dropout (inference, and
// training with ratio 0), and the global pools, as the ONNX reference computes them.
#include "onnx/handlers.h"

namespace rung::onnx_import {

std::optional<Value> matmul_of(NodeCtx& c, Value a, Value b) {
  if (a.rank() == 0 || b.rank() == 0) {
    c.fail("I0005", "MatMul of a scalar");
    return std::nullopt;
  }
  bool a1 = a.rank() == 1, b1 = b.rank() == 1;
  // 1-D operands as numpy takes them: [K] -> [1, K] on the left, [K, 1] on the right.
  if (a1) {
    auto r = reshape_to(c, a, {Dim::fixed(1), a.type.shape[0]});
    if (!r) return std::nullopt;
    a = *r;
  }
  if (b1) {
    auto r = reshape_to(c, b, {b.type.shape[0], Dim::fixed(1)});
    if (!r) return std::nullopt;
    b = *r;
  }
  std::optional<Value> y = c.op("matmul", {a, b});
  if (!y || (!a1 && !b1)) return y;
  Shape s = y->type.shape;
  if (b1) s.pop_back();
  if (a1) s.erase(s.end() - 1 - (b1 ? 0 : 1));
  return reshape_to(c, *y, s);
}

namespace {

using V = std::optional<Value>;
using Ints = std::vector<std::int64_t>;

bool matmul(NodeCtx& c) { return need(c, 2) && out0(c, matmul_of(c, c.in(0), c.in(1))); }

bool gemm(NodeCtx& c) {  // alpha * (A' B') + beta * C
  if (!need(c, 2)) return false;
  const Value &a = c.in(0), &b = c.in(1);
  if (a.rank() != 2 || b.rank() != 2) return c.fail("I0005", "Gemm takes 2-D A and B, got " + a.type.to_string() + " and " + b.type.to_string());
  double alpha = c.attr_float("alpha", 1.0f), beta = c.attr_float("beta", 1.0f);
  bool ta = c.attr_int("transA", 0) != 0, tb = c.attr_int("transB", 0) != 0;
  if (c.opset() < 11 && !c.has(2)) return c.fail("I0005", "input C is required below opset 11");
  V y = c.op("matmul", {a, b}, {{"transpose_a", AttrValue(ta)}, {"transpose_b", AttrValue(tb)}});
  if (y && alpha != 1.0) y = c.op("mul", {c.scalar(y->type.dtype, alpha), *y});
  if (!y || !c.has(2)) return out0(c, y);
  V cc = c.in(2);
  if (beta != 1.0) cc = c.op("mul", {c.scalar(cc->type.dtype, beta), *cc});
  return cc && out0(c, c.op("add", {*y, *cc}));
}

bool softmax(NodeCtx& c, const char* op) {
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  bool flattens = c.opset() < 13;
  auto ax = c.axis(c.attr_int("axis", flattens ? 1 : -1), x.rank(), "axis");
  if (!ax) return false;
  if (!flattens || *ax + 1 == static_cast<std::int64_t>(x.rank()))
    return out0(c, c.op(op, {x}, {{"axis", AttrValue(*ax)}}));
  // Below opset 13 the axes from `axis` on are one: [prod(d < axis), prod(d >= axis)].
  auto dims = c.static_shape(x, "the input (softmax below opset 13 flattens it)");
  if (!dims) return false;
  if (!x.type.element_count()) return c.fail("I0006", "the element count of " + x.type.to_string() + " overflows");
  std::uint64_t lo = 1, hi = 1;
  for (std::size_t i = 0; i < dims->size(); ++i) (static_cast<std::int64_t>(i) < *ax ? lo : hi) *= (*dims)[i];
  V flat = reshape_to(c, x, {Dim::fixed(lo), Dim::fixed(hi)});
  V y = flat ? c.op(op, {*flat}, {{"axis", AttrValue(std::int64_t{1})}}) : V{};
  return y && out0(c, reshape_to(c, *y, x.type.shape));
}

// [C] -> [C, 1, ...] against x of rank r (channel axis 1).
V per_channel(NodeCtx& c, const Value& v, std::size_t rank) {
  if (v.rank() != 1) {
    c.fail("I0005", "a per-channel operand must be 1-D, got " + v.type.to_string());
    return std::nullopt;
  }
  Shape s{v.type.shape[0]};
  for (std::size_t i = 2; i < rank; ++i) s.push_back(Dim::fixed(1));
  return reshape_to(c, v, s);
}

bool batch_norm(NodeCtx& c) {  // (x - mean) / sqrt(var + eps) * scale + B
  if (!need(c, 5)) return false;
  const Value& x = c.in(0);
  double eps = c.attr_float("epsilon", 1e-5f);
  double momentum = c.attr_float("momentum", 0.9f);  // used only by training
  if (c.opset() < 9 && c.attr_int("spatial", 1) != 1) return c.fail("I0005", "spatial = 0 is not supported");
  bool training = c.attr_int("training_mode", 0) != 0;
  if (training && c.opset() < 14) return c.fail("I0005", "training_mode below opset 14");
  if (c.attr_error()) return false;
  // Training (opset 14 on): Y from the batch's statistics over N and the spatial axes, and the
  // running statistics mean * momentum + batch * (1 - momentum), as the ONNX reference.
  for (std::size_t i = training ? 3 : 1; i < c.results().size(); ++i)
    if (c.want(i)) return c.fail("I0005", "output " + std::to_string(i) + (training ? " (the saved statistics, before opset 14)" : " (the running statistics) exists only in training"));
  if (x.rank() < 2) return c.fail("I0005", "the input must have a channel axis, got " + x.type.to_string());
  V scale = per_channel(c, c.in(1), x.rank()), bias = scale ? per_channel(c, c.in(2), x.rank()) : V{};
  if (!bias) return false;
  V mean, var;
  if (!training) {
    mean = per_channel(c, c.in(3), x.rank());
    var = mean ? per_channel(c, c.in(4), x.rank()) : V{};
  } else {
    for (std::size_t i : {3, 4})
      if (c.in(i).rank() != 1) return c.fail("I0005", "a per-channel operand must be 1-D, got " + c.in(i).type.to_string());
    Ints axes{0};
    for (std::size_t i = 2; i < x.rank(); ++i) axes.push_back(static_cast<std::int64_t>(i));
    AttrMap over{{"axes", AttrValue(axes)}, {"keepdims", AttrValue(false)}};
    V bm = c.op("mean", {x}, over);
    V bv = bm ? c.op("variance", {x}, over) : V{};  // the population variance (numpy's var)
    if (!bv) return false;
    auto running = [&](const Value& old, const Value& batch) -> V {
      V a = c.op("mul", {old, c.scalar(old.type.dtype, momentum)});
      V b = c.op("mul", {batch, c.scalar(batch.type.dtype, 1 - momentum)});
      return a && b ? c.op("add", {*a, *b}) : V{};
    };
    if (c.want(1)) {
      V rm = running(c.in(3), *bm);
      if (!rm) return false;
      c.set(1, *rm);
    }
    if (c.want(2)) {
      V rv = running(c.in(4), *bv);
      if (!rv) return false;
      c.set(2, *rv);
    }
    mean = per_channel(c, *bm, x.rank());
    var = mean ? per_channel(c, *bv, x.rank()) : V{};
  }
  if (!var) return false;
  V d = c.op("sub", {x, *mean});
  V ve = c.op("add", {*var, c.scalar(var->type.dtype, eps)});
  V sd = ve ? c.op("sqrt", {*ve}) : V{};
  V n = d && sd ? c.op("div", {*d, *sd}) : V{};
  V s = n ? c.op("mul", {*scale, *n}) : V{};
  return s && out0(c, c.op("add", {*s, *bias}));
}

bool instance_norm(NodeCtx& c) {  // scale * (x - mean) / sqrt(var + eps) + B over the spatial axes
  if (!need(c, 3)) return false;
  const Value& x = c.in(0);
  double eps = c.attr_float("epsilon", 1e-5f);
  if (x.rank() < 3) return c.fail("I0005", "the input must be [N, C, spatial...], got " + x.type.to_string());
  Ints axes;
  for (std::size_t i = 2; i < x.rank(); ++i) axes.push_back(static_cast<std::int64_t>(i));
  AttrMap over{{"axes", AttrValue(axes)}, {"keepdims", AttrValue(true)}};
  V scale = per_channel(c, c.in(1), x.rank()), bias = scale ? per_channel(c, c.in(2), x.rank()) : V{};
  V mean = bias ? c.op("mean", {x}, over) : V{};
  V var = mean ? c.op("variance", {x}, over) : V{};
  V d = var ? c.op("sub", {x, *mean}) : V{};
  V sd = d ? c.op("mul", {*scale, *d}) : V{};
  V ve = sd ? c.op("add", {*var, c.scalar(var->type.dtype, eps)}) : V{};
  V root = ve ? c.op("sqrt", {*ve}) : V{};
  V q = root ? c.op("div", {*sd, *root}) : V{};
  return q && out0(c, c.op("add", {*q, *bias}));
}

bool mean_variance_norm(NodeCtx& c) {  // (x - mean) / (sqrt(mean(x^2) - mean^2) + 1e-9), as the reference
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  auto given = c.attr_ints("axes");
  if (c.attr_error()) return false;
  Ints axes;
  for (auto a : given.value_or(Ints{0, 2, 3})) {
    auto ax = c.axis(a, x.rank(), "axis");
    if (!ax) return false;
    axes.push_back(*ax);
  }
  AttrMap over{{"axes", AttrValue(axes)}, {"keepdims", AttrValue(true)}};
  V mean = c.op("mean", {x}, over);
  V mean2 = mean ? c.op("square", {*mean}) : V{};
  V sq = c.op("square", {x});
  V sqmean = sq ? c.op("mean", {*sq}, over) : V{};
  V diff = sqmean && mean2 ? c.op("sub", {*sqmean, *mean2}) : V{};
  V sd = diff ? c.op("sqrt", {*diff}) : V{};
  V den = sd ? c.op("add", {*sd, c.scalar(x.type.dtype, 1e-9)}) : V{};
  V num = mean ? c.op("sub", {x, *mean}) : V{};
  return den && num && out0(c, c.op("div", {*num, *den}));
}

bool layer_norm(NodeCtx& c) {
  if (!need(c, 2)) return false;
  const Value& x = c.in(0);
  double eps = c.attr_float("epsilon", 1e-5f);
  if (c.attr_int("stash_type", 1) != 1) return c.fail("I0005", "stash_type other than 1 (FLOAT)");
  if (x.type.dtype != DType::f32) return c.fail("I0005", "LayerNormalization of " + x.type.to_string() + " (f32 only for now)");
  auto ax = c.axis(c.attr_int("axis", -1), x.rank(), "axis");
  if (!ax) return false;
  Shape norm(x.type.shape.begin() + *ax, x.type.shape.end());
  auto fit = [&](const Value& v) -> V {  // scale and B broadcast to the normalised shape
    if (v.type.shape == norm) return v;
    return c.op("broadcast_to", {v}, {{"shape", AttrValue(norm)}});
  };
  V g = fit(c.in(1));
  V bb = c.has(2) ? fit(c.in(2)) : V{};
  if (!g || (c.has(2) && !bb)) return false;
  std::vector<Value> args{x, *g};
  if (bb) args.push_back(*bb);
  V y = c.op("layer_norm", args, {{"axis", AttrValue(*ax)}, {"eps", AttrValue(eps)}});
  if (!y) return false;
  c.set(0, *y);
  if (!c.want(1) && !c.want(2)) return true;
  Ints axes;
  for (auto i = *ax; i < static_cast<std::int64_t>(x.rank()); ++i) axes.push_back(i);
  AttrMap over{{"axes", AttrValue(axes)}, {"keepdims", AttrValue(true)}};
  V mean = c.op("mean", {x}, over);
  V var = c.op("variance", {x}, over);
  V ve = var ? c.op("add", {*var, c.scalar(DType::f32, eps)}) : V{};
  V sd = ve ? c.op("sqrt", {*ve}) : V{};
  V inv = sd ? c.op("reciprocal", {*sd}) : V{};
  if (!mean || !inv) return false;
  c.set(1, *mean);
  c.set(2, *inv);
  return true;
}

bool dropout(NodeCtx& c) {  // inference, or training with ratio 0: the identity, and a mask of ones
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  double ratio = c.attr_float("ratio", 0.5f);
  (void)c.attr_int("seed", 0);
  bool training = false;
  if (c.opset() >= 12 && c.has(2)) {
    auto t = c.known_ints(c.in(2), "training_mode (input 2)");
    if (!t) return false;
    if (t->size() != 1) return c.fail("I0005", "training_mode must be one value, got " + c.in(2).type.to_string());
    training = (*t)[0] != 0;
  }
  if (training) {  // only ratio 0 drops nothing; any other ratio draws random numbers numpy's would not match
    if (c.has(1)) {
      auto r = c.known_reals(c.in(1), "ratio (input 1)");
      if (!r) return false;
      if (r->size() != 1) return c.fail("I0005", "ratio must be one value, got " + c.in(1).type.to_string());
      ratio = (*r)[0];
    }
    if (ratio != 0.0)
      return c.fail("I0005", "training_mode = true with ratio " + std::to_string(ratio) + " (random; only ratio 0, the identity, is imported)");
  }
  c.set(0, x);
  if (!c.want(1)) return true;
  V ones = c.op("ones_like", {x});
  if (!ones) return false;
  V mask = c.opset() >= 10 ? cast_to(c, *ones, DType::boolean) : ones;  // T below opset 10, bool from 10
  if (!mask) return false;
  c.set(1, *mask);
  return true;
}

bool global_pool(NodeCtx& c, const char* op) {
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  if (x.rank() < 3) return c.fail("I0005", "a global pool takes [N, C, spatial...], got " + x.type.to_string());
  Ints axes;
  for (std::size_t i = 2; i < x.rank(); ++i) axes.push_back(static_cast<std::int64_t>(i));
  return out0(c, c.op(op, {x}, {{"axes", AttrValue(axes)}, {"keepdims", AttrValue(true)}}));
}

}  // namespace

void add_nn_handlers(std::vector<Handler>& h) {
  h.push_back({"MatMul", 1, kMaxOpset, matmul, "matmul (1-D operands reshaped)"});
  h.push_back({"Gemm", 7, kMaxOpset, gemm, "matmul with transpose flags, mul by alpha and beta, add"});
  h.push_back({"Softmax", 1, 12, [](NodeCtx& c) { return softmax(c, "softmax"); }, "softmax (flattened to 2-D at axis)"});
  h.push_back({"Softmax", 13, kMaxOpset, [](NodeCtx& c) { return softmax(c, "softmax"); }, "softmax"});
  h.push_back({"LogSoftmax", 1, 12, [](NodeCtx& c) { return softmax(c, "log_softmax"); }, "log_softmax (flattened to 2-D at axis)"});
  h.push_back({"LogSoftmax", 13, kMaxOpset, [](NodeCtx& c) { return softmax(c, "log_softmax"); }, "log_softmax"});
  h.push_back({"BatchNormalization", 7, kMaxOpset, batch_norm, "sub, add, sqrt, div, mul, add; training_mode: mean, variance over N and spatial"});
  h.push_back({"LayerNormalization", 17, kMaxOpset, layer_norm, "layer_norm; Mean and InvStdDev: mean, variance, sqrt, reciprocal"});
  h.push_back({"InstanceNormalization", 6, kMaxOpset, instance_norm, "mean, variance, sub, mul, add, sqrt, div, add"});
  h.push_back({"MeanVarianceNormalization", 9, kMaxOpset, mean_variance_norm, "mean, square, sub, sqrt, add, div"});
  h.push_back({"Dropout", 7, kMaxOpset, dropout, "identity (inference, or training with ratio 0); mask: ones_like"});
  h.push_back({"GlobalAveragePool", 1, kMaxOpset, [](NodeCtx& c) { return global_pool(c, "mean"); }, "mean over the spatial axes"});
  h.push_back({"GlobalMaxPool", 1, kMaxOpset, [](NodeCtx& c) { return global_pool(c, "max"); }, "max over the spatial axes"});
}

}  // namespace rung::onnx_import
