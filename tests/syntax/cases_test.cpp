// The syntax case runner. Each file in tests/syntax/cases holds small programs separated by
// `// -----` lines (the text before the first separator is a description). In a case,
//   //~ E1101 @12..13              the diagnostics it must give, in order: code and byte
//   //~ E1101 @12..13 "text"       span (offsets into the case without its //~ lines), and
//                                  optionally a fragment of the message
// A case without //~ lines must parse cleanly. Every case must also print back to its exact
// text, and a clean case must format idempotently. The tree dumps of all cases of `x.rung`
// are compared with `x.tree`; RUNG_REGENERATE=1 rewrites those golden files.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "syntax/dump.h"
#include "syntax/format.h"
#include "syntax/parse.h"

namespace rung::syntax {
namespace {

namespace fs = std::filesystem;

struct Expect {
  std::string code;
  std::uint32_t begin = 0, end = 0;
  std::string fragment;
};

struct Case {
  int line = 0;  // of its separator in the file
  std::string text;
  std::vector<Expect> expects;
};

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool parse_expect(const std::string& line, Expect& e) {
  // //~ CODE @B..E ["fragment"]
  std::istringstream in(line.substr(3));
  std::string span;
  if (!(in >> e.code >> span) || span.size() < 4 || span[0] != '@') return false;
  std::size_t dots = span.find("..");
  if (dots == std::string::npos) return false;
  e.begin = static_cast<std::uint32_t>(std::stoul(span.substr(1, dots - 1)));
  e.end = static_cast<std::uint32_t>(std::stoul(span.substr(dots + 2)));
  std::string rest;
  std::getline(in, rest);
  std::size_t q1 = rest.find('"'), q2 = rest.rfind('"');
  if (q1 != std::string::npos && q2 > q1) e.fragment = rest.substr(q1 + 1, q2 - q1 - 1);
  return true;
}

std::vector<Case> split_cases(const std::string& file_text, std::string& error) {
  std::vector<Case> cases;
  std::istringstream in(file_text);
  std::string line;
  int n = 0;
  Case* cur = nullptr;
  while (std::getline(in, line)) {
    ++n;
    bool had_newline = !in.eof();
    if (line == "// -----") {
      cases.push_back(Case{n, {}, {}});
      cur = &cases.back();
      continue;
    }
    if (!cur) continue;  // the description
    if (line.rfind("//~", 0) == 0) {
      Expect e;
      if (!parse_expect(line, e)) error += "line " + std::to_string(n) + ": malformed expectation: " + line + "\n";
      cur->expects.push_back(e);
      continue;
    }
    cur->text += line;
    if (had_newline) cur->text += '\n';
  }
  return cases;
}

std::string describe(const Diagnostic& d, std::string_view text) {
  const Label* l = d.primary_label();
  std::uint32_t b = l ? l->span.begin : 0, e = l ? l->span.end : 0;
  SourceFile f("case", std::string(text), false);
  LineCol lc = f.line_col(b);
  return "//~ " + d.code + " @" + std::to_string(b) + ".." + std::to_string(e) + "   (line " +
         std::to_string(lc.line) + ", column " + std::to_string(lc.column) + ": " + d.message + ")";
}

std::vector<fs::path> case_files() {
  std::vector<fs::path> out;
  for (const auto& entry : fs::directory_iterator(fs::path(RUNG_SOURCE_DIR) / "tests/syntax/cases"))
    if (entry.path().extension() == ".rung") out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

void check_case(const Case& c, const std::string& where) {
  SCOPED_TRACE(where);
  Parse p = parse(c.text, 0);
  // Lossless: the tree prints back the case byte for byte.
  EXPECT_EQ(p.tree.text(), c.text);

  std::string actual;
  for (const Diagnostic& d : p.diagnostics) actual += describe(d, c.text) + "\n";
  bool same = p.diagnostics.size() == c.expects.size();
  for (std::size_t i = 0; same && i < c.expects.size(); ++i) {
    const Diagnostic& d = p.diagnostics[i];
    const Expect& e = c.expects[i];
    same = d.code == e.code && d.primary_label()->span.begin == e.begin && d.primary_label()->span.end == e.end &&
           d.message.find(e.fragment) != std::string::npos;
  }
  EXPECT_TRUE(same) << "diagnostics differ; actual:\n" << (actual.empty() ? "(none)\n" : actual);

  std::vector<Diagnostic> fmt_diags;
  std::optional<std::string> once = format_source(c.text, 0, fmt_diags);
  if (c.expects.empty()) {
    ASSERT_TRUE(once.has_value()) << dump_diagnostics(fmt_diags);
    std::vector<Diagnostic> again_diags;
    std::optional<std::string> twice = format_source(*once, 0, again_diags);
    ASSERT_TRUE(twice.has_value()) << dump_diagnostics(again_diags);
    EXPECT_EQ(*twice, *once) << "formatting is not idempotent; first pass:\n" << *once;
  } else if (p.has_errors()) {
    EXPECT_FALSE(once.has_value());
    EXPECT_EQ(fmt_diags.back().code, "E1900");
  }
}

std::string golden_for(const std::vector<Case>& cases) {
  std::string out;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    Parse p = parse(cases[i].text, 0);
    out += "// ----- case " + std::to_string(i + 1) + " (line " + std::to_string(cases[i].line) + ")\n";
    out += dump_tree(p.tree);
    out += dump_diagnostics(p.diagnostics);
  }
  return out;
}

TEST(SyntaxCases, EveryCaseHoldsItsExpectations) {
  std::size_t total = 0;
  bool regenerate = std::getenv("RUNG_REGENERATE") != nullptr;
  for (const fs::path& file : case_files()) {
    std::string error;
    std::vector<Case> cases = split_cases(read_all(file), error);
    EXPECT_TRUE(error.empty()) << file << ":\n" << error;
    EXPECT_FALSE(cases.empty()) << file << " has no cases";
    for (std::size_t i = 0; i < cases.size(); ++i)
      check_case(cases[i], file.filename().string() + ":" + std::to_string(cases[i].line) + " (case " +
                               std::to_string(i + 1) + ")");
    total += cases.size();

    fs::path golden = file;
    golden.replace_extension(".tree");
    std::string dumps = golden_for(cases);
    if (regenerate) {
      std::ofstream(golden, std::ios::binary) << dumps;
    } else {
      ASSERT_TRUE(fs::exists(golden)) << golden << " is missing; run with RUNG_REGENERATE=1 to create it";
      EXPECT_EQ(read_all(golden), dumps) << golden << " differs; if the change is intended, rerun with RUNG_REGENERATE=1 "
                                            "and review the diff";
    }
  }
  // The issue asks for at least sixty cases; keep the suite from shrinking below that unnoticed.
  EXPECT_GE(total, 60u);
}

}  // namespace
}  // namespace rung::syntax
