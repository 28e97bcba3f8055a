#include "ir/block/samples.h"

#include "ir/graph/builder.h"

namespace rung::block {

Program sample_loop_program() {
  const TensorType i64 = tensor(DType::i64, {});
  const TensorType vec = tensor(DType::f32, {Dim::fixed(4)});
  Program p;
  p.module = "demo";
  p.determinism = {"debug", "exact"};
  GraphBuilder b(p.graph);
  float zeros[4] = {0, 0, 0, 0};
  RegionId init = b.region("init", {}, {b.constant_f32({Dim::fixed(4)}, zeros)});
  auto x = b.param("x", 0, vec);
  RegionId step = b.region("step", {x}, {b.op("exp", {x}, vec)});
  Bytes zero(8, 0), three(8, 0);
  three[0] = 3;
  RegionId bounds = b.region("bounds", {}, {b.constant(i64, zero), b.constant(i64, three)});

  Function f;
  f.name = "main";
  f.exported = true;
  f.effects = {"io"};
  f.slots = {{"x", vec, true}, {"lo", i64, false}, {"hi", i64, false}, {"i", i64, false}};
  f.results = {0};
  Stmt s_init{.kind = StmtKind::compute, .results = {0}, .region = p.graph.region(init).hash};
  Stmt s_bounds{.kind = StmtKind::compute, .results = {1, 2}, .region = p.graph.region(bounds).hash};
  Stmt s_step{.kind = StmtKind::compute, .args = {0}, .results = {0}, .region = p.graph.region(step).hash};
  Stmt s_for{.kind = StmtKind::for_range, .args = {1, 2}, .results = {3}, .body = {s_step}};
  Stmt s_print{.kind = StmtKind::print, .items = {{"x =", std::nullopt}, {"", SlotId{0}}}};
  Stmt s_ret{.kind = StmtKind::ret, .args = {0}};
  f.body = {s_init, s_bounds, s_for, s_print, s_ret};
  p.functions.push_back(f);
  return p;
}

}  // namespace rung::block
