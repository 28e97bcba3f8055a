#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "base/diagnostic_render.h"

namespace rung {

TEST(SourceFile, LineAndColumnCountScalarValues) {
  SourceFile f("a.rung", "ab\n\xC3\xBC" "x\n", false);
  EXPECT_EQ(f.line_col(0).line, 1u);
  EXPECT_EQ(f.line_col(3).line, 2u);
  EXPECT_EQ(f.line_col(5).column, 2u);  // after the two-byte 'ü'
  EXPECT_EQ(f.line_text(2), "\xC3\xBC" "x");
}

TEST(Render, UnderlinesPrimaryAndSecondarySpans) {
  SourceMap sm;
  SourceId id = sm.add("m.rung", "fn f() {\n    let h = x @ w;\n}\n");
  DiagnosticSink diags;
  diags.error("E2101", "inner dimensions differ: 784 vs 128")
      .primary(Span{id, 21, 22}, "f32[B, 784]")
      .secondary(Span{id, 25, 26}, "f32[128, 10]")
      .note("matmul needs the last dim of the left operand to equal the first of the right");
  std::string text = render_text(diags, sm, {.color = false, .tool_prefix = true});
  EXPECT_EQ(text,
            "rung: error[E2101]: inner dimensions differ: 784 vs 128\n"
            " --> m.rung:2:13\n"
            "  |\n"
            "2 |     let h = x @ w;\n"
            "  |             ^ f32[B, 784]\n"
            "  |                 - f32[128, 10]\n"
            "  = note: matmul needs the last dim of the left operand to equal the first of the right\n");
}

TEST(Render, BinarySourcesAreLocatedByByteOffset) {
  SourceMap sm;
  SourceId id = sm.add("g.keg", std::string(100, '\0'), true);
  DiagnosticSink diags;
  diags.error("K0003", "section 'nodes' extends past end of file").primary(Span{id, 56, 70});
  std::string text = render_text(diags, sm, {.color = false, .tool_prefix = true});
  EXPECT_EQ(text, "rung: error[K0003]: section 'nodes' extends past end of file\n --> g.keg @ byte 56 (14 bytes)\n");
}

TEST(Render, JsonCarriesCodeSpanAndLineColumn) {
  SourceMap sm;
  SourceId id = sm.add("m.rung", "x\nyz\n");
  DiagnosticSink diags;
  diags.warning("E2500", "unused").primary(Span{id, 2, 4}, "here");
  auto j = to_json(diags, sm);
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["code"], "E2500");
  EXPECT_EQ(j[0]["severity"], "warning");
  EXPECT_EQ(j[0]["labels"][0]["span"]["line"], 2);
  EXPECT_EQ(j[0]["labels"][0]["span"]["end_column"], 3);
  EXPECT_FALSE(diags.has_errors());
}

}  // namespace rung
