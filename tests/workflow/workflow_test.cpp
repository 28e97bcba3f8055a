#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "ir/block/verify.h"
#include "runtime/interpreter.h"
#include "support/reference_compute.h"
#include "workflow/workflow.h"

namespace rung {
namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::optional<block::Program> lower(const std::string& text, DiagnosticSink& d, SourceMap& sm) {
  SourceId id = sm.add("flow.json", text);
  return workflow::lower(id, sm, d);
}

std::vector<std::string> codes(const std::string& text) {
  SourceMap sm;
  DiagnosticSink d;
  EXPECT_FALSE(lower(text, d, sm)) << text;
  std::vector<std::string> c;
  for (const auto& x : d.all()) c.push_back(x.code);
  return c;
}

// A small valid document with one placeholder to break: {{NODES}}, {{EDGES}}, ...
std::string doc(std::string nodes, std::string edges, std::string outputs = R"([{"name": "y", "from": "s"}])",
                std::string head = R"("tier": "debug",)") {
  return R"({"format": "rung-workflow", "version": 1, "name": "f", )" + head +
         R"( "inputs": [{"name": "a", "type": "f32[N, 3]"}, {"name": "b", "type": "f32[3]"}],
            "nodes": )" + nodes + R"(, "edges": )" + edges + R"(, "outputs": )" + outputs + "}";
}
const std::string kNodes = R"([{"id": "s", "op": "add"}])";
const std::string kEdges = R"([{"from": "a", "to": "s.a"}, {"from": "b", "to": "s.b"}])";

}  // namespace

TEST(Workflow, TheExampleLowersVerifiesAndRuns) {
  SourceMap sm;
  DiagnosticSink d;
  auto p = lower(read(std::string(RUNG_SOURCE_DIR) + "/examples/center.workflow.json"), d, sm);
  ASSERT_TRUE(p) << (d.empty() ? "" : d.all()[0].message);
  EXPECT_TRUE(block::verify(*p, d));
  EXPECT_EQ(p->determinism.tier, "debug");
  float x[16], w[32];
  for (int i = 0; i < 16; ++i) x[i] = static_cast<float>(i);
  for (int i = 0; i < 32; ++i) w[i] = i % 2 ? 1.0f : 0.0f;
  std::vector<ops::HostTensor> args = {ops::HostTensor::from_f32({2, 8}, x), ops::HostTensor::from_f32({8, 4}, w)};
  test_support::ReferenceCompute ref;
  runtime::ExecOptions o = ref.options();
  auto out = runtime::execute(*p, "center_and_project", args, sm, d, o);
  ASSERT_TRUE(out) << (d.empty() ? "" : d.all()[0].message);
  // Rows 0..7 and 8..15 centre to -4 and +4 in every column; w's odd columns are all ones,
  // so y[r][odd] sums eight centred values and y[r][even] is 0.
  EXPECT_EQ((*out)[0].load_f32(0), 0.0f);
  EXPECT_EQ((*out)[0].load_f32(1), -32.0f);
  EXPECT_EQ((*out)[0].load_f32(5), 32.0f);
  EXPECT_EQ((*out)[1].shape(), (ops::Extents{1, 8}));
}

TEST(Workflow, SameDocumentSameFingerprint) {
  SourceMap sm;
  DiagnosticSink d;
  auto a = lower(doc(kNodes, kEdges), d, sm);
  // Edges listed in another order: the same computation.
  auto b = lower(doc(kNodes, R"([{"from": "b", "to": "s.b"}, {"from": "a", "to": "s.a"}])"), d, sm);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->graph.fingerprint(), b->graph.fingerprint());
}

TEST(Workflow, EachProblemHasItsCode) {
  EXPECT_EQ(codes("{ not json"), std::vector<std::string>{"W0001"});
  EXPECT_EQ(codes(R"({"format": "rung-workflow", "version": 1})"), std::vector<std::string>{"W0002"});
  EXPECT_EQ(codes(doc(kNodes, kEdges, R"([{"name": "y", "from": "s"}])", "")), std::vector<std::string>{"W0009"});
  EXPECT_EQ(codes(doc(R"([{"id": "s", "op": "addd"}])", kEdges)), std::vector<std::string>{"W0003"});
  EXPECT_EQ(codes(doc(kNodes, R"([{"from": "zz", "to": "s.a"}, {"from": "b", "to": "s.b"}])")), std::vector<std::string>{"W0004"});
  EXPECT_EQ(codes(doc(kNodes, R"([{"from": "a", "to": "s.q"}, {"from": "b", "to": "s.b"}])")), std::vector<std::string>{"W0004"});
  EXPECT_EQ(codes(doc(R"([{"id": "s", "op": "add"}, {"id": "t", "op": "neg"}])",
                      R"([{"from": "t", "to": "s.a"}, {"from": "s", "to": "t.x"}, {"from": "b", "to": "s.b"}])")),
            std::vector<std::string>{"W0005"});
  EXPECT_EQ(codes(doc(kNodes, R"([{"from": "a", "to": "s.a"}])")), std::vector<std::string>{"W0007"});
  EXPECT_EQ(codes(doc(kNodes, R"([{"from": "a", "to": "s.a"}, {"from": "a", "to": "s.a"}, {"from": "b", "to": "s.b"}])")),
            std::vector<std::string>{"W0007"});
  EXPECT_EQ(codes(doc(R"([{"id": "s", "op": "add"}, {"id": "s", "op": "add"}])", kEdges)), std::vector<std::string>{"W0008"});
  EXPECT_EQ(codes(doc(R"([{"id": "s", "op": "matmul"}])", R"([{"from": "a", "to": "s.a"}, {"from": "a", "to": "s.b"}])")),
            std::vector<std::string>{"W0006"});
  EXPECT_EQ(codes(doc(R"([{"id": "s", "op": "sum", "attrs": {"axes": "x"}}])", R"([{"from": "a", "to": "s.x"}])")),
            std::vector<std::string>{"W0006"});
}

// An integer attribute is an i64: 2^63 is refused as not fitting, never wrapped to -2^63.
TEST(Workflow, IntegerAttributeAbove64BitsSignedIsRefused) {
  for (const char* attrs : {R"({"axes": [9223372036854775808]})", R"({"axes": [18446744073709551615]})"}) {
    SourceMap sm;
    DiagnosticSink d;
    std::string text = doc(std::string(R"([{"id": "s", "op": "sum", "attrs": )") + attrs + "}]", R"([{"from": "a", "to": "s.x"}])");
    EXPECT_FALSE(lower(text, d, sm));
    ASSERT_TRUE(d.contains("W0006")) << text;
    EXPECT_NE(d.all()[0].message.find("attribute \"axes\" must be"), std::string::npos) << d.all()[0].message;
  }
}

TEST(Workflow, TypeMismatchNamesTheNodeAndUnderlinesIt) {
  SourceMap sm;
  DiagnosticSink d;
  std::string text = doc(R"([{"id": "prod", "op": "matmul"}])", R"([{"from": "a", "to": "prod.a"}, {"from": "a", "to": "prod.b"}])",
                         R"([{"name": "y", "from": "prod"}])");
  EXPECT_FALSE(lower(text, d, sm));
  ASSERT_TRUE(d.contains("W0006"));
  EXPECT_NE(d.all()[0].message.find("\"prod\""), std::string::npos);
  ASSERT_FALSE(d.all()[0].labels.empty());
  EXPECT_EQ(text.substr(d.all()[0].labels[0].span.begin, 6), "\"prod\"");
}

}  // namespace rung
