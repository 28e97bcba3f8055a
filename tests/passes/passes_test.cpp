#include <gtest/gtest.h>

#include "ir/graph/builder.h"
#include "ir/graph/samples.h"
#include "passes/pass.h"
#include "passes/rebuild.h"

namespace rung {
namespace {

std::size_t count_op(const Graph& g, std::string_view op) {
  std::size_t n = 0;
  for (const auto& node : g.nodes()) n += node.opcode == op;
  return n;
}

bool run_pipeline(Graph& g, std::vector<std::string> passes, DiagnosticSink& d, PassManager** out = nullptr) {
  static std::unique_ptr<PassManager> keep;
  PipelineOptions o;
  o.passes = std::move(passes);
  keep = std::make_unique<PassManager>(o);
  PassContext ctx{d};
  bool ok = keep->run(g, ctx);
  if (out) *out = keep.get();
  return ok;
}

}  // namespace

TEST(Rebuild, IdentityKeepsTheFingerprint) {
  Graph g = sample_mlp();
  Graph r = rebuild(g, {});
  EXPECT_EQ(r.fingerprint(), g.fingerprint());
  EXPECT_EQ(r.node_count(), g.node_count());
}

TEST(Dce, RemovesUnreachableNodesOnly) {
  Graph g = sample_mlp();
  GraphBuilder b(g);
  auto t = tensor(DType::f32, {Dim::fixed(3)});
  auto dead = b.op("neg", {b.param("z", 0, t)}, t);
  (void)dead;
  std::size_t before = g.node_count();
  Hash256 fp = g.fingerprint();
  DiagnosticSink d;
  ASSERT_TRUE(run_pipeline(g, {"dce"}, d));
  EXPECT_EQ(g.node_count(), before - 2);
  EXPECT_EQ(g.fingerprint(), fp);
}

TEST(Inline, ReplacesCallsWithTheCalleeBody) {
  Graph g = sample_mlp();
  DiagnosticSink d;
  PassManager* pm = nullptr;
  ASSERT_TRUE(run_pipeline(g, {"inline", "dce"}, d, &pm)) << d.all().front().message;
  EXPECT_EQ(count_op(g, "call"), 0u);
  // predict's body now holds forward's nodes; hash-consing shares them with forward.
  EXPECT_EQ(count_op(g, "matmul"), 2u);
  EXPECT_EQ(g.exports().size(), 2u);
  EXPECT_EQ(pm->iterations(), 2);  // one changing iteration, one confirming the fixpoint
  EXPECT_EQ(pm->stats()[0].changed, 1u);
}

TEST(Inline, NestedCallsInlineInOneRun) {
  Graph g;
  GraphBuilder b(g);
  auto t = tensor(DType::f32, {Dim::fixed(2)});
  auto x = b.param("x", 0, t);
  RegionId inner = b.region("inner", {x}, {b.op("exp", {x}, t)});
  RegionId middle = b.region("middle", {x}, {b.op("neg", {b.call(inner, {x})[0]}, t)});
  b.export_region("outer", {x}, {b.call(middle, {x})[0]});
  DiagnosticSink d;
  PassManager* pm = nullptr;
  ASSERT_TRUE(run_pipeline(g, {"inline", "dce"}, d, &pm));
  EXPECT_EQ(count_op(g, "call"), 0u);
  EXPECT_EQ(g.region_count(), 1u);  // the private callees are gone
  EXPECT_EQ(count_op(g, "exp"), 1u);
  EXPECT_EQ(pm->stats()[0].changed, 1u);
}

TEST(PassManager, UnknownPassIsADiagnostic) {
  Graph g = sample_mlp();
  DiagnosticSink d;
  EXPECT_FALSE(run_pipeline(g, {"inline", "frobnicate"}, d));
  EXPECT_TRUE(d.contains("P0003"));
}

// A deliberately broken pass: the manager's validator must catch it and name it.
class BreakingPass final : public Pass {
 public:
  std::string_view name() const override { return "breaker"; }
  std::string_view summary() const override { return "test only"; }
  Graph run(const Graph& in, PassContext&) override {
    Graph out;
    for (const auto& n : in.nodes()) {
      Node copy = n;
      if (copy.opcode == "relu") copy.hash.bytes[0] ^= 1;  // corrupt a stored hash
      out.adopt_node(copy);
    }
    for (const auto& r : in.regions()) out.adopt_region(r);
    for (const auto& [name, r] : in.exports()) out.set_export(name, r);
    out.adopt_node(in.node(0));  // and change the node count so it counts as changed
    return out;
  }
};

TEST(PassManager, ValidatorAfterEveryPassNamesTheBrokenPass) {
  Graph g = sample_mlp();
  Hash256 fp = g.fingerprint();
  DiagnosticSink d;
  std::vector<std::unique_ptr<Pass>> pipeline;
  pipeline.push_back(std::make_unique<BreakingPass>());
  PassManager pm({}, std::move(pipeline));
  PassContext ctx{d};
  EXPECT_FALSE(pm.run(g, ctx));
  ASSERT_TRUE(d.contains("P0001"));
  EXPECT_NE(d.all().front().message.find("`breaker`"), std::string::npos);
  EXPECT_NE(d.all().front().notes.front().find("G0001"), std::string::npos);
  EXPECT_EQ(g.fingerprint(), fp);  // the last valid graph is kept
}

TEST(PassManager, PrintAfterReportsUnchangedPasses) {
  Graph g = sample_mlp();
  DiagnosticSink d;
  std::vector<std::string> seen;
  PipelineOptions o;
  o.passes = {"dce"};
  o.print_after = {"all"};
  o.print = [&](std::string_view pass, int, const Graph&, bool changed) {
    seen.push_back(std::string(pass) + (changed ? "" : " (unchanged)"));
  };
  PassManager pm(o);
  PassContext ctx{d};
  ASSERT_TRUE(pm.run(g, ctx));
  EXPECT_EQ(seen, std::vector<std::string>{"dce (unchanged)"});
}

}  // namespace rung
