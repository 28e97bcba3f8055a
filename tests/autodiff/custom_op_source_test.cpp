// Custom ops declared in rung source: `/// @grad NAME` on a function makes it an op with a
// user-written gradient, used by value_and_grad and gradchecked before use in tiers debug
// and prod (E2410), not in tier fast.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "backends/reference/reference_backend.h"
#include "frontend/frontend.h"

namespace rung {
namespace {

std::string program(const std::string& tier, const std::string& grad_body) {
  return "module softplus_demo;\ntier " + tier + ";\n\n"
         "/// softplus(x) = log(1 + e^x), with its gradient written by hand.\n"
         "/// @grad softplus_grad\n"
         "fn softplus(x: f32[N]) -> f32[N] {\n    log(1.0 + exp(x))\n}\n\n"
         "fn softplus_grad(x: f32[N], g: f32[N]) -> f32[N] {\n    " + grad_body + "\n}\n\n"
         "fn loss(x: f32[4]) -> f32 {\n    sum(softplus(x * 1.0) * x)\n}\n\n"
         "fn step(x: f32[4]) -> f32[4] {\n    let (l, g) = value_and_grad(loss)(x);\n    g\n}\n";
}

std::optional<block::Program> compile(const std::string& text, DiagnosticSink& d) {
  auto path = std::filesystem::temp_directory_path() / ("rung_custom_op_" + std::to_string(::getpid()) + ".rung");
  std::ofstream(path) << text;
  SourceMap sources;
  auto p = frontend::compile_file(path.string(), sources, d);
  std::filesystem::remove(path);
  return p;
}

}  // namespace

TEST(CustomOpSource, ValueAndGradUsesTheDeclaredGradient) {
  DiagnosticSink d;
  auto p = compile(program("debug", "g * sigmoid(x)"), d);
  ASSERT_TRUE(p) << (d.empty() ? "" : d.all()[0].message);
  std::size_t custom_calls = 0;
  for (const auto& n : p->graph.nodes()) custom_calls += n.opcode == "call" && n.attrs.count("custom_grad");
  EXPECT_GE(custom_calls, 1u);
  float xs[4] = {-1.5f, -0.25f, 0.5f, 2.0f};
  std::vector<ops::HostTensor> args = {ops::HostTensor::from_f32({4}, xs)};
  auto out = reference::run_region(p->graph, p->graph.exports().at("step"), args, d);
  ASSERT_TRUE(out) << (d.empty() ? "" : d.all()[0].message);
  for (int i = 0; i < 4; ++i) {
    double x = xs[i], s = 1 / (1 + std::exp(-x));
    EXPECT_NEAR((*out)[0].load_f32(i), s * x + std::log1p(std::exp(x)), 1e-5) << i;  // d/dx softplus(x) x
  }
}

TEST(CustomOpSource, AWrongGradientIsRejectedInDebugAndProdButNotFast) {
  for (const char* tier : {"debug", "prod"}) {
    DiagnosticSink d;
    EXPECT_FALSE(compile(program(tier, "g * exp(x)"), d)) << tier;
    EXPECT_TRUE(d.contains("E2410")) << tier;
  }
  DiagnosticSink d;
  EXPECT_TRUE(compile(program("fast", "g * exp(x)"), d));
}

TEST(CustomOpSource, AMissingOrMisshapenGradientIsADiagnostic) {
  DiagnosticSink d;
  std::string text = program("debug", "g * sigmoid(x)");
  text.replace(text.find("@grad softplus_grad"), 19, "@grad nowhere");
  EXPECT_FALSE(compile(text, d));
  EXPECT_TRUE(d.contains("E2411"));
}

}  // namespace rung

namespace rung {

// grad(f)(args...) is value_and_grad(f)(args...) without the value.
TEST(GradBuiltin, GivesTheGradientAlone) {
  DiagnosticSink d;
  auto p = compile("module g;\ntier debug;\n\nfn loss(x: f32[3]) -> f32 {\n    sum(x * x * 0.5)\n}\n\n"
                   "fn dloss(x: f32[3]) -> f32[3] {\n    grad(loss)(x)\n}\n", d);
  ASSERT_TRUE(p) << (d.empty() ? "" : d.all()[0].message);
  float xs[3] = {1.5f, -2.0f, 0.25f};
  std::vector<ops::HostTensor> args = {ops::HostTensor::from_f32({3}, xs)};
  auto out = reference::run_region(p->graph, p->graph.exports().at("dloss"), args, d);
  ASSERT_TRUE(out);
  ASSERT_EQ(out->size(), 1u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ((*out)[0].load_f32(i), xs[i]);
}

}  // namespace rung
