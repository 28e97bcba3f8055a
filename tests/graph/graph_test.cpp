#include <gtest/gtest.h>

#include "ir/graph/builder.h"
#include "ir/graph/printer.h"
#include "ir/graph/samples.h"
#include "ir/graph/validator.h"

namespace rung {
namespace {
TensorType f32(std::initializer_list<Dim> d) { return tensor(DType::f32, d); }
const Dim N = Dim::fixed(4);
}  // namespace

TEST(HashConsing, InsertingTheSameNodeTwiceYieldsOneNode) {
  Graph g;
  GraphBuilder b(g);
  auto x = b.param("x", 0, f32({N}));
  auto y = b.param("y", 1, f32({N}));
  auto s1 = b.op("add", {x, y}, f32({N}));
  auto s2 = b.op("add", {x, y}, f32({N}));
  EXPECT_EQ(s1, s2);
  EXPECT_EQ(g.node_count(), 3u);
  // Operand order, attributes and result type are all part of identity.
  EXPECT_NE(b.op("add", {y, x}, f32({N})), s1);
  EXPECT_NE(b.op("add", {x, y}, f32({N}), {{"note", "x"}}), s1);
  EXPECT_NE(b.op("add", {x, y}, tensor(DType::f64, {N})), s1);
  EXPECT_EQ(g.node_count(), 6u);
}

TEST(HashConsing, AttributeMapsAreCanonicalWhateverTheInsertionOrder) {
  Graph g;
  GraphBuilder b(g);
  auto x = b.param("x", 0, f32({N}));
  AttrMap a1, a2;
  a1.emplace("alpha", 1.5);
  a1.emplace("axis", std::int64_t{0});
  a2.emplace("axis", std::int64_t{0});
  a2.emplace("alpha", 1.5);
  EXPECT_EQ(b.op("scale", {x}, f32({N}), a1), b.op("scale", {x}, f32({N}), a2));
}

TEST(HashConsing, RegionsAreHashConsedToo) {
  Graph g;
  GraphBuilder b(g);
  auto x = b.param("x", 0, f32({N}));
  auto r = b.op("relu", {x}, f32({N}));
  EXPECT_EQ(b.region("f", {x}, {r}), b.region("f", {x}, {r}));
  EXPECT_NE(b.region("f", {x}, {r}), b.region("g", {x}, {r}));
  EXPECT_EQ(g.region_count(), 2u);
}

// Builds the same two-function graph in two different insertion orders.
Graph build_ordered(bool reversed) {
  Graph g;
  GraphBuilder b(g);
  auto x = b.param("x", 0, f32({N}));
  auto w = b.param("w", 1, f32({N}));
  ValueRef e, t;
  if (!reversed) {
    e = b.op("exp", {x}, f32({N}));
    t = b.op("tanh", {w}, f32({N}));
  } else {
    t = b.op("tanh", {w}, f32({N}));
    e = b.op("exp", {x}, f32({N}));
  }
  auto m = b.op("mul", {e, t}, f32({N}));
  if (!reversed) {
    b.export_region("first", {x, w}, {m});
    b.export_region("second", {x}, {e});
  } else {
    b.export_region("second", {x}, {e});
    b.export_region("first", {x, w}, {m});
  }
  return g;
}

TEST(Fingerprint, EqualForStructurallyEqualGraphsBuiltInDifferentOrders) {
  Graph a = build_ordered(false), b = build_ordered(true);
  EXPECT_NE(a.node(2).hash, b.node(2).hash);  // different storage order...
  EXPECT_EQ(a.fingerprint(), b.fingerprint());  // ...same computation
}

TEST(Fingerprint, ChangesWithAnyPartOfTheComputation) {
  Graph a = build_ordered(false);
  Graph b = build_ordered(false);
  GraphBuilder gb(b);
  gb.export_region("third", {ValueRef{0, 0}}, {ValueRef{2, 0}});
  EXPECT_NE(a.fingerprint(), b.fingerprint());
  // Renaming an export changes it; unreachable extra nodes do not.
  Graph c = build_ordered(false);
  GraphBuilder(c).op("neg", {ValueRef{0, 0}}, f32({N}));
  EXPECT_EQ(a.fingerprint(), c.fingerprint());
}

// The golden fingerprint: any change to the canonical encoding, the domain prefixes or
// SHA3 usage changes it. If you changed the encoding on purpose, bump kSchemaVersion or
// the .keg version, document the change, and update this value.
TEST(Fingerprint, GoldenValueForTheSampleMlp) {
  Graph g = sample_mlp();
  DiagnosticSink d;
  ASSERT_TRUE(validate(g, d));
  EXPECT_EQ(g.fingerprint().hex(), "c1d3c8d1a577f86621df12fc3966590cf86615f9af3e2ddbd302505a6ad45688");
}

TEST(Calls, ReachableRegionsFollowCallNodes) {
  Graph g = sample_mlp();
  EXPECT_EQ(g.reachable_regions().size(), 2u);
  std::string text = print_regions(g);
  EXPECT_NE(text.find("region @forward("), std::string::npos);
  EXPECT_NE(text.find("call"), std::string::npos);
  EXPECT_NE(text.find("argmax"), std::string::npos);
}

}  // namespace rung
