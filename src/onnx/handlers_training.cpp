// The optimizer steps of domain ai.onnx.preview.training (opset 1): Adagrad, Adam and Momentum,
// each over n tensors at once (inputs R, T, then n of each operand; outputs n of each result),
// composed from elementwise ops in the tensors' dtype as the ONNX formulas state them. The step
// count T may be computed at run time: its branches (T > 0 or not) are a `where`.
#include "onnx/handlers.h"
#include "onnx/place.h"

namespace rung::onnx_import {
namespace {

using V = std::optional<Value>;

// `op` over operands that may be missing (an earlier emitter failed and reported): then none.
V ap(NodeCtx& c, const char* op, std::initializer_list<V> xs) {
  std::vector<Value> v;
  for (const auto& x : xs) {
    if (!x) return std::nullopt;
    v.push_back(*x);
  }
  return c.op(op, std::move(v));
}

// The operand groups: inputs R, T, then `groups` groups of n; n from the input count.
std::optional<std::size_t> group_size(NodeCtx& c, std::size_t groups, std::size_t out_groups) {
  std::size_t ins = c.input_count();
  if (ins < 2 + groups || (ins - 2) % groups != 0)
    return c.fail("I0005", "takes R, T and " + std::to_string(groups) + " groups of n tensors, got " + std::to_string(ins) + " inputs"),
           std::nullopt;
  std::size_t n = (ins - 2) / groups;
  if (c.results().size() != out_groups * n)
    return c.fail("I0005", "gives " + std::to_string(out_groups) + " groups of " + std::to_string(n) + " outputs, the node has " +
                               std::to_string(c.results().size())),
           std::nullopt;
  if (!need(c, ins)) return std::nullopt;
  for (std::size_t i = 2; i < ins; ++i)
    if (!dtype_info(c.in(i).type.dtype).is_float) return c.fail("I0005", "input " + std::to_string(i) + " must be a float tensor, got " + c.in(i).type.to_string()), std::nullopt;
  return n;
}

// R and T as scalars of dtype dt: R cast, T cast to dt and T > 0.
struct Step {
  V r, t, positive;
};
std::optional<Step> step(NodeCtx& c, DType dt) {
  const Value &r = c.in(0), &t = c.in(1);
  if (r.rank() != 0 || !dtype_info(r.type.dtype).is_float) return c.fail("I0005", "R must be a float scalar, got " + r.type.to_string()), std::nullopt;
  if (t.rank() != 0 || t.type.dtype != DType::i64) return c.fail("I0005", "T must be an int64 scalar, got " + t.type.to_string()), std::nullopt;
  Step s{cast_to(c, r, dt), cast_to(c, t, dt), c.op("gt", {t, c.scalar(DType::i64, 0)})};
  if (!s.r || !s.t || !s.positive) return std::nullopt;
  return s;
}

bool adagrad(NodeCtx& c) {
  double decay = c.attr_float("decay_factor", 0.0f), eps = c.attr_float("epsilon", 1e-6f), norm = c.attr_float("norm_coefficient", 0.0f);
  if (c.attr_error()) return false;
  auto n = group_size(c, 3, 2);
  if (!n) return false;
  for (std::size_t i = 0; i < *n; ++i) {
    const Value &x = c.in(2 + i), &g = c.in(2 + *n + i), &h = c.in(2 + 2 * *n + i);
    DType dt = x.type.dtype;
    auto s = step(c, dt);
    if (!s) return false;
    auto k = [&](double v) { return V{c.scalar(dt, v)}; };
    V rate = ap(c, "div", {s->r, ap(c, "add", {k(1), ap(c, "mul", {s->t, k(decay)})})});  // R / (1 + T * decay)
    V gr = ap(c, "add", {ap(c, "mul", {k(norm), x}), g});
    V h_new = ap(c, "add", {h, ap(c, "mul", {gr, gr})});
    V root = ap(c, "add", {ap(c, "sqrt", {h_new}), k(eps)});
    V x_new = ap(c, "sub", {x, ap(c, "div", {ap(c, "mul", {rate, gr}), root})});
    if (!x_new || !h_new) return false;
    c.set(i, *x_new);
    c.set(*n + i, *h_new);
  }
  return true;
}

bool adam(NodeCtx& c) {
  double alpha = c.attr_float("alpha", 0.9f), beta = c.attr_float("beta", 0.999f), eps = c.attr_float("epsilon", 1e-6f);
  double norm = c.attr_float("norm_coefficient", 0.0f), post = c.attr_float("norm_coefficient_post", 0.0f);
  if (c.attr_error()) return false;
  auto n = group_size(c, 4, 3);
  if (!n) return false;
  for (std::size_t i = 0; i < *n; ++i) {
    const Value &x = c.in(2 + i), &g = c.in(2 + *n + i), &v = c.in(2 + 2 * *n + i), &h = c.in(2 + 3 * *n + i);
    DType dt = x.type.dtype;
    auto s = step(c, dt);
    if (!s) return false;
    auto k = [&](double val) { return V{c.scalar(dt, val)}; };
    V gr = ap(c, "add", {ap(c, "mul", {k(norm), x}), g});
    V v_new = ap(c, "add", {ap(c, "mul", {k(alpha), v}), ap(c, "mul", {k(1 - alpha), gr})});
    V h_new = ap(c, "add", {ap(c, "mul", {k(beta), h}), ap(c, "mul", {k(1 - beta), ap(c, "mul", {gr, gr})})});
    V root = ap(c, "add", {ap(c, "sqrt", {h_new}), k(eps)});
    // T > 0: R * sqrt(1 - beta^T) / (1 - alpha^T); else R (the other branch may be inf: where picks).
    V bias = ap(c, "sqrt", {ap(c, "sub", {k(1), ap(c, "pow", {k(beta), s->t})})});
    V adjusted = ap(c, "div", {ap(c, "mul", {s->r, bias}), ap(c, "sub", {k(1), ap(c, "pow", {k(alpha), s->t})})});
    V rate = ap(c, "where", {s->positive, adjusted, s->r});
    V x_new = ap(c, "sub", {x, ap(c, "mul", {rate, ap(c, "div", {v_new, root})})});
    if (post != 0.0) x_new = ap(c, "mul", {k(1 - post), x_new});
    if (!x_new || !v_new || !h_new) return false;
    c.set(i, *x_new);
    c.set(*n + i, *v_new);
    c.set(2 * *n + i, *h_new);
  }
  return true;
}

bool momentum(NodeCtx& c) {
  for (const char* a : {"alpha", "beta", "norm_coefficient", "mode"})
    if (!c.has_attr(a)) return c.fail("I0005", std::string("the required attribute \"") + a + "\" is missing");
  double alpha = c.attr_float("alpha", 0.0f), beta = c.attr_float("beta", 0.0f), norm = c.attr_float("norm_coefficient", 0.0f);
  std::string mode = c.attr_string("mode", "");
  if (c.attr_error()) return false;
  if (mode != "standard" && mode != "nesterov") return c.fail("I0005", "mode " + quoted(mode) + " (standard or nesterov)");
  auto n = group_size(c, 3, 2);
  if (!n) return false;
  for (std::size_t i = 0; i < *n; ++i) {
    const Value &x = c.in(2 + i), &g = c.in(2 + *n + i), &v = c.in(2 + 2 * *n + i);
    DType dt = x.type.dtype;
    auto s = step(c, dt);
    if (!s) return false;
    auto k = [&](double val) { return V{c.scalar(dt, val)}; };
    V gr = ap(c, "add", {ap(c, "mul", {k(norm), x}), g});
    V b = ap(c, "where", {s->positive, k(beta), k(1)});  // the first step takes the gradient whole
    V v_new = ap(c, "add", {ap(c, "mul", {k(alpha), v}), ap(c, "mul", {b, gr})});
    V dir = mode == "standard" ? v_new : ap(c, "add", {gr, ap(c, "mul", {k(alpha), v_new})});
    V x_new = ap(c, "sub", {x, ap(c, "mul", {s->r, dir})});
    if (!x_new || !v_new) return false;
    c.set(i, *x_new);
    c.set(*n + i, *v_new);
  }
  return true;
}

}  // namespace

void add_training_handlers(std::vector<Handler>& h) {
  h.push_back({"Adagrad", 1, 1, adagrad, "(ai.onnx.preview.training) div, mul, add, sqrt, sub (per tensor)", kTrainingDomain});
  h.push_back({"Adam", 1, 1, adam, "(ai.onnx.preview.training) mul, add, sqrt, pow, where, div, sub (per tensor)", kTrainingDomain});
  h.push_back({"Momentum", 1, 1, momentum, "(ai.onnx.preview.training) mul, add, where, sub (per tensor)", kTrainingDomain});
}

}  // namespace rung::onnx_import
