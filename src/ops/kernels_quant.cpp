// quantize / dequantize between f32-like tensors and the q8_0 / q4_0 block formats, and
// linear_q (x W^T + b with quantized W) in its two defined arithmetics.
#include "ops/kernels_quant.h"

#include "ops/numerics/dot.h"
#include "ops/numerics/quant_blocks.h"

namespace rung::ops {

namespace {

bool is_q8(DType t) { return t == DType::q8_0; }
std::uint64_t block_bytes(DType t) { return is_q8(t) ? num::kQ8Bytes : num::kQ4Bytes; }

// The last dim must be static and hold whole blocks, so a block never straddles two rows.
std::string check_blocked_last_dim(const Shape& s) {
  if (s.empty()) return "needs rank >= 1 (blocks run along the last dim)";
  const Dim& k = s.back();
  if (!k.is_static()) return "the last dim " + k.to_string() + " must be static (a multiple of 32)";
  if (k.extent() % num::kQBlock != 0)
    return "the last dim " + std::to_string(k.extent()) + " is not a multiple of the block size 32";
  return {};
}

int code(DType t, const std::uint8_t* blk, int i) { return is_q8(t) ? num::q8_0_code(blk, i) : num::q4_0_code(blk, i); }

}  // namespace

const std::uint8_t* q_block(const HostTensor& t, std::uint64_t b) { return t.bytes().data() + b * block_bytes(t.dtype()); }

ShapeResult rule_quantize(const ShapeArgs& a) {
  DType to = a.attrs.dtype("to");
  if (!kQuantized.contains(to))
    return ShapeResult::fail("`to` must be a block-quantized dtype (q8_0 or q4_0), not " + std::string(dtype_name(to)));
  std::string err = check_blocked_last_dim(a.inputs[0].shape);
  if (!err.empty()) return ShapeResult::fail(err);
  return ShapeResult::ok({a.inputs[0].shape});
}

void quantize_kernel(KernelContext& c) {
  const HostTensor& x = c.inputs[0];
  HostTensor& y = c.outputs[0];
  DType to = y.dtype();
  std::uint64_t K = x.shape().back(), blocks = x.numel() / num::kQBlock;
  for (std::uint64_t b = 0; b < blocks; ++b) {
    float v[num::kQBlock];
    for (int i = 0; i < num::kQBlock; ++i) v[i] = x.load_f32(b * num::kQBlock + static_cast<std::uint64_t>(i));
    std::uint8_t* blk = y.bytes().data() + b * block_bytes(to);
    num::QStatus st = is_q8(to) ? num::q8_0_encode(v, blk) : num::q4_0_encode(v, blk);
    if (st == num::QStatus::ok) continue;
    std::uint64_t first = b * num::kQBlock;
    std::string where = "block " + std::to_string(b) + " (row " + std::to_string(first / K) + ", elements " +
                        std::to_string(first % K) + ".." + std::to_string(first % K + 31) + ")";
    if (st == num::QStatus::non_finite)
      return c.fail(where + " holds an inf or NaN, which " + std::string(dtype_name(to)) + " cannot represent");
    return c.fail(where + ": its scale overflows f16 (" + std::string(dtype_name(to)) + " holds |x| up to about " +
                  (is_q8(to) ? "8.3e6" : "5.2e5") + ")");
  }
}

ShapeResult rule_dequantize(const ShapeArgs& a) {
  DType to = a.attrs.dtype("to");
  if (!kFloat32Like.contains(to))
    return ShapeResult::fail("dequantize produces f32, f16 or bf16, not " + std::string(dtype_name(to)));
  std::string err = check_blocked_last_dim(a.inputs[0].shape);
  if (!err.empty()) return ShapeResult::fail(err);
  return ShapeResult::ok({a.inputs[0].shape});
}

// d * code is exact in f32; an f16/bf16 result rounds it once (RNE).
void dequantize_kernel(KernelContext& c) {
  const HostTensor& q = c.inputs[0];
  HostTensor& y = c.outputs[0];
  std::uint64_t blocks = q.numel() / num::kQBlock;
  for (std::uint64_t b = 0; b < blocks; ++b) {
    const std::uint8_t* blk = q_block(q, b);
    float d = num::q_scale(blk);
    for (int i = 0; i < num::kQBlock; ++i)
      y.store_f32(b * num::kQBlock + static_cast<std::uint64_t>(i), d * static_cast<float>(code(q.dtype(), blk, i)));
  }
}

ShapeResult rule_linear_q(const ShapeArgs& a) {
  const Shape& sx = a.inputs[0].shape;
  const Shape& sw = a.inputs[1].shape;
  if (sx.empty()) return ShapeResult::fail("linear_q needs x of rank >= 1");
  if (sw.size() != 2) return ShapeResult::fail("linear_q needs W of shape [N, K], got " + shape_to_string(sw));
  std::string err = check_blocked_last_dim(sw);
  if (!err.empty()) return ShapeResult::fail("W: " + err);
  if (!(sx.back() == sw[1]))
    return ShapeResult::fail("x's last dim " + sx.back().to_string() + " differs from W's K = " + sw[1].to_string());
  if (a.inputs.size() > 2) {
    const Shape& sb = a.inputs[2].shape;
    if (sb.size() != 1 || !(sb[0] == sw[0]))
      return ShapeResult::fail("bias must have shape [" + sw[0].to_string() + "], got " + shape_to_string(sb));
  }
  Shape y(sx.begin(), sx.end() - 1);
  y.push_back(sw[0]);
  return ShapeResult::ok({y});
}

namespace {

// compute = "float": the linear chain on the dequantized weights,
//   y = fma(x_{K-1}, w_{K-1}, ... fma(x_0, w_0, +0)) (+ b),  w_k = d * code exactly.
float row_float(const HostTensor& x, std::uint64_t xr, const HostTensor& w, std::uint64_t n, std::uint64_t K) {
  std::uint64_t nb = K / num::kQBlock;
  return num::dot_chain_f32(
      K, [&](std::uint64_t k) { return x.load_f32(xr * K + k); },
      [&](std::uint64_t k) {
        const std::uint8_t* blk = q_block(w, n * nb + k / num::kQBlock);
        return num::q_scale(blk) * static_cast<float>(code(w.dtype(), blk, static_cast<int>(k % num::kQBlock)));
      });
}

// compute = "int8": x's row quantized per block (q8_act_encode: f32 scale dx_b, codes qx),
//   acc = +0;  for b = 0, 1, ...:  acc = fma(dx_b * dw_b, float(sum_i qx_i * qw_i), acc)
// The integer sums are exact (|sum| <= 32 * 127 * 127 < 2^24, so also exact as float).
// A non-finite activation makes the row's outputs NaN.
struct QuantRow {
  std::vector<std::int8_t> q;
  std::vector<float> d;
  bool finite = true;
};

QuantRow quantize_row(const HostTensor& x, std::uint64_t xr, std::uint64_t K) {
  QuantRow r;
  r.q.resize(K);
  for (std::uint64_t b = 0; b < K / num::kQBlock; ++b) {
    float v[num::kQBlock];
    for (int i = 0; i < num::kQBlock; ++i) v[i] = x.load_f32(xr * K + b * num::kQBlock + static_cast<std::uint64_t>(i));
    float d = num::q8_act_encode(v, r.q.data() + b * num::kQBlock);
    r.finite = r.finite && !num::is_nan(d);
    r.d.push_back(d);
  }
  return r;
}

float row_int8(const QuantRow& xq, const HostTensor& w, std::uint64_t n, std::uint64_t K) {
  if (!xq.finite) return num::nan_f32();
  std::uint64_t nb = K / num::kQBlock;
  float acc = 0.0f;
  for (std::uint64_t b = 0; b < nb; ++b) {
    const std::uint8_t* blk = q_block(w, n * nb + b);
    std::int32_t isum = 0;
    for (int i = 0; i < num::kQBlock; ++i) isum += xq.q[b * num::kQBlock + static_cast<std::uint64_t>(i)] * code(w.dtype(), blk, i);
    acc = num::fma_f32(xq.d[b] * num::q_scale(blk), static_cast<float>(isum), acc);
  }
  return acc;
}

}  // namespace

void linear_q_kernel(KernelContext& c) {
  const HostTensor& x = c.inputs[0];
  const HostTensor& w = c.inputs[1];
  HostTensor& y = c.outputs[0];
  std::uint64_t N = w.shape()[0], K = w.shape()[1];
  std::uint64_t rows = element_count(Extents(x.shape().begin(), x.shape().end() - 1));
  bool int8 = c.attrs.string("compute") == "int8";
  for (std::uint64_t r = 0; r < rows; ++r) {
    QuantRow xq;
    if (int8) xq = quantize_row(x, r, K);
    for (std::uint64_t n = 0; n < N; ++n) {
      float acc = int8 ? row_int8(xq, w, n, K) : row_float(x, r, w, n, K);
      if (c.has_input(2)) acc = acc + c.inputs[2].load_f32(n);  // as linear: bias after the chain
      y.store_f32(r * N + n, acc);
    }
  }
}

}  // namespace rung::ops
