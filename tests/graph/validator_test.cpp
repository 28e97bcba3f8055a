// One test per validator diagnostic: each builds an otherwise valid graph, breaks one
// invariant through the untrusted (adopt) path, and expects exactly that code.
#include <gtest/gtest.h>

#include <functional>

#include "ir/graph/builder.h"
#include "ir/graph/samples.h"
#include "ir/graph/validator.h"

namespace rung {
namespace {

// Copies `src` through adopt_*, letting `mutate` edit nodes / regions on the way.
Graph copy_with(const Graph& src, const std::function<void(std::vector<Node>&, std::vector<Region>&)>& mutate) {
  std::vector<Node> nodes = src.nodes();
  std::vector<Region> regions = src.regions();
  mutate(nodes, regions);
  Graph g;
  for (auto& n : nodes) g.adopt_node(n);
  for (auto& r : regions) g.adopt_region(r);
  for (const auto& [name, r] : src.exports())
    if (r < g.region_count()) g.set_export(name, r);
  return g;
}

std::vector<std::string> codes_of(const Graph& g, const OpSignatures* sig = nullptr) {
  DiagnosticSink d;
  ValidateOptions o;
  o.signatures = sig;
  validate(g, d, o);
  std::vector<std::string> codes;
  for (const auto& x : d.all()) codes.push_back(x.code);
  return codes;
}

NodeId find_op(const Graph& g, std::string_view op) {
  for (NodeId i = 0; i < g.node_count(); ++i)
    if (g.node(i).opcode == op) return i;
  ADD_FAILURE() << "no " << op;
  return 0;
}

// Recompute hashes after a structural mutation so only the intended invariant breaks.
void rehash(std::vector<Node>& nodes, std::vector<Region>& regions) {
  Graph tmp;  // holds nodes[0..i) with their updated hashes
  for (auto& n : nodes) {
    bool inputs_before = std::all_of(n.inputs.begin(), n.inputs.end(),
                                     [&](const ValueRef& v) { return v.node < tmp.node_count(); });
    if (inputs_before) n.hash = tmp.compute_node_hash(n);
    tmp.adopt_node(n);
  }
  for (auto& r : regions) r.hash = tmp.compute_region_hash(r);
}

using Codes = std::vector<std::string>;

// Breaking a callee also breaks its callers (G0012); these helpers ignore that echo.
bool has(const Codes& c, std::string_view code) { return std::find(c.begin(), c.end(), code) != c.end(); }
Codes without_call_echo(Codes c) {
  c.erase(std::remove(c.begin(), c.end(), "G0012"), c.end());
  return c;
}

}  // namespace

TEST(Validator, SampleIsValid) { EXPECT_EQ(codes_of(sample_mlp()), Codes{}); }

TEST(Validator, G0001_StoredHashMustRecompute) {
  Graph g = copy_with(sample_mlp(), [](auto& nodes, auto&) { nodes[6].hash.bytes[0] ^= 1; });
  auto c = codes_of(g);
  ASSERT_FALSE(c.empty());
  EXPECT_EQ(c.front(), "G0001");
}

TEST(Validator, G0002_InputMustExist) {
  Graph g = copy_with(sample_mlp(), [](auto& nodes, auto&) { nodes[6].inputs[0].node = 999; });
  EXPECT_EQ(codes_of(g).front(), "G0002");
}

TEST(Validator, G0003_InputMustPrecedeItsUser) {
  Graph src = sample_mlp();
  NodeId relu = find_op(src, "relu");
  Graph g = copy_with(src, [&](auto& nodes, auto& regions) {
    nodes[relu].inputs[0].node = relu;  // a self-loop
    rehash(nodes, regions);
  });
  auto c = codes_of(g);
  EXPECT_NE(std::find(c.begin(), c.end(), "G0003"), c.end());
}

TEST(Validator, G0004_OutputIndexMustExist) {
  Graph src = sample_mlp();
  NodeId relu = find_op(src, "relu");
  Graph g = copy_with(src, [&](auto& nodes, auto&) { nodes[relu].inputs[0].output = 3; });
  EXPECT_EQ(codes_of(g).front(), "G0004");
}

TEST(Validator, G0005_NoDuplicateNodes) {
  Graph src = sample_mlp();
  Graph g = copy_with(src, [](auto& nodes, auto&) { nodes.push_back(nodes[1]); });
  EXPECT_EQ(codes_of(g), Codes{"G0005"});
}

TEST(Validator, G0006_SchemaVersion) {
  Graph g = copy_with(sample_mlp(), [](auto& nodes, auto& regions) {
    nodes[0].schema = 99;
    rehash(nodes, regions);
  });
  EXPECT_EQ(without_call_echo(codes_of(g)), Codes{"G0006"});
}

TEST(Validator, G0007_QuantizedTypesFillWholeBlocks) {
  Graph g;
  GraphBuilder b(g);
  auto x = b.param("x", 0, tensor(DType::q8_0, {Dim::fixed(33)}));
  b.export_region("f", {x}, {x});
  EXPECT_EQ(codes_of(g), Codes{"G0007"});
}

TEST(Validator, G0010_ParamShape) {
  Graph g = copy_with(sample_mlp(), [](auto& nodes, auto& regions) {
    nodes[0].attrs.erase("name");
    rehash(nodes, regions);
  });
  EXPECT_EQ(without_call_echo(codes_of(g)), Codes{"G0010"});
}

TEST(Validator, G0011_ConstBytesMatchType) {
  Graph g;
  GraphBuilder b(g);
  float v[2] = {1, 2};
  auto c = b.constant_f32({Dim::fixed(2)}, v);
  b.export_region("k", {}, {c});
  Graph bad = copy_with(g, [](auto& nodes, auto& regions) {
    nodes[0].attrs.at("value") = AttrValue(Bytes{1, 2, 3});
    rehash(nodes, regions);
  });
  EXPECT_EQ(codes_of(g), Codes{});
  EXPECT_EQ(codes_of(bad), Codes{"G0011"});
}

TEST(Validator, G0012_CallArgumentTypesMatchCallee) {
  Graph src = sample_mlp();
  NodeId call = find_op(src, "call");
  Graph g = copy_with(src, [&](auto& nodes, auto& regions) {
    std::swap(nodes[call].inputs[1], nodes[call].inputs[2]);  // w1 <-> b1
    rehash(nodes, regions);
  });
  auto c = codes_of(g);
  EXPECT_EQ(std::count(c.begin(), c.end(), "G0012"), 2);  // both swapped arguments
}

struct TinySignatures : OpSignatures {
  bool check(const Graph& g, NodeId id, DiagnosticSink& d) const override {
    const Node& n = g.node(id);
    if (n.opcode != "relu" && n.opcode != "add" && n.opcode != "matmul" && n.opcode != "argmax") return false;
    if (n.opcode == "relu") {
      const auto& in = g.node(n.inputs[0].node).outputs[n.inputs[0].output];
      if (in.type_id() != n.outputs[0].type_id()) d.error("G0013", "relu keeps its input type");
    }
    return true;
  }
};

TEST(Validator, G0013_G0014_SignatureHook) {
  TinySignatures sig;
  EXPECT_EQ(codes_of(sample_mlp(), &sig), Codes{});
  Graph src = sample_mlp();
  NodeId relu = find_op(src, "relu");
  Graph g = copy_with(src, [&](auto& nodes, auto& regions) {
    nodes[relu].outputs[0].dtype = DType::f64;
    nodes[0].opcode = "mystery";
    rehash(nodes, regions);
  });
  auto c = codes_of(g, &sig);
  EXPECT_NE(std::find(c.begin(), c.end(), "G0013"), c.end());
  EXPECT_NE(std::find(c.begin(), c.end(), "G0014"), c.end());
}

TEST(Validator, G0020_RegionHashMustRecompute) {
  Graph g = copy_with(sample_mlp(), [](auto&, auto& regions) { regions[0].name = "renamed"; });
  auto c = codes_of(g);
  EXPECT_NE(std::find(c.begin(), c.end(), "G0020"), c.end());
}

TEST(Validator, G0021_G0022_G0026_RegionParameters) {
  Graph src = sample_mlp();
  NodeId relu = find_op(src, "relu");
  Graph g1 = copy_with(src, [&](auto&, auto& regions) { regions[0].params[0] = relu; });
  EXPECT_TRUE(has(codes_of(g1), "G0021"));
  Graph g2 = copy_with(src, [&](auto& nodes, auto& regions) {
    std::swap(regions[0].params[0], regions[0].params[1]);
    rehash(nodes, regions);
  });
  auto c2 = codes_of(g2);
  EXPECT_EQ(std::count(c2.begin(), c2.end(), "G0022"), 2);
  Graph g3 = copy_with(src, [&](auto& nodes, auto& regions) {
    regions[0].params.push_back(regions[0].params[0]);
    rehash(nodes, regions);
  });
  auto c3 = codes_of(g3);
  EXPECT_NE(std::find(c3.begin(), c3.end(), "G0026"), c3.end());
}

TEST(Validator, G0023_ResultsMustExist) {
  Graph g = copy_with(sample_mlp(), [](auto&, auto& regions) { regions[0].results[0].node = 12345; });
  EXPECT_EQ(codes_of(g), Codes{"G0023"});
}

TEST(Validator, G0024_RegionReachesOnlyItsOwnParams) {
  Graph src = sample_mlp();
  Graph g = copy_with(src, [&](auto& nodes, auto& regions) {
    regions[0].params.pop_back();  // drop b2, still used by forward's last add
    rehash(nodes, regions);
  });
  auto c = codes_of(g);
  EXPECT_NE(std::find(c.begin(), c.end(), "G0024"), c.end());
}

TEST(Validator, G0025_NoDuplicateRegions) {
  Graph g = copy_with(sample_mlp(), [](auto&, auto& regions) { regions.push_back(regions[0]); });
  EXPECT_EQ(codes_of(g), Codes{"G0025"});
}

TEST(Validator, ReportsEveryViolationNotJustTheFirst) {
  Graph g = copy_with(sample_mlp(), [](auto& nodes, auto&) {
    nodes[5].hash.bytes[1] ^= 1;
    nodes[7].hash.bytes[1] ^= 1;
  });
  auto c = codes_of(g);
  EXPECT_GE(std::count(c.begin(), c.end(), "G0001"), 2);
}

}  // namespace rung
