// In-place execution and handed-over arguments, planned and executed: a hand-computable
// program whose peak drops by exactly the buffer reused in place, with the bits of the
// op-by-op evaluation on the reference and the cpu backend.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ir/graph/builder.h"
#include "ops/evaluate.h"
#include "plan/memory_plan.h"
#include "runtime/backend_registry.h"
#include "runtime/interpreter.h"
#include "runtime/memory_meter.h"

namespace rung::plan {
namespace {

TensorType f32(std::initializer_list<Dim> dims) { return tensor(DType::f32, dims); }

constexpr std::uint64_t kRows = 300, kCols = 100;  // 30,000 elements: two chunks of rows in place
constexpr std::uint64_t kBytes = kRows * kCols * 4;

// main(x: f32[300, 100], bias: f32[100]) { t = neg_r(x); u = exp_r(t, bias); return u }
//   neg_r(p)    = neg(p)              x is the caller's: a fresh result
//   exp_r(q, c) = exp(q) + c          t dies here: handed over, exp and add run in place
block::Program program() {
  block::Program p;
  p.module = "inplace";
  p.determinism = {"debug", "exact"};
  GraphBuilder b(p.graph);
  auto M = f32({Dim::fixed(kRows), Dim::fixed(kCols)});
  auto V = f32({Dim::fixed(kCols)});
  ValueRef px = b.param("p", 0, M);
  RegionId neg_r = b.region("neg_r", {px}, {b.op("neg", {px}, M)});
  ValueRef q = b.param("q", 0, M);
  ValueRef c = b.param("c", 1, V);
  RegionId exp_r = b.region("exp_r", {q, c}, {b.op("add", {b.op("exp", {q}, M), c}, M)});
  block::Function f;
  f.name = "main";
  f.exported = true;
  f.slots = {{"x", M, false}, {"bias", V, false}, {"t", M, false}, {"u", M, false}};
  f.params = {0, 1};
  f.results = {3};
  block::Stmt s1;
  s1.kind = block::StmtKind::compute;
  s1.args = {0};
  s1.results = {2};
  s1.region = p.graph.region(neg_r).hash;
  block::Stmt s2;
  s2.kind = block::StmtKind::compute;
  s2.args = {2, 1};
  s2.results = {3};
  s2.region = p.graph.region(exp_r).hash;
  block::Stmt ret;
  ret.kind = block::StmtKind::ret;
  ret.args = {3};
  f.body = {s1, s2, ret};
  p.functions.push_back(std::move(f));
  return p;
}

std::vector<ops::HostTensor> args() {
  std::vector<float> xs(kRows * kCols), bs(kCols);
  for (std::size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<float>(static_cast<double>(i % 977) * 0.173 - 80.0);
  xs[12345] = std::numeric_limits<float>::quiet_NaN();
  xs[20000] = -std::numeric_limits<float>::infinity();
  for (std::size_t i = 0; i < bs.size(); ++i) bs[i] = static_cast<float>(i) * 0.5f - 7.0f;
  return {ops::HostTensor::from_f32({kRows, kCols}, xs), ops::HostTensor::from_f32({kCols}, bs)};
}

TEST(PlanInPlace, PeakDropsByTheReusedBufferAndRunsBitIdentical) {
  block::Program p = program();
  DiagnosticSink d;
  auto m = plan_program(p, {}, d);
  ASSERT_TRUE(m) << (d.empty() ? "" : d.all()[0].message);
  // Held at the peak: x and bias (entry arguments), and one f32[300, 100] (t, whose buffer
  // exp and add write into). Without in place, exp's result would be a second one.
  EXPECT_EQ(m->peak, kBytes + kCols * 4 + kBytes);
  ASSERT_EQ(m->dispatches.size(), 3u);
  EXPECT_EQ(m->dispatches[0].op, "neg");
  EXPECT_NE(m->dispatches[0].outputs.at(0), m->dispatches[0].inputs.at(0));  // x is the caller's
  EXPECT_EQ(m->dispatches[1].op, "exp");
  EXPECT_EQ(m->dispatches[1].outputs.at(0), m->dispatches[1].inputs.at(0));  // t, handed over
  EXPECT_EQ(m->dispatches[2].op, "add");
  EXPECT_EQ(m->dispatches[2].outputs.at(0), m->dispatches[2].inputs.at(0));
  EXPECT_EQ(m->in_place_dispatches, 2u);
  EXPECT_EQ(m->in_place_bytes, 2 * kBytes);

  // The op-by-op answer, each op on whole tensors.
  auto in = args();
  DiagnosticSink ed;
  auto n = ops::evaluate("neg", std::span(&in[0], 1), {}, ed);
  ASSERT_TRUE(n);
  auto e = ops::evaluate("exp", *n, {}, ed);
  ASSERT_TRUE(e);
  std::vector<ops::HostTensor> ab{(*e)[0], in[1]};
  auto want = ops::evaluate("add", ab, {}, ed);
  ASSERT_TRUE(want);

  int ran = 0;
  for (const char* name : {"reference", "cpu"}) {
    if (!runtime::backend_registry().find(name)) continue;
    DiagnosticSink bd;
    auto ob = runtime::backend_registry().create(name, ops::Tier::debug, bd, {});
    ASSERT_TRUE(ob) << name;
    auto backend = runtime::as_compute_backend(*ob);
    runtime::ExecOptions eo;
    eo.backend = backend.get();
    SourceMap sources;
    runtime::MemoryMeter meter;
    std::optional<std::vector<ops::HostTensor>> out;
    {
      runtime::ScopedMeter scope(&meter);
      out = runtime::execute(p, "main", in, sources, bd, eo);
    }
    ASSERT_TRUE(out) << name << ": " << (bd.empty() ? "" : bd.all()[0].message);
    ASSERT_EQ(out->size(), 1u);
    EXPECT_TRUE((*out)[0].identical((*want)[0])) << name;
    EXPECT_EQ(meter.peak(), m->peak) << name;
    ++ran;
  }
  EXPECT_GE(ran, 1);
}

}  // namespace
}  // namespace rung::plan
