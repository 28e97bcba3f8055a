// Optimizer updates (sgd_update, adam_update), autodiff helpers (expand_like, zeros_like,
// ones_like) and the Philox random ops. All scalar loops over threads: each element's
// sequence of f32 operations is the reference's (optimizer steps are a handful of rounded
// operations per element; random draws are rung's counter-based Philox, so element i needs
// only its position: any split gives the same stream).
#include <cstring>

#include "backends/cpu/cpu_kernel.h"
#include "backends/cpu/strided_copy.h"
#include "ops/elementwise_driver.h"
#include "ops/numerics/ieee.h"
#include "ops/numerics/philox.h"
#include "ops/numerics/random_dist.h"
#include "ops/tensor_walk.h"

namespace rung::cpu {

namespace {

using ops::Extents;
using ops::HostTensor;

void sgd_kernel(CpuContext& c) {
  const HostTensor &p = c.k.inputs[0], &g = c.k.inputs[1], &vel = c.k.inputs[2];
  const float lr = static_cast<float>(c.k.attrs.real("lr")), mom = static_cast<float>(c.k.attrs.real("momentum")),
              wd = static_cast<float>(c.k.attrs.real("weight_decay"));
  const float *pp = reinterpret_cast<const float*>(p.bytes().data()), *pg = reinterpret_cast<const float*>(g.bytes().data()),
              *pv = reinterpret_cast<const float*>(vel.bytes().data());
  float* op = reinterpret_cast<float*>(c.k.outputs[0].bytes().data());
  float* ov = reinterpret_cast<float*>(c.k.outputs[1].bytes().data());
  c.pool.parallel_for(p.numel(), kElemGrain, [&](std::uint64_t i0, std::uint64_t i1) {
    for (std::uint64_t i = i0; i < i1; ++i) {
      float pi = pp[i], gi = pg[i];
      if (wd != 0.0f) gi = gi + wd * pi;
      float v1 = mom * pv[i] + gi;
      op[i] = pi - lr * v1;
      ov[i] = v1;
    }
  });
}

void adam_kernel(CpuContext& c) {
  const HostTensor &p = c.k.inputs[0], &g = c.k.inputs[1], &m = c.k.inputs[2], &v = c.k.inputs[3], &pows = c.k.inputs[4];
  const float lr = static_cast<float>(c.k.attrs.real("lr")), b1 = static_cast<float>(c.k.attrs.real("beta1")),
              b2 = static_cast<float>(c.k.attrs.real("beta2")), eps = static_cast<float>(c.k.attrs.real("eps")),
              wd = static_cast<float>(c.k.attrs.real("weight_decay"));
  const bool decoupled = c.k.attrs.boolean("decoupled");
  const float p1 = pows.load_f32(0) * b1, p2 = pows.load_f32(1) * b2;
  const float c1 = 1.0f - p1, c2 = 1.0f - p2, one_b1 = 1.0f - b1, one_b2 = 1.0f - b2;
  auto f32 = [](const HostTensor& t) { return reinterpret_cast<const float*>(t.bytes().data()); };
  auto out = [&](std::size_t i) { return reinterpret_cast<float*>(c.k.outputs[i].bytes().data()); };
  const float *pp = f32(p), *pg = f32(g), *pm = f32(m), *pv = f32(v);
  float *op = out(0), *om = out(1), *ov = out(2);
  c.pool.parallel_for(p.numel(), kElemGrain, [&](std::uint64_t i0, std::uint64_t i1) {
    for (std::uint64_t i = i0; i < i1; ++i) {
      float pi = pp[i], gi = pg[i];
      if (!decoupled && wd != 0.0f) gi = gi + wd * pi;
      float m1 = b1 * pm[i] + one_b1 * gi;
      float g2 = gi * gi;
      float v1 = b2 * pv[i] + one_b2 * g2;
      float mhat = m1 / c1, vhat = v1 / c2;
      float u = mhat / (num::sqrt_f32(vhat) + eps);
      if (decoupled && wd != 0.0f) u = u + wd * pi;
      op[i] = pi - lr * u;
      om[i] = m1;
      ov[i] = v1;
    }
  });
  c.k.outputs[3].store_f32(0, p1);
  c.k.outputs[3].store_f32(1, p2);
}

void expand_like_kernel(CpuContext& c) {
  const HostTensor& x = c.k.inputs[0];
  HostTensor& y = c.k.outputs[0];
  const auto& axes = c.k.attrs.integers("axes");
  Extents xs = x.shape();
  if (!axes.empty()) {
    std::vector<bool> inserted(y.rank(), false);
    for (auto ax : axes) inserted[static_cast<std::size_t>(ax < 0 ? ax + static_cast<std::int64_t>(y.rank()) : ax)] = true;
    xs.clear();
    std::size_t k = 0;
    for (std::size_t i = 0; i < y.rank(); ++i) xs.push_back(inserted[i] ? 1 : x.shape()[k++]);
  }
  auto st = ops::broadcast_strides(xs, y.shape());
  strided_copy(c.pool, x, y, 0, std::vector<std::int64_t>(st.begin(), st.end()));
}

void zeros_like_kernel(CpuContext&) {}  // outputs arrive zero-filled: +0 in every dtype

void ones_like_kernel(CpuContext& c) {
  HostTensor& y = c.k.outputs[0];
  if (y.numel() == 0) return;
  ops::visit_compute_type(y.dtype(), [&](auto tag) {
    using T = decltype(tag);
    ops::store_as(y, 0, T(1));
  });
  std::size_t w = ops::elem_size(y.dtype());
  c.pool.parallel_for(y.numel() - 1, kElemGrain, [&](std::uint64_t i0, std::uint64_t i1) {
    for (std::uint64_t i = i0 + 1; i <= i1; ++i) std::memcpy(y.bytes().data() + i * w, y.bytes().data(), w);
  });
}

template <typename Draw> void for_each_draw(CpuContext& c, Draw&& draw) {
  std::string err;
  if (!ops::static_extents(c.k.attrs.value("shape").as<Shape>(), err)) return c.k.fail(err);
  auto seed = static_cast<std::uint64_t>(c.k.attrs.integer("seed")), offset = static_cast<std::uint64_t>(c.k.attrs.integer("offset")),
       position = static_cast<std::uint64_t>(c.k.attrs.integer("position"));
  HostTensor& y = c.k.outputs[0];
  c.pool.parallel_for(y.numel(), kElemGrain / 4, [&](std::uint64_t i0, std::uint64_t i1) {
    for (std::uint64_t i = i0; i < i1; ++i) draw(y, i, seed, offset, position + i);
  });
}

void bits_kernel(CpuContext& c) {
  for_each_draw(c, [](HostTensor& y, std::uint64_t i, std::uint64_t s, std::uint64_t o, std::uint64_t n) {
    y.set_raw<std::uint32_t>(i, num::philox_stream_word(s, o, n));
  });
}

void uniform_kernel(CpuContext& c) {
  float low = static_cast<float>(c.k.attrs.real("low")), high = static_cast<float>(c.k.attrs.real("high"));
  float span = high - low;
  for_each_draw(c, [&](HostTensor& y, std::uint64_t i, std::uint64_t s, std::uint64_t o, std::uint64_t n) {
    y.store_f32(i, low + span * num::philox_uniform01(s, o, n));
  });
}

void normal_kernel(CpuContext& c) {
  float mean = static_cast<float>(c.k.attrs.real("mean")), sd = static_cast<float>(c.k.attrs.real("std"));
  for_each_draw(c, [&](HostTensor& y, std::uint64_t i, std::uint64_t s, std::uint64_t o, std::uint64_t n) {
    y.store_f32(i, mean + sd * num::philox_normal(s, o, n));
  });
}

}  // namespace

void register_misc_kernels(ops::OpRegistry& r) {
  const Impl S = Impl::scalar;
  add_kernel(r, "sgd_update", sgd_kernel, S);
  add_kernel(r, "adam_update", adam_kernel, S);
  add_kernel(r, "expand_like", expand_like_kernel, S);
  add_kernel(r, "zeros_like", zeros_like_kernel, S);
  add_kernel(r, "ones_like", ones_like_kernel, S);
  add_kernel(r, "random_bits", bits_kernel, S);
  add_kernel(r, "random_uniform", uniform_kernel, S);
  add_kernel(r, "random_normal", normal_kernel, S);
}

}  // namespace rung::cpu
