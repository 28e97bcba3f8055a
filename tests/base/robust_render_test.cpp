// Diagnostics that must stay bounded and valid whatever the input (issue 17): JSON of
// non-UTF-8 bytes, thousands of errors, lines of tens of kilobytes; and the banded
// edit distance "did you mean" uses.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <random>

#include "base/diagnostic_render.h"
#include "base/text.h"
#include "base/utf8.h"

namespace rung {
namespace {

std::size_t full_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j)
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
  return d[a.size()][b.size()];
}

TEST(EditDistance, BandedAgreesWithTheFullTableUpToTheBound) {
  std::mt19937 rng(17);
  auto word = [&] {
    std::string s(rng() % 9, 'a');
    for (char& c : s) c = static_cast<char>('a' + rng() % 3);
    return s;
  };
  for (int t = 0; t < 5000; ++t) {
    std::string a = word(), b = word();
    std::size_t full = full_distance(a, b);
    EXPECT_EQ(edit_distance(a, b), full) << a << " " << b;
    for (std::size_t bound : {0u, 1u, 2u, 3u})
      EXPECT_EQ(edit_distance(a, b, bound), std::min(full, bound + 1)) << a << " " << b << " bound " << bound;
  }
}

TEST(EditDistance, TwoLongNamesAreQuickWithABound) {
  std::string a(65536, 'b'), b(65536, 'c');
  b.back() = 'd';
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(edit_distance(a, b, 3), 4u);
  EXPECT_EQ(edit_distance(a, a + "xy", 3), 2u);
  EXPECT_EQ(edit_distance(a, a + "xyzzy", 3), 4u);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 0.5);
}

TEST(Utf8, ScrubReplacesEachInvalidByteAndKeepsValidText) {
  EXPECT_EQ(utf8::scrub("abc \xC3\xBC"), "abc \xC3\xBC");
  EXPECT_EQ(utf8::scrub("a\xFF" "b"), "a\xEF\xBF\xBD" "b");
  EXPECT_EQ(utf8::scrub("\xC3"), "\xEF\xBF\xBD");               // a truncated sequence
  EXPECT_EQ(utf8::scrub("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  EXPECT_TRUE(utf8::is_valid(utf8::scrub(std::string("\x80\xFE\xFF\xC0\xAF", 5))));
}

TEST(RenderJson, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  SourceMap sm;
  SourceId id = sm.add("\xFF.rung", "let x = 1;\n");
  DiagnosticSink diags;
  diags.error("C0014", "no parameter `\xFF\xFE`").primary(Span{id, 4, 5}, "label \xC3").note("note \x80");
  std::string text = to_json(diags, sm).dump();  // throws type_error 316 on invalid UTF-8
  auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j[0]["message"], "no parameter `\xEF\xBF\xBD\xEF\xBF\xBD`");
  EXPECT_EQ(j[0]["labels"][0]["span"]["file"], "\xEF\xBF\xBD.rung");
  EXPECT_EQ(j[0]["notes"][0], "note \xEF\xBF\xBD");
}

TEST(RenderCap, AtMostAHundredErrorsThenOneNote) {
  SourceMap sm;
  SourceId id = sm.add("m.rung", "x\n");
  DiagnosticSink diags;
  for (int i = 0; i < 5000; ++i) diags.error("E1103", "error " + std::to_string(i)).primary(Span{id, 0, 1});
  diags.warning("E2303", "a warning");
  std::string text = render_text(diags, sm);
  EXPECT_NE(text.find("error 99\n"), std::string::npos);
  EXPECT_EQ(text.find("error 100\n"), std::string::npos);
  EXPECT_NE(text.find("note[C0099]: 4900 more errors and 1 more warnings and notes not shown"), std::string::npos) << text.substr(text.size() - 300);
  auto j = to_json(diags, sm);
  ASSERT_EQ(j.size(), kMaxErrorsShown + 1);
  EXPECT_EQ(j.back()["code"], "C0099");
  DiagnosticSink few;
  few.error("E1103", "only one").primary(Span{id, 0, 1});
  EXPECT_EQ(render_text(few, sm).find("C0099"), std::string::npos);
}

TEST(RenderWindow, ALongLineIsShownAroundItsSpan) {
  std::string line = std::string(30000, 'a') + "BAD" + std::string(30000, 'b');
  SourceMap sm;
  SourceId id = sm.add("m.rung", line + "\n");
  DiagnosticSink diags;
  diags.error("E2001", "unknown name").primary(Span{id, 30000, 30003}, "here");
  std::string text = render_text(diags, sm);
  EXPECT_LT(text.size(), 600u) << text.size();
  std::string shown = "\xE2\x80\xA6" + std::string(40, 'a') + "BAD" + std::string(77, 'b') + "\xE2\x80\xA6";
  EXPECT_NE(text.find("1 | " + shown + "\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  | " + std::string(41, ' ') + "^^^ here\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace rung
