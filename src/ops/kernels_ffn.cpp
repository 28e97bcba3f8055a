// Feed-forward blocks, each the composition of `linear` (matmul's fma chain over K, then the
// bias) and rung's activations, with the hidden activations kept in f32:
//   ffn_swiglu: h = silu(x Wg^T) * (x Wu^T);  y = h Wd^T
//   ffn_gelu:   h = gelu(x W1^T + b1);        y = h W2^T + b2   (gelu: erf or tanh form)
// For f32 operands this equals the chain of registry ops (linear, silu/gelu, mul) bit for bit.
#include "ops/kernels_nn.h"
#include "ops/numerics/dot.h"
#include "ops/numerics/special.h"

namespace rung::ops {

namespace {

// [N, K] weight check against the incoming feature dim.
std::string check_weight(const char* name, const Shape& w, const Dim& k) {
  if (w.size() != 2) return std::string(name) + " must be a matrix [out, in], got " + shape_to_string(w);
  if (!(w[1] == k)) return std::string(name) + " takes " + w[1].to_string() + " inputs, the features are " + k.to_string();
  return {};
}

std::string check_bias(const char* name, const Shape& b, const Dim& n) {
  if (b.size() != 1 || !(b[0] == n)) return std::string(name) + " must be [" + n.to_string() + "], got " + shape_to_string(b);
  return {};
}

ShapeResult out_shape(const Shape& x, const Dim& out) {
  Shape y(x.begin(), x.end() - 1);
  y.push_back(out);
  return ShapeResult::ok({y});
}

// One output of linear on a row held in f32: fma chain over K of row[k] * W[n, k].
template <typename Row> float lin(const Row& row, const HostTensor& W, std::uint64_t n, std::uint64_t K) {
  return num::dot_chain_f32(K, row, [&](std::uint64_t k) { return W.load_f32(n * K + k); });
}

}  // namespace

ShapeResult rule_ffn_swiglu(const ShapeArgs& a) {
  const Shape& x = a.inputs[0].shape;
  if (x.empty()) return ShapeResult::fail("x needs rank >= 1 ([..., D])");
  std::string err = check_weight("w_gate", a.inputs[1].shape, x.back());
  if (err.empty()) err = check_weight("w_up", a.inputs[2].shape, x.back());
  if (err.empty() && !(a.inputs[1].shape[0] == a.inputs[2].shape[0]))
    err = "w_gate and w_up must have the same hidden size, got " + a.inputs[1].shape[0].to_string() + " and " +
          a.inputs[2].shape[0].to_string();
  if (err.empty()) err = check_weight("w_down", a.inputs[3].shape, a.inputs[1].shape[0]);
  if (!err.empty()) return ShapeResult::fail(err);
  return out_shape(x, a.inputs[3].shape[0]);
}

ShapeResult rule_ffn_gelu(const ShapeArgs& a) {
  const Shape& x = a.inputs[0].shape;
  if (x.empty()) return ShapeResult::fail("x needs rank >= 1 ([..., D])");
  const Shape &w1 = a.inputs[1].shape, &w2 = a.inputs[2].shape;
  std::string err = check_weight("w1", w1, x.back());
  if (err.empty()) err = check_weight("w2", w2, w1[0]);
  if (err.empty() && a.inputs.size() > 3) err = check_bias("b1", a.inputs[3].shape, w1[0]);
  if (err.empty() && a.inputs.size() > 4) err = check_bias("b2", a.inputs[4].shape, w2[0]);
  if (!err.empty()) return ShapeResult::fail(err);
  return out_shape(x, w2[0]);
}

void ffn_swiglu_kernel(KernelContext& c) {
  const HostTensor &X = c.inputs[0], &Wg = c.inputs[1], &Wu = c.inputs[2], &Wd = c.inputs[3];
  HostTensor& Y = c.outputs[0];
  std::uint64_t D = Wg.shape()[1], H = Wg.shape()[0], O = Wd.shape()[0];
  std::uint64_t rows = O == 0 ? element_count(Extents(X.shape().begin(), X.shape().end() - 1)) : Y.numel() / O;
  std::vector<float> h(H);
  for (std::uint64_t r = 0; r < rows; ++r) {
    auto xr = [&](std::uint64_t k) { return X.load_f32(r * D + k); };
    for (std::uint64_t j = 0; j < H; ++j) h[j] = num::silu_f32(lin(xr, Wg, j, D)) * lin(xr, Wu, j, D);
    for (std::uint64_t o = 0; o < O; ++o) Y.store_f32(r * O + o, lin([&](std::uint64_t k) { return h[k]; }, Wd, o, H));
  }
}

void ffn_gelu_kernel(KernelContext& c) {
  const HostTensor &X = c.inputs[0], &W1 = c.inputs[1], &W2 = c.inputs[2];
  HostTensor& Y = c.outputs[0];
  std::uint64_t D = W1.shape()[1], H = W1.shape()[0], O = W2.shape()[0];
  std::uint64_t rows = O == 0 ? element_count(Extents(X.shape().begin(), X.shape().end() - 1)) : Y.numel() / O;
  bool tanh_form = c.attrs.string("approximate") == "tanh";
  std::vector<float> h(H);
  for (std::uint64_t r = 0; r < rows; ++r) {
    auto xr = [&](std::uint64_t k) { return X.load_f32(r * D + k); };
    for (std::uint64_t j = 0; j < H; ++j) {
      float t = lin(xr, W1, j, D);
      if (c.has_input(3)) t = t + c.inputs[3].load_f32(j);
      h[j] = tanh_form ? num::gelu_tanh_f32(t) : num::gelu_erf_f32(t);
    }
    for (std::uint64_t o = 0; o < O; ++o) {
      float t = lin([&](std::uint64_t k) { return h[k]; }, W2, o, H);
      if (c.has_input(4)) t = t + c.inputs[4].load_f32(o);
      Y.store_f32(r * O + o, t);
    }
  }
}

}  // namespace rung::ops
