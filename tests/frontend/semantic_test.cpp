// The semantic suite: every file in cases/ holds small .rung programs separated by lines
// `// -----`; each program states what the front end must report:
//   // expect: E2102 `x @ w` `w`     a diagnostic with this code whose labels underline
//                                   exactly these texts (primary first), in report order
//   // expect: ok                    no diagnostics at all
// A program without `tier` or `module` gets `module t; tier debug;` in front. Imports
// resolve from cases/ (the modules they load live in cases/lib/).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "frontend/frontend.h"
#include "syntax/parse.h"

namespace {

struct Expect {
  std::string code;
  std::vector<std::string> spans;
};
struct Case {
  std::string file;
  int line = 0;
  std::string text;
  std::vector<Expect> expects;
  bool ok = false;
};

std::vector<Case> load_cases() {
  std::vector<Case> out;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(RUNG_CASES_DIR))
    if (e.path().extension() == ".rung") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f);
    std::string line;
    int n = 0;
    Case cur{f.filename().string(), 1};
    auto flush = [&] {
      if (cur.text.find_first_not_of(" \n\t") != std::string::npos) out.push_back(cur);
      cur = Case{f.filename().string(), n + 1};
    };
    while (std::getline(in, line)) {
      ++n;
      if (line.rfind("// -----", 0) == 0) {
        flush();
        continue;
      }
      if (auto at = line.find("// expect: "); at != std::string::npos) {
        std::string rest = line.substr(at + 11);
        if (rest.rfind("ok", 0) == 0) {
          cur.ok = true;
        } else {
          Expect e;
          e.code = rest.substr(0, rest.find(' '));
          for (std::size_t p = rest.find('`'); p != std::string::npos;) {
            std::size_t q = rest.find('`', p + 1);
            if (q == std::string::npos) break;
            e.spans.push_back(rest.substr(p + 1, q - p - 1));
            p = rest.find('`', q + 1);
          }
          cur.expects.push_back(e);
        }
        line = line.substr(0, at);
      }
      cur.text += line + "\n";
    }
    flush();
  }
  return out;
}

TEST(FrontendSemantic, Cases) {
  auto cases = load_cases();
  ASSERT_GE(cases.size(), 80u);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file + ":" + std::to_string(c.line));
    std::string text = c.text;
    if (text.find("tier ") == std::string::npos && text.find("module ") == std::string::npos) text = "module t; tier debug;\n" + text;
    rung::SourceMap sources;
    // The case's real path names the source, so that its imports resolve next to it.
    rung::SourceId id = sources.add(std::string(RUNG_CASES_DIR) + "/" + c.file, text);
    rung::DiagnosticSink diags;
    auto tree = rung::syntax::check_syntax(sources, id, diags);
    if (diags.has_errors()) {
      ADD_FAILURE() << "syntax error in the case: " << diags.all()[0].message;
      continue;
    }
    rung::frontend::check(tree, sources, id, diags);
    std::string got;
    for (const auto& d : diags.all()) got += d.code + " " + d.message + "\n";
    if (c.ok) {
      EXPECT_TRUE(diags.empty()) << got;
      continue;
    }
    ASSERT_FALSE(c.expects.empty()) << "a case needs `// expect:`";
    if (diags.all().size() != c.expects.size()) {
      ADD_FAILURE() << "expected " << c.expects.size() << " diagnostics, got:\n" << got;
      continue;
    }
    for (std::size_t i = 0; i < c.expects.size(); ++i) {
      const auto& d = diags.all()[i];
      EXPECT_EQ(d.code, c.expects[i].code) << got;
      if (d.labels.size() < c.expects[i].spans.size()) {
        ADD_FAILURE() << d.code << " has " << d.labels.size() << " labels: " << got;
        continue;
      }
      for (std::size_t k = 0; k < c.expects[i].spans.size(); ++k) {
        const auto& sp = d.labels[k].span;
        std::string under(sources.get(sp.source).text().substr(sp.begin, sp.end - sp.begin));  // imported files too
        EXPECT_EQ(under, c.expects[i].spans[k]) << "label " << k << " of " << d.code << ": " << d.message;
      }
    }
  }
}

// Lowered programs run: a pure function called from a loop, with a struct through value_and_grad.
TEST(FrontendLowering, ExampleRunsAndIsDeterministic) {
  rung::SourceMap sources;
  rung::DiagnosticSink diags;
  auto p1 = rung::frontend::compile_file(std::string(RUNG_SOURCE_DIR) + "/tests/frontend/programs/sgd.rung", sources, diags);
  ASSERT_TRUE(p1) << (diags.empty() ? "" : diags.all()[0].message);
  auto p2 = rung::frontend::compile_file(std::string(RUNG_SOURCE_DIR) + "/tests/frontend/programs/sgd.rung", sources, diags);
  ASSERT_TRUE(p2);
  EXPECT_EQ(p1->hash(), p2->hash());
  EXPECT_NE(p1->find("main"), nullptr);
  EXPECT_NE(p1->find("loss"), nullptr);
  EXPECT_TRUE(p1->graph.exports().count("loss"));
}

}  // namespace
