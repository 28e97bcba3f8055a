// Random numbers (ids 800-849): Philox4x32-10 keyed by seed, with the stream chosen by
// `offset` and element i of the output at stream position `position + i` (docs/semantics.md,
// "Random numbers"). No state: the same attributes give the same bits on every backend and
// under every partitioning of the output.
#include "ops/numerics/random_dist.h"
#include "ops/registry.h"
#include "ops/tensor_walk.h"

namespace rung::ops {

namespace {

using TC = TolClass;

struct Stream {
  std::uint64_t seed, offset, position;
};

Stream stream_of(const Attrs& a) {
  return {static_cast<std::uint64_t>(a.integer("seed")), static_cast<std::uint64_t>(a.integer("offset")),
          static_cast<std::uint64_t>(a.integer("position"))};
}

ShapeResult random_shape(const ShapeArgs& a) {
  if (a.attrs.integer("position") < 0) return ShapeResult::fail("position must be >= 0");
  if (a.attrs.has("dtype")) {
    DType t = a.attrs.dtype("dtype");
    if (!kFloat32Like.contains(t))
      return ShapeResult::fail("random floats are produced as f32, f16 or bf16, not " + std::string(dtype_name(t)));
  }
  return ShapeResult::ok({a.attrs.value("shape").as<Shape>()});
}

// Calls store(i, stream position of element i) for every output element.
template <typename Store> void for_each_draw(KernelContext& c, Store&& store) {
  std::string err;
  if (!static_extents(c.attrs.value("shape").as<Shape>(), err)) return c.fail(err);
  Stream s = stream_of(c.attrs);
  HostTensor& y = c.outputs[0];
  for (std::uint64_t i = 0; i < y.numel(); ++i) store(y, i, s, s.position + i);
}

void bits_kernel(KernelContext& c) {
  for_each_draw(c, [](HostTensor& y, std::uint64_t i, const Stream& s, std::uint64_t n) {
    y.set_raw<std::uint32_t>(i, num::philox_stream_word(s.seed, s.offset, n));
  });
}

// low + (high - low) * u with high - low, the product and the sum each rounded once in f32.
void uniform_kernel(KernelContext& c) {
  float low = static_cast<float>(c.attrs.real("low")), high = static_cast<float>(c.attrs.real("high"));
  float span = high - low;
  for_each_draw(c, [&](HostTensor& y, std::uint64_t i, const Stream& s, std::uint64_t n) {
    y.store_f32(i, low + span * num::philox_uniform01(s.seed, s.offset, n));
  });
}

// mean + std * z, product and sum each rounded once in f32.
void normal_kernel(KernelContext& c) {
  float mean = static_cast<float>(c.attrs.real("mean")), sd = static_cast<float>(c.attrs.real("std"));
  for_each_draw(c, [&](HostTensor& y, std::uint64_t i, const Stream& s, std::uint64_t n) {
    y.store_f32(i, mean + sd * num::philox_normal(s.seed, s.offset, n));
  });
}

OpDef random_op(std::string name, std::uint16_t id, std::string doc) {
  OpDef d(std::move(name), id);
  d.doc(std::move(doc))
      .attr("shape", AttrKind::shape, "the result shape")
      .attr("seed", AttrKind::integer, "the Philox key (64 bits, two's complement)")
      .attr("offset", std::int64_t{0}, "selects an independent stream (e.g. the training step)")
      .attr("position", std::int64_t{0}, "stream position of element 0 (element i reads position + i)")
      .shape(random_shape);
  return d;
}

}  // namespace

void register_family_random(OpRegistry& r) {
  r.add(random_op("random_bits", 800, "the raw Philox4x32-10 words: y[i] = word position+i of stream (seed, offset)")
            .output("y", "u32").kernel(bits_kernel));
  r.add(random_op("random_uniform", 801, "low + (high - low) * u, u = top 24 bits * 2^-24 in [0, 1)")
            .output("y", "attr:dtype")
            .attr("low", 0.0, "lower bound").attr("high", 1.0, "upper bound")
            .attr("dtype", DType::f32, "f32, f16 or bf16 (computed in f32, rounded once)")
            .kernel(uniform_kernel));
  r.add(random_op("random_normal", 802, "mean + std * z, z standard normal by Box-Muller on Philox words")
            .output("y", "attr:dtype")
            .attr("mean", 0.0, "mean").attr("std", 1.0, "standard deviation")
            .attr("dtype", DType::f32, "f32, f16 or bf16 (computed in f32, rounded once)")
            .kernel(normal_kernel)
            .tolerance_classes(TC::exact, TC::tight, TC::default_));
}

}  // namespace rung::ops
