// Losses and the embedding lookup.
//   cross_entropy: per row of logits [..., C] with target t (integer, in [0, C)):
//     m = max_j x_j;  s = csum_j exp(x_j - m);  loss = -((x_t - m) - log(s))
//     i.e. exactly -log_softmax(x)[t]. Rows whose target equals ignore_index give +0 and do
//     not count. reduction sum = csum over rows (in row-major order, ignored rows as +0),
//     mean = sum / f32(count of counted rows) (NaN when none counts), none = the row losses.
//   mse: d = a - b; sq = d * d; none = sq, sum = csum(sq), mean = sum / f32(n).
#include "ops/kernels_nn.h"
#include "ops/kernels_shape.h"
#include "ops/numerics/elementwise.h"
#include "ops/numerics/reduce_tree.h"
#include "ops/tensor_walk.h"

namespace rung::ops {

ShapeResult rule_embedding(const ShapeArgs& a) {
  const Shape& table = a.inputs[0].shape;
  if (table.size() != 2) return ShapeResult::fail("the table must be [V, D], got " + shape_to_string(table));
  Shape out = a.inputs[1].shape;
  out.push_back(table[1]);
  return ShapeResult::ok({out});
}

void embedding_kernel(KernelContext& c) { gather_rows(c.inputs[0], c.inputs[1], 0, c.outputs[0], c); }

namespace {

Shape reduced_or(const Shape& none, const std::string& reduction) { return reduction == "none" ? none : Shape{}; }

// Stores the reduction of `losses` (n values, `count` of them counted) into y.
void store_reduced(HostTensor& y, const std::string& reduction, const std::vector<float>& losses, std::uint64_t count) {
  if (reduction == "none") {
    for (std::uint64_t i = 0; i < losses.size(); ++i) y.store_f32(i, losses[i]);
    return;
  }
  float s = num::canonical_sum<float>(losses.size(), [&](std::uint64_t i) { return losses[i]; });
  y.store_f32(0, reduction == "sum" ? s : s / static_cast<float>(count));
}

}  // namespace

ShapeResult rule_cross_entropy(const ShapeArgs& a) {
  const Shape &x = a.inputs[0].shape, &t = a.inputs[1].shape;
  if (x.empty()) return ShapeResult::fail("logits need rank >= 1 ([..., C])");
  if (x.back().is_static() && x.back().extent() == 0) return ShapeResult::fail("logits have no classes (C = 0)");
  Shape rows(x.begin(), x.end() - 1);
  if (t != rows)
    return ShapeResult::fail("targets must have the logits' shape without the class dim, " + shape_to_string(rows) +
                             ", got " + shape_to_string(t));
  return ShapeResult::ok({reduced_or(rows, a.attrs.string("reduction"))});
}

void cross_entropy_kernel(KernelContext& c) {
  const HostTensor &X = c.inputs[0], &T = c.inputs[1];
  std::uint64_t C = X.shape().back(), rows = T.numel();
  bool has_ignore = c.attrs.has("ignore_index");
  std::int64_t ignore = has_ignore ? c.attrs.integer("ignore_index") : 0;
  bool is_signed = dtype_info(T.dtype()).is_signed;
  std::vector<float> loss(rows, 0.0f);
  std::uint64_t count = 0;
  for (std::uint64_t r = 0; r < rows; ++r) {
    if (has_ignore && (is_signed ? T.load_i64(r) == ignore : ignore >= 0 && T.load_u64(r) == static_cast<std::uint64_t>(ignore)))
      continue;
    std::string err;
    auto t = checked_index(T, r, C, "target", err);
    if (!t) return c.fail(err + " (classes: " + std::to_string(C) + ")");
    ++count;
    auto at = [&](std::uint64_t j) { return X.load_f32(r * C + j); };
    float m = num::canonical_reduce<float>(C, at, num::Maximum{}, -num::inf_f32());
    float s = num::canonical_sum<float>(C, [&](std::uint64_t j) { return num::exp_f32(at(j) - m); });
    loss[r] = num::Neg{}((at(*t) - m) - num::log_f32(s));
  }
  store_reduced(c.outputs[0], c.attrs.string("reduction"), loss, count);
}

ShapeResult rule_mse(const ShapeArgs& a) {
  const Shape &x = a.inputs[0].shape, &y = a.inputs[1].shape;
  if (x != y) return ShapeResult::fail("prediction " + shape_to_string(x) + " and target " + shape_to_string(y) + " differ in shape");
  return ShapeResult::ok({reduced_or(x, a.attrs.string("reduction"))});
}

void mse_kernel(KernelContext& c) {
  const HostTensor &A = c.inputs[0], &B = c.inputs[1];
  std::vector<float> sq(A.numel());
  for (std::uint64_t i = 0; i < sq.size(); ++i) {
    float d = A.load_f32(i) - B.load_f32(i);
    sq[i] = d * d;
  }
  store_reduced(c.outputs[0], c.attrs.string("reduction"), sq, sq.size());
}

}  // namespace rung::ops
