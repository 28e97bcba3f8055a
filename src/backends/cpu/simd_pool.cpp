// max_pool and avg_pool on one f32 plane (simd.h), vectorised across output positions of a
// row: lane l holds output (oh, ow0 + l) and runs that output's own sequence of the
// definition (docs/semantics.md §17), so the bits are the scalar routine's.
//   max: taps in (kh, kw) order; a lane's best is replaced where the tap lies inside x and
//        (no best yet, or the best is not NaN and the tap is NaN, greater, or +0 over -0).
//   avg: the canonical tree's 32 lanes as 32 vectors (tap t adds into lane t mod 32; a tap
//        outside x adds +0, which changes no lane: a lane is never -0), the pairwise fold,
//        then one division by the count.
// Rows are copied into a zero-margined buffer so strided taps are plain (or gathered) loads.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/cpu/simd_pool.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/cpu/simd.h"

HWY_BEFORE_NAMESPACE();
namespace rung::cpu::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// x's rows at margin pad_l, zeros around, wide enough for every lane of the last vector.
struct Padded {
  std::vector<float> buf;
  std::size_t wp = 0;
  Padded(const float* x, const PoolWindow& w, std::size_t lanes) {
    std::size_t ow_round = (w.out_w + lanes - 1) / lanes * lanes;
    wp = std::max((ow_round - 1) * w.s_w + (w.k_w - 1) * w.d_w + 1, w.pad_l + w.in_w);
    buf.assign(w.in_h * wp, 0.0f);
    for (std::size_t h = 0; h < w.in_h; ++h)
      std::memcpy(buf.data() + h * wp + w.pad_l, x + h * w.in_w, w.in_w * sizeof(float));
  }
};

// The taps (kh, kw) of lanes ow0.. in padded coordinates: row + (ow0 + l) * s_w + kw * d_w.
template <class D, class DI>
HWY_INLINE hn::Vec<D> Tap(D d, DI di, const float* row, std::size_t ow0, std::size_t off, const PoolWindow& w) {
  if (w.s_w == 1) return hn::LoadU(d, row + ow0 + off);
  const auto lane = hn::Iota(di, static_cast<std::int32_t>(ow0));
  const auto at = hn::Add(hn::Mul(lane, hn::Set(di, static_cast<std::int32_t>(w.s_w))),
                          hn::Set(di, static_cast<std::int32_t>(off)));
  return hn::GatherIndex(d, row, at);
}

void MaxPoolPlaneF32(const float* x, const PoolWindow& w, std::int64_t plane_base, float* y, std::int64_t* idx) {
  const hn::ScalableTag<float> d;
  const hn::RebindToSigned<decltype(d)> di;
  const std::size_t L = hn::Lanes(d);
  Padded p(x, w, L);
  HWY_ALIGN float yb[hn::MaxLanes(d)];
  HWY_ALIGN std::int32_t ib[hn::MaxLanes(d)];
  const auto zero = hn::Zero(d);
  const auto izero = hn::Zero(di);
  for (std::size_t oh = 0; oh < w.out_h; ++oh)
    for (std::size_t ow0 = 0; ow0 < w.out_w; ow0 += L) {
      auto best = zero;
      auto at = izero;
      auto any = hn::FirstN(d, 0);
      const auto lane_ow = hn::Iota(di, static_cast<std::int32_t>(ow0));
      for (std::size_t kh = 0; kh < w.k_h; ++kh) {
        std::int64_t ih = static_cast<std::int64_t>(oh * w.s_h + kh * w.d_h) - static_cast<std::int64_t>(w.pad_t);
        if (ih < 0 || ih >= static_cast<std::int64_t>(w.in_h)) continue;
        const float* row = p.buf.data() + static_cast<std::size_t>(ih) * p.wp;
        for (std::size_t kw = 0; kw < w.k_w; ++kw) {
          const std::size_t off = kw * w.d_w;
          // iw = ow * s_w + kw * d_w - pad_l, inside [0, in_w)
          const auto iw = hn::Sub(hn::Add(hn::Mul(lane_ow, hn::Set(di, static_cast<std::int32_t>(w.s_w))),
                                          hn::Set(di, static_cast<std::int32_t>(off))),
                                  hn::Set(di, static_cast<std::int32_t>(w.pad_l)));
          const auto inside = hn::RebindMask(
              d, hn::And(hn::Not(hn::Lt(iw, izero)), hn::Lt(iw, hn::Set(di, static_cast<std::int32_t>(w.in_w)))));
          const auto v = Tap(d, di, row, ow0, off, w);
          const auto neg_best = hn::RebindMask(d, hn::Lt(hn::BitCast(di, best), izero));
          const auto neg_v = hn::RebindMask(d, hn::Lt(hn::BitCast(di, v), izero));
          const auto zeros = hn::And(hn::Eq(v, zero), hn::Eq(best, zero));
          const auto better =
              hn::Or(hn::Or(hn::IsNaN(v), hn::Gt(v, best)), hn::And(zeros, hn::AndNot(neg_v, neg_best)));
          const auto repl = hn::And(inside, hn::Or(hn::Not(any), hn::AndNot(hn::IsNaN(best), better)));
          best = hn::IfThenElse(repl, v, best);
          const auto pos = hn::Add(hn::Set(di, static_cast<std::int32_t>(static_cast<std::size_t>(ih) * w.in_w)), iw);
          at = hn::IfThenElse(hn::RebindMask(di, repl), pos, at);
          any = hn::Or(any, inside);
        }
      }
      const std::size_t n = std::min(L, w.out_w - ow0);
      hn::Store(best, d, yb);
      hn::Store(at, di, ib);
      float* yo = y + oh * w.out_w + ow0;
      std::int64_t* io = idx + oh * w.out_w + ow0;
      for (std::size_t l = 0; l < n; ++l) yo[l] = yb[l], io[l] = plane_base + ib[l];
    }
}

void AvgPoolPlaneF32(const float* x, const PoolWindow& w, const float* count, float* y) {
  const hn::ScalableTag<float> d;
  const std::size_t L = hn::Lanes(d);
  Padded p(x, w, L);
  const std::size_t taps = w.k_h * w.k_w, used = std::min<std::size_t>(taps, 32);
  HWY_ALIGN float acc[32 * hn::MaxLanes(d)];
  HWY_ALIGN float yb[hn::MaxLanes(d)];
  for (std::size_t oh = 0; oh < w.out_h; ++oh)
    for (std::size_t ow0 = 0; ow0 < w.out_w; ow0 += L) {
      for (std::size_t l = 0; l < used; ++l) hn::Store(hn::Zero(d), d, acc + l * L);
      for (std::size_t kh = 0; kh < w.k_h; ++kh) {
        std::int64_t ih = static_cast<std::int64_t>(oh * w.s_h + kh * w.d_h) - static_cast<std::int64_t>(w.pad_t);
        if (ih < 0 || ih >= static_cast<std::int64_t>(w.in_h)) continue;  // +0 taps
        const float* row = p.buf.data() + static_cast<std::size_t>(ih) * p.wp;
        const hn::RebindToSigned<decltype(d)> di;
        for (std::size_t kw = 0; kw < w.k_w; ++kw) {
          float* lane = acc + ((kh * w.k_w + kw) % 32) * L;
          hn::Store(hn::Add(hn::Load(d, lane), Tap(d, di, row, ow0, kw * w.d_w, w)), d, lane);
        }
      }
      std::size_t live = used;  // lanes >= live hold +0, the identity
      for (std::size_t s = 16; s >= 1; s /= 2) {
        for (std::size_t l = 0; l < s && l + s < live; ++l)
          hn::Store(hn::Add(hn::Load(d, acc + l * L), hn::Load(d, acc + (l + s) * L)), d, acc + l * L);
        live = std::min(live, s);
      }
      const std::size_t n = std::min(L, w.out_w - ow0);
      std::memcpy(yb, count + oh * w.out_w + ow0, n * sizeof(float));
      for (std::size_t l = n; l < L; ++l) yb[l] = 1.0f;
      hn::Store(hn::Div(hn::Load(d, acc), hn::Load(d, yb)), d, yb);
      std::memcpy(y + oh * w.out_w + ow0, yb, n * sizeof(float));
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace rung::cpu::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace rung::cpu::simd {

HWY_EXPORT(MaxPoolPlaneF32);
HWY_EXPORT(AvgPoolPlaneF32);

void max_pool_plane_f32(const float* x, const PoolWindow& w, std::int64_t plane_base, float* y, std::int64_t* idx) {
  HWY_DYNAMIC_DISPATCH(MaxPoolPlaneF32)(x, w, plane_base, y, idx);
}
void avg_pool_plane_f32(const float* x, const PoolWindow& w, const float* count, float* y) {
  HWY_DYNAMIC_DISPATCH(AvgPoolPlaneF32)(x, w, count, y);
}

}  // namespace rung::cpu::simd
#endif
