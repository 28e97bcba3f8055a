// layer_norm and rms_norm over the trailing axes from `axis` on (SEMANTICS.md §6):
//   layer_norm: mean = csum(x) / n;  d_i = x_i - mean;  var = csum(d_i * d_i) / n
//               r = 1 / sqrt(var + eps);  y_i = ((d_i * r) * gamma_i) + beta_i
//   rms_norm:   ms = csum(x_i * x_i) / n;  r = 1 / sqrt(ms + eps);  y_i = (x_i * r) * gamma_i
// csum is the canonical sum; n is rounded to f32; every operation rounds once in f32.
// (mean and var are exactly the `mean` and `variance` reductions.)
#include "ops/kernels_nn.h"
#include "ops/numerics/ieee.h"
#include "ops/numerics/reduce_tree.h"
#include "ops/shape_rules.h"
#include "ops/tensor_walk.h"

namespace rung::ops {

ShapeResult rule_norm(const ShapeArgs& a) {
  const Shape& x = a.inputs[0].shape;
  std::string err;
  if (x.empty()) return ShapeResult::fail("needs an operand of rank >= 1, not a scalar");
  auto ax = normalize_axis(a.attrs.integer("axis"), x.size(), err);
  if (!ax) return ShapeResult::fail(err);
  Shape norm(x.begin() + static_cast<std::ptrdiff_t>(*ax), x.end());
  const char* names[] = {"x", "gamma", "beta"};
  for (std::size_t i = 1; i < a.inputs.size(); ++i)
    if (a.inputs[i].shape != norm)
      return ShapeResult::fail(std::string(names[i]) + " must have the normalised shape " + shape_to_string(norm) +
                               ", got " + shape_to_string(a.inputs[i].shape));
  return ShapeResult::ok({x});
}

namespace {

struct Groups {
  std::uint64_t count, n;  // groups of n contiguous elements
};

Groups groups(const KernelContext& c) {
  const HostTensor& x = c.inputs[0];
  std::string err;
  std::size_t ax = *normalize_axis(c.attrs.integer("axis"), x.rank(), err);
  return {extent_product(x.shape(), 0, ax), extent_product(x.shape(), ax, x.rank())};
}

// r = 1 / sqrt(v + eps), three roundings.
float inv_root(float v, float eps) { return 1.0f / num::sqrt_f32(v + eps); }

}  // namespace

void layer_norm_kernel(KernelContext& c) {
  const HostTensor& x = c.inputs[0];
  HostTensor& y = c.outputs[0];
  auto [count, n] = groups(c);
  float eps = static_cast<float>(c.attrs.real("eps")), nf = static_cast<float>(n);
  for (std::uint64_t g = 0; g < count; ++g) {
    std::uint64_t base = g * n;
    auto at = [&](std::uint64_t i) { return x.load_f32(base + i); };
    float mean = num::canonical_sum<float>(n, at) / nf;
    auto sq = [&](std::uint64_t i) { float d = at(i) - mean; return d * d; };
    float r = inv_root(num::canonical_sum<float>(n, sq) / nf, eps);
    for (std::uint64_t i = 0; i < n; ++i) {
      float v = (at(i) - mean) * r;
      if (c.has_input(1)) v = v * c.inputs[1].load_f32(i);
      if (c.has_input(2)) v = v + c.inputs[2].load_f32(i);
      y.store_f32(base + i, v);
    }
  }
}

void rms_norm_kernel(KernelContext& c) {
  const HostTensor& x = c.inputs[0];
  HostTensor& y = c.outputs[0];
  auto [count, n] = groups(c);
  float eps = static_cast<float>(c.attrs.real("eps")), nf = static_cast<float>(n);
  for (std::uint64_t g = 0; g < count; ++g) {
    std::uint64_t base = g * n;
    auto sq = [&](std::uint64_t i) { float v = x.load_f32(base + i); return v * v; };
    float r = inv_root(num::canonical_sum<float>(n, sq) / nf, eps);
    for (std::uint64_t i = 0; i < n; ++i) {
      float v = x.load_f32(base + i) * r;
      if (c.has_input(1)) v = v * c.inputs[1].load_f32(i);
      y.store_f32(base + i, v);
    }
  }
}

}  // namespace rung::ops
