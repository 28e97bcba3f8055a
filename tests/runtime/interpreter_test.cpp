#include <gtest/gtest.h>

#include <sstream>

#include "ir/block/from_graph.h"
#include "ir/graph/builder.h"
#include "ir/graph/samples.h"
#include "runtime/interpreter.h"
#include "runtime/tensor_hash.h"
#include "support/reference_compute.h"

namespace rung {
namespace {

ops::HostTensor filled(ops::Extents shape, float scale, std::uint32_t seed) {
  std::uint64_t n = ops::element_count(shape);
  std::vector<float> v(n);
  std::uint32_t s = seed;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = (static_cast<float>(s >> 8) / 16777216.0f - 0.5f) * scale;
  }
  return ops::HostTensor::from_f32(shape, v);
}

std::vector<ops::HostTensor> mlp_args(std::uint64_t batch) {
  return {filled({batch, 784}, 2, 1), filled({784, 128}, 0.1f, 2), filled({128}, 0.1f, 3), filled({128, 10}, 0.1f, 4),
          filled({10}, 0.1f, 5)};
}

}  // namespace

TEST(Execute, RunsTheSampleMlpAndBindsTheBatchDim) {
  block::Program p = block::program_from_graph(sample_mlp(), "mlp", {"debug", "exact"});
  SourceMap sm;
  DiagnosticSink d;
  test_support::ReferenceCompute ref;
  runtime::ExecOptions o = ref.options();
  auto out = runtime::execute(p, "predict", mlp_args(5), sm, d, o);
  ASSERT_TRUE(out) << (d.empty() ? "" : d.all().front().message);
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ((*out)[0].dtype(), DType::i64);
  EXPECT_EQ((*out)[0].shape(), (ops::Extents{5}));
  for (int i = 0; i < 5; ++i) EXPECT_LT((*out)[0].load_i64(i), 10);
  // Repeated runs give identical bits.
  auto again = runtime::execute(p, "predict", mlp_args(5), sm, d, o);
  EXPECT_EQ(tensor_hash((*out)[0]), tensor_hash((*again)[0]));
}

TEST(Execute, ArgumentsThatDoNotFitAreDiagnosed) {
  block::Program p = block::program_from_graph(sample_mlp(), "mlp", {"debug", "exact"});
  SourceMap sm;
  test_support::ReferenceCompute ref;
  runtime::ExecOptions o = ref.options();
  auto args = mlp_args(2);
  args[0] = filled({2, 783}, 1, 9);
  DiagnosticSink d;
  EXPECT_FALSE(runtime::execute(p, "forward", args, sm, d, o));
  ASSERT_TRUE(d.contains("X0001"));
  EXPECT_NE(d.all()[0].message.find("extent 783"), std::string::npos) << d.all()[0].message;
  DiagnosticSink d2;
  EXPECT_FALSE(runtime::execute(p, "nope", args, sm, d2, o));
  EXPECT_TRUE(d2.contains("X0004"));
}

TEST(Execute, LoopsPrintAndReturn) {
  // fn main() !io { x = [0,0]; for i in 0..3 { x = x + one }; print "x" x; return x }
  block::Program p;
  p.module = "loop";
  p.determinism = {"debug", "exact"};
  GraphBuilder b(p.graph);
  auto vec = tensor(DType::f32, {Dim::fixed(2)});
  auto i64 = tensor(DType::i64, {});
  float zero[2] = {0, 0}, one[2] = {1, 1};
  RegionId init = b.region("init", {}, {b.constant_f32({Dim::fixed(2)}, zero)});
  auto x = b.param("x", 0, vec);
  RegionId step = b.region("step", {x}, {b.op("add", {x, b.constant_f32({Dim::fixed(2)}, one)}, vec)});
  Bytes lo(8, 0), hi(8, 0);
  hi[0] = 3;
  RegionId bounds = b.region("bounds", {}, {b.constant(i64, lo), b.constant(i64, hi)});
  block::Function f;
  f.name = "main";
  f.exported = true;
  f.effects = {"io"};
  f.slots = {{"x", vec, true}, {"lo", i64}, {"hi", i64}, {"i", i64}};
  f.results = {0};
  using block::Stmt;
  using block::StmtKind;
  f.body = {Stmt{.kind = StmtKind::compute, .results = {0}, .region = p.graph.region(init).hash},
            Stmt{.kind = StmtKind::compute, .results = {1, 2}, .region = p.graph.region(bounds).hash},
            Stmt{.kind = StmtKind::for_range, .args = {1, 2}, .results = {3},
                 .body = {Stmt{.kind = StmtKind::compute, .args = {0}, .results = {0}, .region = p.graph.region(step).hash}}},
            Stmt{.kind = StmtKind::print, .items = {{"x is", std::nullopt}, {"", block::SlotId{0}}, {"after", std::nullopt}, {"", block::SlotId{3}}}},
            Stmt{.kind = StmtKind::ret, .args = {0}}};
  p.functions.push_back(f);
  SourceMap sm;
  DiagnosticSink d;
  std::ostringstream printed;
  test_support::ReferenceCompute ref;
  runtime::ExecOptions o = ref.options();
  o.out = &printed;
  auto out = runtime::execute(p, "main", {}, sm, d, o);
  ASSERT_TRUE(out) << (d.empty() ? "" : d.all().front().message);
  EXPECT_EQ((*out)[0].load_f32(1), 3.0f);
  EXPECT_EQ(printed.str(), "x is f32[2] [3, 3] after 2\n");
}

}  // namespace rung
