#include "ir/graph/samples.h"

#include "ir/graph/builder.h"

namespace rung {

Graph sample_mlp() {
  Graph g;
  GraphBuilder b(g);
  Dim B = Dim::symbol("B");
  auto f32 = [](std::initializer_list<Dim> d) { return tensor(DType::f32, d); };

  auto x = b.param("x", 0, f32({B, Dim::fixed(784)}));
  auto w1 = b.param("w1", 1, f32({Dim::fixed(784), Dim::fixed(128)}));
  auto b1 = b.param("b1", 2, f32({Dim::fixed(128)}));
  auto w2 = b.param("w2", 3, f32({Dim::fixed(128), Dim::fixed(10)}));
  auto b2 = b.param("b2", 4, f32({Dim::fixed(10)}));

  auto h = b.op("matmul", {x, w1}, f32({B, Dim::fixed(128)}));
  h = b.op("add", {h, b1}, f32({B, Dim::fixed(128)}));
  h = b.op("relu", {h}, f32({B, Dim::fixed(128)}));
  auto logits = b.op("matmul", {h, w2}, f32({B, Dim::fixed(10)}));
  logits = b.op("add", {logits, b2}, f32({B, Dim::fixed(10)}));
  RegionId forward = b.export_region("forward", {x, w1, b1, w2, b2}, {logits});

  auto out = b.call(forward, {x, w1, b1, w2, b2});
  auto cls = b.op("argmax", {out[0]}, tensor(DType::i64, {B}), {{"axis", std::int64_t{-1}}});
  b.export_region("predict", {x, w1, b1, w2, b2}, {cls});
  return g;
}

}  // namespace rung
