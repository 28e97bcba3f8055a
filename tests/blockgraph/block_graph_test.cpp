// The transformer block (bench/cuda/transformer_block.h) recorded as one GraphIR region,
// run through the default pass pipeline (validated after every pass) and executed whole by
// the reference backend (the `rung run --backend reference` path) and by the CPU backend's
// run_region: all 9 outputs must have the bits of the op-by-op reference on the same inputs.
#include <gtest/gtest.h>

#include <cstdio>

#include "block_graph.h"
#include "block_inputs.h"
#include "ops/evaluate.h"
#include "runtime/backend_registry.h"
#include "runtime/interpreter.h"

namespace rung {
namespace {

bench::BlockDims small_dims(bool attention_op) {
  bench::BlockDims d{2, 64, 128, 4, 512};
  d.attention_op = attention_op;
  return d;
}

std::string first_error(const DiagnosticSink& d) {
  for (const auto& x : d.all())
    if (x.severity == Severity::Error) return x.code + " " + x.message;
  return "";
}

// The op-by-op oracle: every op through ops::evaluate on host tensors.
struct OpByOp {
  DiagnosticSink d;
  bool failed = false;
  ops::HostTensor operator()(const char* op, std::vector<ops::HostTensor> in, const AttrMap& a) {
    auto out = ops::evaluate(op, in, a, d);
    if (!out) {
      failed = true;
      return ops::HostTensor::scalar_f32(0);
    }
    return (*out)[0];
  }
};

struct Case {
  bench::BlockDims dims;
  std::vector<ops::HostTensor> in, expected;
  bench::BlockGraph graph;
  bench::BlockPassReport report;
};

// Built once per attention form (the oracle takes a moment at this size).
const Case& block_case(bool attention_op) {
  static std::optional<Case> cases[2];
  auto& c = cases[attention_op ? 1 : 0];
  if (c) return *c;
  Case k;
  k.dims = small_dims(attention_op);
  k.in = bench::make_block_inputs(k.dims, 7);
  OpByOp oracle;
  k.expected = bench::transformer_block<ops::HostTensor>(oracle, k.dims, k.in);
  EXPECT_FALSE(oracle.failed) << first_error(oracle.d);
  std::vector<TensorType> types;
  for (const auto& t : k.in) types.push_back(t.type());
  DiagnosticSink d;
  auto g = bench::record_block_graph(k.dims, types, d);
  EXPECT_TRUE(g.has_value()) << first_error(d);
  if (g) {
    k.graph = std::move(*g);
    EXPECT_TRUE(bench::optimize_block_graph(k.graph, k.report, d)) << first_error(d);
  }
  c = std::move(k);
  return *c;
}

void expect_identical(const std::vector<ops::HostTensor>& got, const std::vector<ops::HostTensor>& want, const char* who) {
  auto names = bench::block_output_names();
  ASSERT_EQ(got.size(), want.size()) << who;
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_TRUE(got[i].identical(want[i])) << who << ": output " << names[i];
}

TEST(BlockGraph, RecordsOneRegionAndTheDefaultPipelineFusesIt) {
  const Case& c = block_case(true);
  const Region& r = c.graph.graph.region(c.graph.region());
  EXPECT_EQ(r.params.size(), 12u);
  EXPECT_EQ(r.results.size(), 9u);
  // Every pass of every iteration was validated (with op signatures) and passed.
  EXPECT_GE(c.report.validations, static_cast<int>(default_pipeline().size()));
  EXPECT_GT(c.report.fused_calls, 0u);
  EXPECT_GE(c.report.fused_ops, 2 * c.report.fused_calls);  // a fused call holds at least two ops
  EXPECT_LT(c.report.nodes_after, c.report.nodes_before);    // fused chains became one call each
  // Fusion moves ops into callees, never drops or duplicates one.
  EXPECT_EQ(c.report.fused_ops + c.report.unfused_broadcast + c.report.unfused_other, c.report.fusible_family_ops);
  std::printf("block: %zu fusible-family ops, %zu fused in %zu calls; left out: %zu with a broadcast operand, %zu other\n",
              c.report.fusible_family_ops, c.report.fused_ops, c.report.fused_calls, c.report.unfused_broadcast,
              c.report.unfused_other);
}

TEST(BlockGraph, ReferenceRunRegionHasTheOpByOpBits) {
  for (bool attention_op : {true, false}) {
    const Case& c = block_case(attention_op);
    DiagnosticSink d;
    auto backend = runtime::backend_registry().create("reference", ops::Tier::debug, d, {});
    ASSERT_TRUE(backend) << first_error(d);
    auto compute = runtime::as_compute_backend(*backend);
    auto got = compute->run(c.graph.graph, c.graph.region(), c.in, d);
    ASSERT_TRUE(got.has_value()) << first_error(d);
    expect_identical(*got, c.expected, attention_op ? "reference, attention op" : "reference, composed attention");
  }
}

TEST(BlockGraph, CpuRunRegionHasTheOpByOpBits) {
  for (bool attention_op : {true, false}) {
    const Case& c = block_case(attention_op);
    DiagnosticSink d;
    auto backend = runtime::backend_registry().create("cpu", ops::Tier::debug, d, {});
    ASSERT_TRUE(backend) << first_error(d);
    auto got = backend->run_region(c.graph.graph, c.graph.region(), c.in, d);
    ASSERT_TRUE(got.has_value()) << first_error(d);
    expect_identical(*got, c.expected, attention_op ? "cpu, attention op" : "cpu, composed attention");
  }
}

// What cuda_transformer_bench records at the size, f32 and bf16 (types only: nothing runs).
TEST(BlockGraph, RecordsAndOptimizesAtTheBenchSizeInF32AndBf16) {
  bench::BlockDims full{8, 1024, 768, 12, 3072};
  for (DType dt : {DType::f32, DType::bf16}) {
    std::vector<TensorType> types = bench::block_input_types(full, dt);
    DiagnosticSink d;
    auto g = bench::record_block_graph(full, types, d);
    ASSERT_TRUE(g.has_value()) << dtype_name(dt) << ": " << first_error(d);
    bench::BlockPassReport rep;
    ASSERT_TRUE(bench::optimize_block_graph(*g, rep, d)) << dtype_name(dt) << ": " << first_error(d);
    EXPECT_GT(rep.fused_calls, 0u) << dtype_name(dt);
    const Region& r = g->graph.region(g->region());
    EXPECT_EQ(g->graph.node(r.results[0].node).outputs[r.results[0].output], tensor(dt, {Dim::fixed(8), Dim::fixed(1024), Dim::fixed(768)}));
  }
}

TEST(BlockGraph, InputTypesDescribeTheInputs) {
  auto dims = small_dims(true);
  auto in = bench::make_block_inputs(dims, 7);
  auto types = bench::block_input_types(dims, DType::f32);
  ASSERT_EQ(in.size(), types.size());
  for (std::size_t i = 0; i < in.size(); ++i) EXPECT_EQ(in[i].type(), types[i]) << bench::block_input_names()[i];
}

TEST(BlockGraph, OperandsTheOpsRefuseAreADiagnosticNotAGraph) {
  auto dims = small_dims(true);
  std::vector<TensorType> types = bench::block_input_types(dims, DType::f32);
  types[3] = tensor(DType::f32, {Dim::fixed(dims.D + 1), Dim::fixed(3 * dims.D)});  // wqkv with a wrong inner dim
  DiagnosticSink d;
  EXPECT_FALSE(bench::record_block_graph(dims, types, d).has_value());
  EXPECT_EQ(first_error(d).substr(0, 5), "N0011");
}

TEST(BlockGraph, AnArgumentOfTheWrongShapeIsRefusedByRunRegion) {
  const Case& c = block_case(true);
  std::vector<ops::HostTensor> in = c.in;
  in[0] = ops::HostTensor(DType::f32, {c.dims.B, c.dims.T + 1, c.dims.D});
  DiagnosticSink d;
  auto backend = runtime::backend_registry().create("cpu", ops::Tier::debug, d, {});
  ASSERT_TRUE(backend);
  EXPECT_FALSE(backend->run_region(c.graph.graph, c.graph.region(), in, d).has_value());
  EXPECT_TRUE(d.has_errors());
}

}  // namespace
}  // namespace rung
