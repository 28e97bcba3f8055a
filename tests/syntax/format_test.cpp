// The formatter's canonical layout, comment handling, refusal, and the examples.
#include "syntax/format.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "syntax/dump.h"

namespace rung::syntax {
namespace {

std::string fmt(std::string_view src, FormatOptions options = {}) {
  std::vector<Diagnostic> diags;
  std::optional<std::string> out = format_source(src, 0, diags, options);
  EXPECT_TRUE(out.has_value()) << dump_diagnostics(diags);
  if (!out) return "<refused>";
  // Every result must also be a fixed point.
  std::vector<Diagnostic> again_diags;
  std::optional<std::string> again = format_source(*out, 0, again_diags, options);
  EXPECT_TRUE(again.has_value());
  if (again) {
    EXPECT_EQ(*again, *out) << "not idempotent";
  }
  return *out;
}

TEST(Format, CanonicalSpacing) {
  EXPECT_EQ(fmt("module   m ;tier prod;fn f(x:f32,y:&mut T,z:f32[B,4]@device)->f32!{rand,io}{let mut a=x*2+y;a}"),
            "module m;\n"
            "tier prod;\n"
            "\n"
            "fn f(x: f32, y: &mut T, z: f32[B, 4] @device) -> f32 !{rand, io} {\n"
            "    let mut a = x * 2 + y;\n"
            "    a\n"
            "}\n");
}

TEST(Format, ExpressionForms) {
  EXPECT_EQ(fmt("fn f(){let r=0..n;let s=x[1:,::2,i];let t=(1,);let u=(1,2,);let v=[[1,2],[3,4]];"
                "let w=P{a,b:-1};let q=adam(&p,lr:1e-3);let z=!a&&b||c!=d;let e=if a{1}else if b{2}else{3};"
                "x.y.0.m(1)[2]; return}"),
            "fn f() {\n"
            "    let r = 0..n;\n"
            "    let s = x[1:, ::2, i];\n"
            "    let t = (1,);\n"
            "    let u = (1, 2);\n"
            "    let v = [[1, 2], [3, 4]];\n"
            "    let w = P { a, b: -1 };\n"
            "    let q = adam(&p, lr: 1e-3);\n"
            "    let z = !a && b || c != d;\n"
            "    let e = if a { 1 } else if b { 2 } else { 3 };\n"
            "    x.y.0.m(1)[2];\n"
            "    return\n"
            "}\n");
}

TEST(Format, ControlFlowStatementsAreBroken) {
  EXPECT_EQ(fmt("fn f(){if a{b();}else{c()} for i in 0..3{x+=i;} while go(){} {inner();}}"),
            "fn f() {\n"
            "    if a {\n"
            "        b();\n"
            "    } else {\n"
            "        c()\n"
            "    }\n"
            "    for i in 0..3 {\n"
            "        x += i;\n"
            "    }\n"
            "    while go() {}\n"
            "    {\n"
            "        inner();\n"
            "    }\n"
            "}\n");
}

TEST(Format, LongListsBreakOnePerLineWithTrailingComma) {
  EXPECT_EQ(fmt("fn f() { let result = some_function(first_argument_value, second_argument_value, "
                "third_argument_value_that_is_long); }"),
            "fn f() {\n"
            "    let result = some_function(\n"
            "        first_argument_value,\n"
            "        second_argument_value,\n"
            "        third_argument_value_that_is_long,\n"
            "    );\n"
            "}\n");
  EXPECT_EQ(fmt("fn f(first: f32[B, 784], second: f32[B, 784], third: f32[B, 784]) -> f32 {}", {.width = 60}),
            "fn f(\n"
            "    first: f32[B, 784],\n"
            "    second: f32[B, 784],\n"
            "    third: f32[B, 784],\n"
            ") -> f32 {}\n");
}

TEST(Format, LongOperatorChainsBreakBeforeOperators) {
  EXPECT_EQ(fmt("fn f() { let total = alpha_value_one * beta + gamma_value_two * delta + epsilon_value_three * zeta; }",
                {.width = 60}),
            "fn f() {\n"
            "    let total = alpha_value_one * beta\n"
            "        + gamma_value_two * delta\n"
            "        + epsilon_value_three * zeta;\n"
            "}\n");
}

TEST(Format, CommentsStayWithTheirTokens) {
  const char* src =
      "// header\n"
      "\n"
      "\n"
      "/// doc\n"
      "fn f() { // after the brace\n"
      "    // before a\n"
      "    let a = 1;   // after a\n"
      "\n"
      "\n"
      "    /* block */ let b = 2;\n"
      "    call(x, // after x\n"
      "         y);\n"
      "    // before the closing brace\n"
      "}\n"
      "// at the end\n";
  EXPECT_EQ(fmt(src),
            "// header\n"
            "\n"
            "/// doc\n"
            "fn f() { // after the brace\n"
            "    // before a\n"
            "    let a = 1; // after a\n"
            "\n"
            "    /* block */ let b = 2;\n"
            "    call(\n"
            "        x, // after x\n"
            "        y,\n"
            "    );\n"
            "    // before the closing brace\n"
            "}\n"
            "// at the end\n");
}

TEST(Format, CommentsInOddPlacesAreKept) {
  // Wherever a comment sits, it comes out again (the self-check enforces this) and a
  // second pass changes nothing (fmt() checks that).
  for (const char* src : {"fn f() { foo // c\n (x) }", "fn f() { let x =\n // c\n a + b; }",
                          "fn f(/* none */) {}", "fn f() { g(a /* x */) }", "struct S { // c\n}",
                          "fn f() {} /* end */", "/* only a comment */", "fn f() { a; /* a */ /* b */\n b }",
                          "fn f() { ; // stray\n }", "import a.{ // c\n b};"}) {
    SCOPED_TRACE(src);
    std::string out = fmt(src);
    EXPECT_NE(out, "<refused>");
  }
}

TEST(Format, SeparatesTokensThatWouldFuse) {
  EXPECT_EQ(fmt("fn f(a: & &T, b: & &mut T) { & &x; 1 .0; - -x; }"),
            "fn f(a: & &T, b: & &mut T) {\n"
            "    & &x;\n"
            "    1 .0;\n"
            "    --x;\n"
            "}\n");
}

TEST(Format, EmptyThingsAndBlankLines) {
  EXPECT_EQ(fmt(""), "");
  EXPECT_EQ(fmt("\n\n  \n"), "");
  EXPECT_EQ(fmt("struct E {}\nstruct F { }"), "struct E {}\n\nstruct F {}\n");
  EXPECT_EQ(fmt("import a;\n\n\n\nimport b;\nimport c;"), "import a;\n\nimport b;\nimport c;\n");
  EXPECT_EQ(fmt("fn f() {\n\n\n    a();\n\n\n\n    b();\n\n}"), "fn f() {\n    a();\n\n    b();\n}\n");
}

TEST(Format, RefusesFilesWithSyntaxErrors) {
  std::vector<Diagnostic> diags;
  std::optional<std::string> out = format_source("fn f() { let x = ; }", 3, diags);
  EXPECT_FALSE(out.has_value());
  ASSERT_EQ(diags.size(), 2u);
  EXPECT_EQ(diags[0].code, "E1103");
  EXPECT_EQ(diags[1].code, "E1900");
  EXPECT_NE(diags[1].message.find("1 syntax error"), std::string::npos);
  EXPECT_EQ(diags[1].primary_label()->span.source, 3u);
}

TEST(Format, EveryExampleIsFormatted) {
  namespace fs = std::filesystem;
  int seen = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(RUNG_SOURCE_DIR) / "examples")) {
    if (entry.path().extension() != ".rung") continue;
    ++seen;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    SCOPED_TRACE(entry.path().string());
    EXPECT_EQ(fmt(ss.str()), ss.str());
  }
  EXPECT_GE(seen, 3);
}

}  // namespace
}  // namespace rung::syntax
