// The plan-to-C++ lowering of `rung build --target wasm` (src/backends/wasm/lower_entry.h) on
// hand-built programs: values sit where the plan put them, region results reach their slots
// (through the staging area when a slot lies over a result still to be copied), and an op
// without a kernel is named.
#include <gtest/gtest.h>

#include "backends/wasm/lower_entry.h"
#include "ir/graph/builder.h"

namespace rung::wasm {
namespace {

TensorType f32x(std::uint64_t n) { return tensor(DType::f32, {Dim::fixed(n)}); }

// main(x: f32[16]) -> (a, b) = { neg(x), relu(x) }: one compute statement, two results.
block::Program two_results() {
  block::Program p;
  p.module = "two";
  p.determinism = {"debug", "exact"};
  GraphBuilder b(p.graph);
  ValueRef x = b.param("x", 0, f32x(16));
  ValueRef a = b.op("neg", {x}, f32x(16));
  ValueRef r = b.op("relu", {x}, f32x(16));
  RegionId region = b.region("body", {x}, {a, r});
  block::Function f;
  f.name = "main";
  f.exported = true;
  f.slots = {{"x", f32x(16), false}, {"a", f32x(16), false}, {"b", f32x(16), false}};
  f.params = {0};
  f.results = {1, 2};
  block::Stmt s;
  s.kind = block::StmtKind::compute;
  s.args = {0};
  s.results = {1, 2};
  s.region = p.graph.region(region).hash;
  block::Stmt ret;
  ret.kind = block::StmtKind::ret;
  ret.args = {1, 2};
  f.body = {s, ret};
  p.functions.push_back(std::move(f));
  return p;
}

plan::MemoryPlan planned(const block::Program& p) {
  DiagnosticSink diags;
  plan::PlanOptions o;
  o.entry = "main";
  auto mp = plan::plan_program(p, o, diags);
  EXPECT_TRUE(mp.has_value());
  return *mp;
}

const plan::Buffer& buffer(const plan::MemoryPlan& mp, const std::string& what) {  // by the planner's name
  for (const auto& b : mp.buffers)
    if (b.what == what || b.what.rfind(what + ",", 0) == 0) return b;
  ADD_FAILURE() << "no buffer " << what;
  return mp.buffers.front();
}

std::string at(std::uint64_t off) { return "arena + " + std::to_string(off); }

TEST(WasmLowering, PortsAndDispatchesFollowThePlan) {
  block::Program p = two_results();
  plan::MemoryPlan mp = planned(p);
  DiagnosticSink diags;
  auto m = lower_entry(p, mp, diags);
  ASSERT_TRUE(m) << diags.all().size();
  ASSERT_EQ(m->inputs.size(), 1u);
  ASSERT_EQ(m->outputs.size(), 2u);
  EXPECT_EQ(m->inputs[0].name, "x");
  EXPECT_EQ(m->outputs[0].name, "a");
  EXPECT_EQ(m->outputs[1].name, "b");
  EXPECT_EQ(m->inputs[0].where.offset, buffer(mp, "main: argument x").offset);
  EXPECT_EQ(m->outputs[0].where.offset, buffer(mp, "main: slot a").offset);
  EXPECT_EQ(m->outputs[1].where.offset, buffer(mp, "main: slot b").offset);
  EXPECT_NE(m->cpp.find("rung::num::Neg{}"), std::string::npos);
  EXPECT_NE(m->cpp.find("rung::num::Relu{}"), std::string::npos);
  EXPECT_GE(m->arena_bytes, mp.arenas.at(MemSpace::host));
}

// The planner frees both results before it places the slots, and puts slot a over relu's
// result (slot b over neg's): copying a first would destroy b's value.
TEST(WasmLowering, ASlotOverAResultStillToBeCopiedGoesThroughStaging) {
  block::Program p = two_results();
  plan::MemoryPlan mp = planned(p);
  const plan::Buffer& slot_a = buffer(mp, "main: slot a");
  const plan::Buffer& slot_b = buffer(mp, "main: slot b");
  const plan::Buffer* neg = nullptr;
  const plan::Buffer* relu = nullptr;
  for (const auto& b : mp.buffers) {
    if (b.what.find("`neg`") != std::string::npos) neg = &b;
    if (b.what.find("`relu`") != std::string::npos) relu = &b;
  }
  ASSERT_TRUE(neg && relu);
  ASSERT_EQ(slot_a.offset, relu->offset) << "the plan no longer places slot a over b's result: this test needs a new case";
  DiagnosticSink diags;
  auto m = lower_entry(p, mp, diags);
  ASSERT_TRUE(m);
  std::uint64_t host = mp.arenas.at(MemSpace::host);
  EXPECT_EQ(m->arena_bytes, host + 128);  // both results, 64 bytes each
  // Both results to staging first, then to their slots.
  std::size_t s0 = m->cpp.find("copy_bytes(" + at(neg->offset) + ", staging + 0, 64)");
  std::size_t s1 = m->cpp.find("copy_bytes(" + at(relu->offset) + ", staging + 64, 64)");
  std::size_t d0 = m->cpp.find("copy_bytes(staging + 0, " + at(slot_a.offset) + ", 64)");
  std::size_t d1 = m->cpp.find("copy_bytes(staging + 64, " + at(slot_b.offset) + ", 64)");
  ASSERT_NE(s0, std::string::npos) << m->cpp;
  ASSERT_NE(s1, std::string::npos) << m->cpp;
  ASSERT_NE(d0, std::string::npos) << m->cpp;
  ASSERT_NE(d1, std::string::npos) << m->cpp;
  EXPECT_LT(s1, d0);
  EXPECT_NE(m->cpp.find("unsigned char* const staging = arena + " + std::to_string(host) + ";"), std::string::npos);
}

TEST(WasmLowering, AnOpWithoutAKernelIsNamed) {
  block::Program p;
  p.module = "m";
  p.determinism = {"debug", "exact"};
  GraphBuilder b(p.graph);
  TensorType t = tensor(DType::f32, {Dim::fixed(2), Dim::fixed(4)});
  ValueRef x = b.param("x", 0, t);
  ValueRef y = b.op("cumsum", {x}, t, {{"axis", std::int64_t{1}}, {"exclusive", false}, {"reverse", false}});
  RegionId region = b.region("body", {x}, {y});
  block::Function f;
  f.name = "main";
  f.slots = {{"x", t, false}, {"y", t, false}};
  f.params = {0};
  f.results = {1};
  block::Stmt s;
  s.kind = block::StmtKind::compute;
  s.args = {0};
  s.results = {1};
  s.region = p.graph.region(region).hash;
  block::Stmt ret;
  ret.kind = block::StmtKind::ret;
  ret.args = {1};
  f.body = {s, ret};
  p.functions.push_back(std::move(f));
  plan::MemoryPlan mp = planned(p);
  DiagnosticSink diags;
  EXPECT_FALSE(lower_entry(p, mp, diags));
  ASSERT_EQ(diags.all().size(), 1u);
  EXPECT_EQ(diags.all()[0].code, "T0002");
  EXPECT_NE(diags.all()[0].message.find("`cumsum`"), std::string::npos);
}

}  // namespace
}  // namespace rung::wasm
