// Rotary position embedding on x [..., S, D] (D even). Pair p in [0, D/2) of the row at
// sequence position s is (x[p], x[p + D/2]) for layout "half" (GPT-NeoX, Llama in HF) or
// (x[2p], x[2p+1]) for layout "interleaved" (GPT-J, Meta's Llama). With pos = positions[s]
// (default s), every step one f32 operation in this order:
//   inv = pow(base, -((2p) / D));  theta = f32(pos) * inv;  c = cos(theta);  sn = sin(theta)
//   a' = (a * c) - (b * sn);  b' = (a * sn) + (b * c)
// pow, sin and cos are rung's (numerics/special.h, trig.h).
#include "ops/kernels_nn.h"
#include "ops/numerics/special.h"
#include "ops/numerics/trig.h"
#include "ops/tensor_walk.h"

namespace rung::ops {

ShapeResult rule_rope(const ShapeArgs& a) {
  const Shape& x = a.inputs[0].shape;
  if (x.size() < 2) return ShapeResult::fail("rope needs x of rank >= 2 ([..., S, D]), got " + shape_to_string(x));
  const Dim& d = x.back();
  if (!d.is_static() || d.extent() % 2 != 0)
    return ShapeResult::fail("the head dim D = " + d.to_string() + " must be static and even (rope rotates pairs)");
  if (a.inputs.size() > 1) {
    const Shape& p = a.inputs[1].shape;
    if (p.size() != 1 || !(p[0] == x[x.size() - 2]))
      return ShapeResult::fail("positions must be [S] = [" + x[x.size() - 2].to_string() + "], got " + shape_to_string(p));
  }
  return ShapeResult::ok({x});
}

void rope_kernel(KernelContext& c) {
  const HostTensor& x = c.inputs[0];
  HostTensor& y = c.outputs[0];
  std::uint64_t D = x.shape().back(), S = x.shape()[x.rank() - 2], half = D / 2;
  std::uint64_t rows = D == 0 ? 0 : x.numel() / D;
  bool interleaved = c.attrs.string("layout") == "interleaved";
  float base = static_cast<float>(c.attrs.real("base")), df = static_cast<float>(D);
  // The angles depend only on (s, p): computed once per position.
  std::vector<float> cs(S * half), sn(S * half);
  for (std::uint64_t s = 0; s < S; ++s) {
    float pos = static_cast<float>(s);
    if (c.has_input(1)) {
      const HostTensor& P = c.inputs[1];
      pos = P.dtype() == DType::u64 ? static_cast<float>(P.load_u64(s)) : static_cast<float>(P.load_i64(s));
    }
    for (std::uint64_t p = 0; p < half; ++p) {
      float inv = num::pow_f32(base, -(static_cast<float>(2 * p) / df));
      float theta = pos * inv;
      cs[s * half + p] = num::cos_f32(theta);
      sn[s * half + p] = num::sin_f32(theta);
    }
  }
  for (std::uint64_t r = 0; r < rows; ++r) {
    std::uint64_t s = r % S, row = r * D;
    for (std::uint64_t p = 0; p < half; ++p) {
      std::uint64_t ia = row + (interleaved ? 2 * p : p), ib = row + (interleaved ? 2 * p + 1 : p + half);
      float a = x.load_f32(ia), b = x.load_f32(ib), cv = cs[s * half + p], sv = sn[s * half + p];
      y.store_f32(ia, a * cv - b * sv);
      y.store_f32(ib, a * sv + b * cv);
    }
  }
}

}  // namespace rung::ops
