// Extra results are built when the group's first member is reached, their inputs built on
// demand: a long chain that the walk has not reached yet must not overflow the stack.
#include <gtest/gtest.h>

#include "ir/graph/builder.h"
#include "passes/pass.h"

namespace rung {

TEST(Fuse, ExtraResultsWithALongUnbuiltInputChain) {
  for (int n : {1000, 100000}) {
    Graph g;
    GraphBuilder b(g);
    auto t = tensor(DType::f32, {Dim::fixed(4), Dim::fixed(4)});
    auto x = b.param("x", 0, t), w = b.param("w", 1, t);
    ValueRef e = x;
    for (int i = 0; i < n; ++i) e = b.op("matmul", {e, w}, t);
    auto p = b.op("exp", {x}, t);  // walked before the chain: mul's last operand comes first
    auto c = b.op("mul", {e, p}, t);
    auto s = b.op("sum", {p}, tensor(DType::f32, {}), {{"axes", AttrValue(std::vector<std::int64_t>{})}});
    b.export_region("f", {x, w}, {c, s});
    PassManager pm({});
    DiagnosticSink d;
    PassContext ctx{d};
    ASSERT_TRUE(pm.run(g, ctx)) << n;
    std::size_t calls = 0, outputs = 0;
    for (const auto& node : g.nodes())
      if (node.opcode == "call" && node.attrs.count("fusion")) {
        ++calls;
        outputs += node.outputs.size();
      }
    EXPECT_EQ(calls, 1u) << n;
    EXPECT_EQ(outputs, 2u) << n;  // mul, and exp as an extra result
  }
}

}  // namespace rung
