// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss as the ONNX reference defines them:
// loss[n, d] = -w[t] * x[n, t, d] with t = target[n, d], 0 where t is ignore_index; `mean`
// divides by the sum of the weights of the targets not ignored (by the count when there are
// no weights but an ignore_index, plain mean otherwise).
//
// x[n, t, d] and w[t] are picked with a one-hot mask along C, eq(iota over C, target), and a
// sum over C of where(mask, x, 0). That is exact in every tier, whatever order the sum takes:
// each sum has at most one term that is not +0, and v + 0 = v. A target outside [0, C) (only
// the ignored one is valid there) matches no class, so nothing is read out of bounds.
#include <cstdint>

#include "onnx/handlers.h"

namespace rung::onnx_import {
namespace {

using V = std::optional<Value>;
using Ints = std::vector<std::int64_t>;

// sum over C (axis 1) of where(hit, v, 0); v broadcasts against hit [N, C, d...].
V pick(NodeCtx& c, const V& hit, const Value& v, DType dt) {
  V w = hit ? c.op("where", {*hit, v, c.scalar(dt, 0)}) : V{};
  return w ? c.op("sum", {*w}, {{"axes", AttrValue(Ints{1})}, {"keepdims", AttrValue(false)}}) : V{};
}

// `op` (sum or mean) over every axis, to a scalar.
V over_all(NodeCtx& c, const char* op, const Value& v) {
  Ints axes;
  for (std::size_t i = 0; i < v.rank(); ++i) axes.push_back(static_cast<std::int64_t>(i));
  return c.op(op, {v}, {{"axes", AttrValue(axes)}, {"keepdims", AttrValue(false)}});
}

// The loss of log-probabilities x [N, C, d...] against target [N, d...], weight [C] or none.
V nll(NodeCtx& c, const Value& x, const Value& target, const Value* weight) {
  std::string reduction = c.attr_string("reduction", "mean");
  bool ignores = c.has_attr("ignore_index");
  std::int64_t ii = c.attr_int("ignore_index", 0);
  if (c.attr_error()) return std::nullopt;
  auto bad = [&](const std::string& m) -> V {
    c.fail("I0005", m);
    return std::nullopt;
  };
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    return bad("reduction \"" + reduction + "\" (none, sum or mean)");
  DType dt = x.type.dtype, it = target.type.dtype;
  if (!dtype_info(dt).is_float) return bad("the input must be a float tensor, not " + x.type.to_string());
  if (it != DType::i32 && it != DType::i64) return bad("the target must be int32 or int64, not " + target.type.to_string());
  if (x.rank() < 2 || target.rank() + 1 != x.rank())
    return bad("input " + x.type.to_string() + " and target " + target.type.to_string() + " are not (N, C, d...) and (N, d...)");
  // An int32 target never equals an ignore_index beyond int32: nothing is ignored then, and
  // the mean over weights of 1 is the plain mean.
  if (it == DType::i32 && (ii < INT32_MIN || ii > INT32_MAX)) ignores = false;
  const Dim& classes = x.type.shape[1];
  if (!classes.is_static()) {
    c.fail("I0012", "the class dim " + classes.name() + " is symbolic; the one-hot mask needs its extent");
    return std::nullopt;
  }
  if (weight && (weight->rank() != 1 || weight->type.shape[0] != classes || weight->type.dtype != dt))
    return bad("weight " + weight->type.to_string() + " must be " + std::string(dtype_name(dt)) + "[" + classes.to_string() + "]");
  Shape along(x.rank(), Dim::fixed(1)), t1 = target.type.shape;
  along[1] = classes;
  t1.insert(t1.begin() + 1, Dim::fixed(1));
  V cls = c.op("iota", {}, {{"shape", AttrValue(along)}, {"axis", AttrValue(std::int64_t{1})}, {"dtype", AttrValue(it)}});
  V t = reshape_to(c, target, t1);
  V hit = cls && t ? c.op("eq", {*t, *cls}) : V{};
  V picked = pick(c, hit, x, dt);
  V loss = picked ? c.op("neg", {*picked}) : V{};
  V keep = ignores ? c.op("ne", {target, c.scalar(it, static_cast<double>(ii))}) : V{};
  if (!loss || (ignores && !keep)) return std::nullopt;
  V w;  // each target's weight, 0 where ignored; none: every weight is 1
  if (ignores) loss = c.op("where", {*keep, *loss, c.scalar(dt, 0)});
  if (weight) {
    V wr = reshape_to(c, *weight, along);
    w = wr ? pick(c, hit, *wr, dt) : V{};
    if (w && ignores) w = c.op("where", {*keep, *w, c.scalar(dt, 0)});
    if (w && loss) loss = c.op("mul", {*w, *loss});
  } else if (ignores) {
    w = c.op("where", {*keep, c.scalar(dt, 1), c.scalar(dt, 0)});
  }
  if (!loss || ((weight || ignores) && !w)) return std::nullopt;
  if (reduction == "none") return loss;
  if (reduction == "mean" && !w) return over_all(c, "mean", *loss);
  V total = over_all(c, "sum", *loss);
  if (reduction == "sum" || !total) return total;
  V den = over_all(c, "sum", *w);
  return den ? c.op("div", {*total, *den}) : V{};
}

bool nll_loss(NodeCtx& c) {
  if (!need(c, 2)) return false;
  const Value* weight = c.has(2) ? &c.in(2) : nullptr;
  return out0(c, nll(c, c.in(0), c.in(1), weight));
}

bool softmax_cross_entropy(NodeCtx& c) {  // log_softmax over C, then the loss above
  if (!need(c, 2)) return false;
  const Value& x = c.in(0);
  if (x.rank() < 2) return c.fail("I0005", "scores must be (N, C, d...), got " + x.type.to_string());
  V lp = c.op("log_softmax", {x}, {{"axis", AttrValue(std::int64_t{1})}});
  if (!lp) return false;
  const Value* weight = c.has(2) ? &c.in(2) : nullptr;
  if (!out0(c, nll(c, *lp, c.in(1), weight))) return false;
  if (c.want(1)) c.set(1, *lp);
  return true;
}

}  // namespace

void add_loss_handlers(std::vector<Handler>& h) {
  h.push_back({"NegativeLogLikelihoodLoss", 12, kMaxOpset, nll_loss,
               "iota, eq, where, sum over C (a one-hot pick), neg, mul, sum/mean/div"});
  h.push_back({"SoftmaxCrossEntropyLoss", 12, kMaxOpset, softmax_cross_entropy,
               "log_softmax over C, then NegativeLogLikelihoodLoss's ops"});
}

}  // namespace rung::onnx_import
