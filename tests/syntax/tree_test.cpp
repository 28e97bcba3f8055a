// The green/red tree: lossless text, ranges, parent links, navigation, comment attachment.
#include <gtest/gtest.h>

#include "syntax/dump.h"
#include "syntax/lexer.h"
#include "syntax/parse.h"

namespace rung::syntax {
namespace {

const char* kSource =
    "/// Doc for f.\n"
    "fn f(x: f32) -> f32 {\n"
    "    // inside\n"
    "    x @ w + 1.0\n"
    "}\n";

TEST(Tree, PrintsItsInputBackByteForByte) {
  for (std::string src : {std::string(kSource), std::string(""), std::string("   \n"), std::string("}}}{{{"),
                          std::string("fn \xFF\xFE (((\n\"open"), std::string("/* never closed")}) {
    Parse p = parse(src);
    EXPECT_EQ(p.tree.text(), src);
    EXPECT_EQ(p.tree.root().range().end, src.size());
  }
}

TEST(Tree, TokensInTreeOrderAreTheLexerTokens) {
  Parse p = parse(kSource);
  Lexed l = lex(kSource);
  std::size_t i = 0;
  for (SyntaxToken t = p.tree.root().first_token(); t; t = t.next_token(), ++i) {
    ASSERT_LT(i + 1, l.size());
    EXPECT_EQ(t.range().begin, l.begin(i));
    EXPECT_EQ(t.range().end, l.end(i));
    EXPECT_EQ(t.text(), l.text(i));
  }
  EXPECT_EQ(i + 1, l.size()) << "every lexer token but END_OF_FILE";
  // And backwards.
  std::size_t back = 0;
  for (SyntaxToken t = p.tree.root().last_token(); t; t = t.prev_token()) ++back;
  EXPECT_EQ(back, i);
}

TEST(Tree, ParentLinksAndRangesNest) {
  Parse p = parse(kSource);
  Preorder walk(p.tree.root());
  Preorder::Step step;
  int enters = 0, leaves = 0;
  while (walk.next(step)) {
    if (!step.enter) {
      ++leaves;
      continue;
    }
    if (step.element.is_node()) ++enters;
    SyntaxNode parent = step.element.parent();
    if (!parent) continue;
    EXPECT_LE(parent.range().begin, step.element.range().begin);
    EXPECT_GE(parent.range().end, step.element.range().end);
    EXPECT_EQ(parent.child(step.element.index_in_parent()).range(), step.element.range());
  }
  EXPECT_EQ(enters, leaves);
}

TEST(Tree, TokenAtOffset) {
  Parse p = parse(kSource);
  std::string src = kSource;
  std::uint32_t at = static_cast<std::uint32_t>(src.find("@"));
  SyntaxToken t = p.tree.root().token_at_offset(at);
  EXPECT_EQ(t.kind(), SyntaxKind::AT);
  EXPECT_EQ(t.parent().kind(), SyntaxKind::BIN_EXPR);
  EXPECT_EQ(p.tree.root().token_at_offset(0).kind(), SyntaxKind::DOC_COMMENT);
  EXPECT_EQ(p.tree.root().token_at_offset(static_cast<std::uint32_t>(src.size())).kind(), SyntaxKind::WHITESPACE);
  for (std::uint32_t i = 0; i < src.size(); ++i) EXPECT_TRUE(p.tree.root().token_at_offset(i).range().contains(i));
}

TEST(Tree, DocCommentsAttachToTheirItemAndTrailingCommentsDoNot) {
  Parse p = parse("struct A {} // trailing A\n/// about f\n// more\nfn f() {}\n\n// loose\n\nfn g() {}\n");
  std::string tree = dump_tree(p.tree);
  // The comment block right above f belongs to FN; `// loose` (blank lines around) and the
  // comment trailing A stay in the file node.
  EXPECT_NE(tree.find("\n  FN@26..55\n    DOC_COMMENT@26..37"), std::string::npos) << tree;
  EXPECT_NE(tree.find("\n  LINE_COMMENT@12..25"), std::string::npos) << tree;
  EXPECT_NE(tree.find("\n  LINE_COMMENT@57..65"), std::string::npos) << tree;
}

TEST(Tree, HandlesAreStableAndSurviveMovingTheTree) {
  Parse p = parse(kSource);
  SyntaxNode fn = p.tree.root().first_child();
  EXPECT_TRUE(fn == p.tree.root().first_child());
  SyntaxTree moved = std::move(p.tree);
  EXPECT_EQ(fn.kind(), SyntaxKind::FN);
  EXPECT_EQ(fn.parent(), moved.root());
  EXPECT_EQ(fn.text(), moved.text().substr(0, fn.range().end));
}

TEST(Tree, GreenNodesKnowOnlyWidths) {
  Parse p = parse("fn f() {}");
  const GreenNode& root = p.tree.green_root();
  EXPECT_EQ(root.kind(), SyntaxKind::SOURCE_FILE);
  EXPECT_EQ(root.width(), 9u);
  std::uint32_t sum = 0;
  for (GreenElement e : root) sum += e.width();
  EXPECT_EQ(sum, root.width());
}

}  // namespace
}  // namespace rung::syntax
