// DFT, STFT and MelWeightMatrix (opset 17). rung has no FFT op: a DFT of static length n is
// a matmul of the signal, [re | im] along the transformed axis, with a [2m, K] matrix of
// twiddles (m the samples used, K the frequencies kept), one fma chain per output in the
// matmul's defined order. The twiddles are computed here in binary64 from exact rational
// angles (j = k*n mod N reduced to the first octant, so 0, +-1 at the quarter points are
// exact) with rung's own sin/cos polynomials, no libm, and rounded once to the signal's
// dtype; the inverse's 1/N is folded in before that rounding. The result differs from an
// FFT's by rounding only (an FFT sums in another order). MelWeightMatrix, whose operands
// are all scalars, is computed at import in binary64 as the suite's reference computes it.
#include <algorithm>
#include <cmath>

#include "onnx/dtypes.h"
#include "onnx/handlers.h"
#include "ops/numerics/trig.h"

namespace rung::onnx_import {
namespace {

using V = std::optional<Value>;
using Ints = std::vector<std::int64_t>;

constexpr std::uint64_t kMaxTwiddles = 1u << 22;  // elements of the [2m, K] matrix: 32 MiB of f64 work

// cos and sin of 2*pi*j/n, j in [0, n): quadrant from 4j/n, the rest as an angle <= pi/4.
std::pair<double, double> twiddle(std::uint64_t j, std::uint64_t n) {
  std::uint64_t q = (4 * j) / n, rem = 4 * j - q * n;  // 2*pi*j/n = q*pi/2 + (rem/n)*pi/2
  double c, s;
  if (rem == 0) {
    c = 1, s = 0;
  } else if (2 * rem <= n) {
    double r = static_cast<double>(rem) / static_cast<double>(n) * num::trig_const::kPio2;
    c = num::cos_poly(r), s = num::sin_poly(r);
  } else {  // past pi/4: cos(r) = sin(pi/2 - r)
    double r = static_cast<double>(n - rem) / static_cast<double>(n) * num::trig_const::kPio2;
    c = num::sin_poly(r), s = num::cos_poly(r);
  }
  switch (q) {  // rotate by q quarter turns
    case 0: return {c, s};
    case 1: return {-s, c};
    case 2: return {-c, -s};
    default: return {s, -c};
  }
}

struct Transform {
  std::size_t axis;  // the signal axis of x (rank >= 2, last axis = [re] or [re, im])
  std::uint64_t n;   // the DFT length
  bool inverse, onesided;
};

// The DFT of x (static shape [..., L at axis, ..., C]) as [..., K at axis, ..., 2].
V dft_core(NodeCtx& c, const Value& x, const Transform& t) {
  auto shape = c.static_shape(x, "the signal");
  if (!shape) return std::nullopt;
  const std::size_t rank = shape->size(), comp = static_cast<std::size_t>((*shape)[rank - 1]);
  if (comp != 1 && comp != 2) {
    c.fail("I0005", "the signal's last dim must be 1 (real) or 2 (complex), got " + x.type.to_string());
    return std::nullopt;
  }
  if (t.onesided && comp == 2) {
    c.fail("I0005", "onesided = 1 with a complex signal (the spectrum is not conjugate-symmetric)");
    return std::nullopt;
  }
  if (t.onesided && t.inverse) {
    c.fail("I0005", "onesided = 1 with inverse = 1 is not supported");
    return std::nullopt;
  }
  const std::uint64_t len = (*shape)[t.axis], n = t.n, m = std::min(len, n), k_out = t.onesided ? n / 2 + 1 : n;
  if (n == 0 || 2 * m * k_out > kMaxTwiddles) {
    c.fail("I0005", "a DFT of length " + std::to_string(n) + " over " + std::to_string(m) +
                        " samples is outside what rung expands at import (a [2m, K] twiddle matrix of at most 2^22)");
    return std::nullopt;
  }
  const DType dt = x.type.dtype;
  if (dt != DType::f32 && dt != DType::f64 && dt != DType::f16 && dt != DType::bf16) {
    c.fail("I0005", "DFT of " + x.type.to_string() + " (a float signal is needed)");
    return std::nullopt;
  }
  // [re | im] of the first m samples, the signal axis last: [P, comp*m].
  V xs = c.op("slice", {x}, {{"starts", AttrValue(Ints{0})}, {"ends", AttrValue(Ints{static_cast<std::int64_t>(m)})},
                             {"axes", AttrValue(Ints{static_cast<std::int64_t>(t.axis)})}});
  // Components first, the other axes, the signal axis last: [C, rest..., m].
  Ints rest;
  for (std::size_t i = 0; i + 1 < rank; ++i)
    if (i != t.axis) rest.push_back(static_cast<std::int64_t>(i));
  Ints p{static_cast<std::int64_t>(rank - 1)};
  p.insert(p.end(), rest.begin(), rest.end());
  p.push_back(static_cast<std::int64_t>(t.axis));
  V moved = xs ? c.op("transpose", {*xs}, {{"perm", AttrValue(p)}}) : V{};  // [C, rest..., m]
  std::uint64_t rows = 1;
  Shape rest_shape;
  for (auto i : rest) rows *= (*shape)[static_cast<std::size_t>(i)], rest_shape.push_back(Dim::fixed((*shape)[static_cast<std::size_t>(i)]));
  V flat = moved ? reshape_to(c, *moved, {Dim::fixed(comp), Dim::fixed(rows), Dim::fixed(m)}) : V{};
  // [C, P, m] -> [P, C, m] -> [P, C*m]: re samples then im samples per row.
  V rows_first = flat ? c.op("transpose", {*flat}, {{"perm", AttrValue(Ints{1, 0, 2})}}) : V{};
  V lhs = rows_first ? reshape_to(c, *rows_first, {Dim::fixed(rows), Dim::fixed(comp * m)}) : V{};
  // W: [C*m, 2K]; columns 0..K-1 give re, K..2K-1 give im.
  //   forward (e^-i): re = a cos + b sin, im = b cos - a sin; inverse (e^+i, /n): re = a cos - b sin, im = a sin + b cos.
  std::vector<double> w(comp * m * 2 * k_out);
  const double scale = t.inverse ? 1.0 / static_cast<double>(n) : 1.0;
  const double sgn = t.inverse ? 1.0 : -1.0;  // the sign of the exponent
  for (std::uint64_t s = 0; s < m; ++s)
    for (std::uint64_t k = 0; k < k_out; ++k) {
      auto [cs, sn] = twiddle((s * k) % n, n);
      double e_re = cs * scale, e_im = sgn * sn * scale;  // e^(sgn i theta) / (n or 1)
      w[(s) * 2 * k_out + k] = e_re;                      // a * e_re
      w[(s) * 2 * k_out + k_out + k] = e_im;              // a * e_im
      if (comp == 2) {
        w[(m + s) * 2 * k_out + k] = -e_im;               // i b * i e_im = -b e_im
        w[(m + s) * 2 * k_out + k_out + k] = e_re;        // i b * e_re
      }
    }
  ops::HostTensor wt = ops::HostTensor::from_f64({comp * m, 2 * k_out}, w, dt);
  V y = lhs ? c.op("matmul", {*lhs, c.constant(std::move(wt))}) : V{};  // [P, 2K]
  // [P, 2K] -> [P, 2, K] -> [rest..., K, 2] -> the signal axis back in place.
  Shape sk = rest_shape;
  sk.push_back(Dim::fixed(2));
  sk.push_back(Dim::fixed(k_out));
  V split = y ? reshape_to(c, *y, sk) : V{};
  Ints back;  // from [rest..., 2, K] to [.. K at axis .., 2]
  std::size_t r2 = rest.size();
  for (std::size_t i = 0, ri = 0; i + 1 < rank; ++i) back.push_back(i == t.axis ? static_cast<std::int64_t>(r2 + 1) : static_cast<std::int64_t>(ri++));
  back.push_back(static_cast<std::int64_t>(r2));
  return split ? c.op("transpose", {*split}, {{"perm", AttrValue(back)}}) : V{};
}

std::optional<std::uint64_t> known_length(NodeCtx& c, const Value& v, const char* what) {
  auto n = c.known_ints(v, what);
  if (!n) return std::nullopt;
  if (n->size() != 1 || (*n)[0] < 1) {
    c.fail("I0005", std::string(what) + " must be one positive integer");
    return std::nullopt;
  }
  return static_cast<std::uint64_t>((*n)[0]);
}

bool dft(NodeCtx& c) {
  if (!need(c, 1)) return false;
  const Value& x = c.in(0);
  if (x.rank() < 2) return c.fail("I0005", "DFT of " + x.type.to_string() + " (rank >= 2: [..., signal, 1 or 2])");
  auto ax = c.axis(c.attr_int("axis", 1), x.rank(), "axis");
  bool inverse = c.attr_int("inverse", 0) != 0, onesided = c.attr_int("onesided", 0) != 0;
  if (!ax || c.attr_error()) return false;
  if (static_cast<std::size_t>(*ax) == x.rank() - 1) return c.fail("I0005", "axis is the components' axis (the last)");
  if (!x.type.shape[static_cast<std::size_t>(*ax)].is_static())
    return c.fail("I0012", "the signal axis has the symbolic dim " + x.type.shape[static_cast<std::size_t>(*ax)].name());
  std::uint64_t n = x.type.shape[static_cast<std::size_t>(*ax)].extent();
  if (c.has(1)) {
    auto given = known_length(c, c.in(1), "dft_length (input 1)");
    if (!given) return false;
    n = *given;
  }
  return out0(c, dft_core(c, x, {static_cast<std::size_t>(*ax), n, inverse, onesided}));
}

// STFT: frames of the signal [B, L, C] gathered with a constant index, times the window, then
// the DFT of each frame along its own axis.
bool stft(NodeCtx& c) {
  if (!need(c, 2)) return false;
  const Value& x = c.in(0);
  bool onesided = c.attr_int("onesided", 1) != 0;
  if (c.attr_error()) return false;
  if (x.rank() != 3) return c.fail("I0005", "STFT of " + x.type.to_string() + " (the signal is [batch, length, 1 or 2])");
  auto step = known_length(c, c.in(1), "frame_step (input 1)");
  if (!step) return false;
  std::optional<std::uint64_t> frame;
  if (c.has(2)) {
    if (c.in(2).rank() != 1 || !c.in(2).type.shape[0].is_static())
      return c.fail("I0005", "the window must be a static 1-D tensor, got " + c.in(2).type.to_string());
    frame = c.in(2).type.shape[0].extent();
  }
  if (c.has(3)) {
    auto given = known_length(c, c.in(3), "frame_length (input 3)");
    if (!given) return false;
    if (frame && *frame != *given)
      return c.fail("I0005", "frame_length " + std::to_string(*given) + " differs from the window's " + std::to_string(*frame));
    frame = given;
  }
  if (!frame) return c.fail("I0005", "STFT needs a window or a frame_length");
  auto shape = c.static_shape(x, "the signal");
  if (!shape) return false;
  std::uint64_t len = (*shape)[1];
  if (*frame > len) return c.fail("I0005", "frame_length " + std::to_string(*frame) + " exceeds the signal's " + std::to_string(len));
  std::uint64_t frames = (len - *frame) / *step + 1;
  if (frames * *frame > kMaxTwiddles) return c.fail("I0005", "STFT with " + std::to_string(frames) + " frames of " + std::to_string(*frame) + " is too large to expand");
  std::vector<std::int64_t> idx(frames * *frame);
  for (std::uint64_t f = 0; f < frames; ++f)
    for (std::uint64_t s = 0; s < *frame; ++s) idx[f * *frame + s] = static_cast<std::int64_t>(f * *step + s);
  V framed = c.op("gather", {x, c.constant(ops::HostTensor::from_i64({frames, *frame}, idx))},
                  {{"axis", AttrValue(std::int64_t{1})}});  // [B, frames, frame, C]
  if (framed && c.has(2)) {
    V w = reshape_to(c, c.in(2), {Dim::fixed(1), Dim::fixed(1), Dim::fixed(*frame), Dim::fixed(1)});
    framed = w ? c.op("mul", {*framed, *w}) : V{};
  }
  return framed && out0(c, dft_core(c, *framed, {2, *frame, false, onesided}));
}

// MelWeightMatrix, [dft_length/2 + 1, num_mel_bins]: triangular filters between bins spaced
// evenly in mel (mel = 2595 log10(1 + hz/700)) over num_mel_bins + 2 points, as the suite's
// generator and ONNX Runtime compute them.
bool mel_weight_matrix(NodeCtx& c) {
  if (!need(c, 5)) return false;
  auto to_code = c.attr_int("output_datatype", 1);
  if (c.attr_error()) return false;
  auto to = dtype_of(static_cast<std::int32_t>(to_code));
  if (!to || *to == DType::boolean)
    return c.fail("I0007", "output_datatype " + onnx_type_name(static_cast<std::int32_t>(to_code)) + " is not supported");
  auto bins = c.known_ints(c.in(0), "num_mel_bins (input 0)");
  auto dft_len = bins ? c.known_ints(c.in(1), "dft_length (input 1)") : std::nullopt;
  auto rate = dft_len ? c.known_ints(c.in(2), "sample_rate (input 2)") : std::nullopt;
  auto lo = rate ? c.known_reals(c.in(3), "lower_edge_hertz (input 3)") : std::nullopt;
  auto hi = lo ? c.known_reals(c.in(4), "upper_edge_hertz (input 4)") : std::nullopt;
  if (!hi) return false;
  if (bins->size() != 1 || dft_len->size() != 1 || rate->size() != 1 || lo->size() != 1 || hi->size() != 1)
    return c.fail("I0005", "MelWeightMatrix's inputs must be scalars");
  std::int64_t nb = (*bins)[0], nd = (*dft_len)[0], sr = (*rate)[0];
  double lo_hz = (*lo)[0], hi_hz = (*hi)[0];
  if (nb < 1 || nd < 1 || sr < 1 || nb > 4096 || nd > (1 << 20) || !(lo_hz >= 0) || !(hi_hz > lo_hz))
    return c.fail("I0005", "MelWeightMatrix needs 1 <= num_mel_bins <= 4096, 1 <= dft_length <= 2^20, sample_rate >= 1 and "
                           "0 <= lower_edge_hertz < upper_edge_hertz");
  const std::int64_t spec_bins = nd / 2 + 1;
  auto mel = [](double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); };
  double lo_mel = mel(lo_hz), step = (mel(hi_hz) - lo_mel) / static_cast<double>(nb + 2);
  std::vector<std::int64_t> f(static_cast<std::size_t>(nb + 2));
  for (std::int64_t i = 0; i < nb + 2; ++i) {
    double hz = 700.0 * (std::pow(10.0, (static_cast<double>(i) * step + lo_mel) / 2595.0) - 1.0);
    f[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(std::floor(static_cast<double>(nd + 1) * hz / static_cast<double>(sr)));
  }
  if (f.back() >= spec_bins) return c.fail("I0005", "upper_edge_hertz maps past the last spectrogram bin");
  std::vector<double> out(static_cast<std::size_t>(spec_bins * nb), 0.0);
  auto at = [&](std::int64_t j, std::int64_t i) -> double& { return out[static_cast<std::size_t>(j * nb + i)]; };
  for (std::int64_t i = 0; i < nb; ++i) {
    std::int64_t l = f[static_cast<std::size_t>(i)], m = f[static_cast<std::size_t>(i + 1)], r = f[static_cast<std::size_t>(i + 2)];
    if (m == l) at(m, i) = 1;
    else
      for (std::int64_t j = l; j <= m; ++j) at(j, i) = static_cast<double>(j - l) / static_cast<double>(m - l);
    if (r > m)
      for (std::int64_t j = m; j < r; ++j) at(j, i) = static_cast<double>(r - j) / static_cast<double>(r - m);
  }
  return out0(c, c.constant(ops::HostTensor::from_f64({static_cast<std::uint64_t>(spec_bins), static_cast<std::uint64_t>(nb)}, out, *to)));
}

}  // namespace

void add_spectral_handlers(std::vector<Handler>& h) {
  h.push_back({"DFT", 17, kMaxOpset, dft, "slice, transpose, reshape, matmul with a twiddle const (length known at import)"});
  h.push_back({"STFT", 17, kMaxOpset, stft, "gather of frames, mul by the window, the DFT's matmul (step and length known)"});
  h.push_back({"MelWeightMatrix", 17, kMaxOpset, mel_weight_matrix, "a const computed at import (operands known at import)"});
}

}  // namespace rung::onnx_import
