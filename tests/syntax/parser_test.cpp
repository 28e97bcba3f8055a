// The parser machinery: events, markers, the step and nesting limits, and robustness on
// pathological input (deep nesting, long chains) that must neither crash nor loop.
#include <gtest/gtest.h>

#include <chrono>

#include "syntax/dump.h"
#include "syntax/format.h"
#include "syntax/parse.h"
#include "syntax/parser.h"

namespace rung::syntax {
namespace {

std::vector<std::string> codes(const std::vector<Diagnostic>& diags) {
  std::vector<std::string> out;
  for (const Diagnostic& d : diags) out.push_back(d.code);
  return out;
}

TEST(Events, AreFlatStartTokenFinish) {
  Lexed l = lex("fn f() {}");
  ParseOutput out = parse_events(l);
  EXPECT_EQ(dump_events(l, out),
            "START SOURCE_FILE\n"
            "  START FN\n"
            "    TOKEN FN_KW@0..2 \"fn\"\n"
            "    START NAME\n"
            "      TOKEN IDENT@3..4 \"f\"\n"
            "    FINISH\n"
            "    START PARAM_LIST\n"
            "      TOKEN L_PAREN@4..5 \"(\"\n"
            "      TOKEN R_PAREN@5..6 \")\"\n"
            "    FINISH\n"
            "    START BLOCK_EXPR\n"
            "      TOKEN L_CURLY@7..8 \"{\"\n"
            "      TOKEN R_CURLY@8..9 \"}\"\n"
            "    FINISH\n"
            "  FINISH\n"
            "FINISH\n");
  EXPECT_TRUE(out.diagnostics.empty());
}

TEST(Events, AnOperandIsWrappedByAForwardParent) {
  // `a` is parsed before `+` is seen; its Start points forward to the BIN_EXPR's.
  Lexed l = lex("fn f() { a + b }");
  std::string events = dump_events(l, parse_events(l));
  EXPECT_NE(events.find("START PATH_EXPR (forward parent at event"), std::string::npos) << events;
  Parse p = parse("fn f() { a + b }");
  EXPECT_NE(dump_tree(p.tree).find("      BIN_EXPR@9..14\n        PATH_EXPR@9..10"), std::string::npos) << dump_tree(p.tree);
}

TEST(Events, ErrorsAreEventsAtTheirPlace) {
  Lexed l = lex("fn f() { let x = ; }");
  ParseOutput out = parse_events(l);
  std::string events = dump_events(l, out);
  EXPECT_NE(events.find("ERROR E1103 \"expected an expression after `=`, found `;`\""), std::string::npos) << events;
  EXPECT_EQ(codes(out.diagnostics), std::vector<std::string>{"E1103"});
}

TEST(Marker, AbandonedLastMarkerLeavesNoEvent) {
  Lexed l = lex("x");
  Parser p(l, kNoSource);
  Marker m = p.start();
  m.abandon(p);
  Marker root = p.start();
  p.bump();
  root.complete(p, SyntaxKind::SOURCE_FILE);
  ParseOutput out = p.finish();
  ASSERT_EQ(out.events.size(), 3u);
  EXPECT_EQ(out.events[0].kind, EventKind::Start);
}

TEST(MarkerDeathTest, ForgettingAMarkerIsCaughtAtOnce) {
  EXPECT_DEATH(
      {
        Lexed l = lex("x");
        Parser p(l, kNoSource);
        Marker m = p.start();
      },
      "neither completed nor abandoned");
}

TEST(StepLimit, AStuckGrammarEndsWithE1199AndKeepsEveryByte) {
  Lexed l = lex("fn f() { 1 }");
  Parser p(l, 0);
  Marker root = p.start();
  // A grammar bug: a loop that looks but never consumes. The step limit ends it.
  int spins = 0;
  while (!p.at(SyntaxKind::END_OF_FILE)) ++spins;
  EXPECT_GT(spins, 0);
  p.drain();
  root.complete(p, SyntaxKind::SOURCE_FILE);
  ParseOutput out = p.finish();
  EXPECT_EQ(codes(out.diagnostics), std::vector<std::string>{"E1199"});
  std::size_t tokens = 0;
  for (const Event& e : out.events) tokens += e.kind == EventKind::Token;
  EXPECT_EQ(tokens, 7u) << "all significant tokens end up in the tree";
}

TEST(Nesting, DeepParenthesesGiveOneE1198AndNoCrash) {
  std::string src = "fn f() { " + std::string(100000, '(') + "1" + std::string(100000, ')') + " }";
  Parse p = parse(src);
  EXPECT_EQ(p.tree.text(), src);
  EXPECT_EQ(codes(p.diagnostics), std::vector<std::string>{"E1198"});
}

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

TEST(Nesting, DeepBlocksBracketsAndTypes) {
  for (const std::string& src : {"fn f() " + std::string(5000, '{') + std::string(5000, '}'),
                                 "fn f() { " + std::string(5000, '[') + std::string(5000, ']') + " }",
                                 "fn f(x: " + repeat("& ", 5000) + "T) {}",
                                 "fn f() { let " + std::string(5000, '(') + "a" + std::string(5000, ')') + " = 1; }",
                                 "fn f() { " + std::string(50000, '-') + "x }"}) {
    Parse p = parse(src);
    EXPECT_EQ(p.tree.text(), src);
    EXPECT_EQ(codes(p.diagnostics), std::vector<std::string>{"E1198"}) << src.substr(0, 20);
  }
}

TEST(Nesting, NestingUpToTheLimitIsFine) {
  int depth = Parser::kMaxDepth / 2 - 2;  // each level of parentheses costs two nesting levels
  std::string src = "fn f() { " + std::string(depth, '(') + "1" + std::string(depth, ')') + " }";
  Parse p = parse(src);
  EXPECT_TRUE(p.diagnostics.empty()) << dump_diagnostics(p.diagnostics);
}

TEST(LongChains, ParseFormatAndDumpWithoutRecursion) {
  // A left-nested chain is as deep as it is long; every walker must cope.
  std::string sum = "fn f() { x";
  for (int i = 0; i < 100000; ++i) sum += " + x";
  sum += " }";
  std::string calls = "fn f() { x";
  for (int i = 0; i < 50000; ++i) calls += ".m(1)[0].f";
  calls += " }";
  std::string ifs = "fn f() { if a { 1 }";
  for (int i = 0; i < 20000; ++i) ifs += " else if a { 1 }";
  ifs += " }";
  for (const std::string& src : {sum, calls, ifs}) {
    auto t0 = std::chrono::steady_clock::now();
    Parse p = parse(src);
    EXPECT_TRUE(p.diagnostics.empty());
    EXPECT_EQ(p.tree.text(), src);
    EXPECT_FALSE(dump_tree(p.tree).empty());
    std::vector<Diagnostic> diags;
    std::optional<std::string> out = format_source(src, 0, diags);
    ASSERT_TRUE(out.has_value()) << dump_diagnostics(diags);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(seconds, 10.0) << "linear work, not quadratic";
  }
}

TEST(Recovery, AMissingBraceEndsTheBlockBeforeTheNextItem) {
  Parse p = parse("fn f() {\n    let x = 1;\nfn g() {}\nstruct S {}\n", 0);
  EXPECT_EQ(codes(p.diagnostics), std::vector<std::string>{"E1107"});
  std::string tree = dump_tree(p.tree);
  // g and S still parse as items of their own.
  EXPECT_NE(tree.find("\n  FN@"), tree.rfind("\n  FN@")) << tree;
  EXPECT_NE(tree.find("\n  STRUCT@"), std::string::npos) << tree;
  const Diagnostic& d = p.diagnostics[0];
  ASSERT_EQ(d.labels.size(), 2u);
  EXPECT_EQ(d.labels[1].message, "`{` opened here");
}

TEST(Recovery, IndependentMistakesInDifferentStatementsAreAllReported) {
  Parse p = parse("fn f() {\n    let a = ;\n    let b = 1\n    let c: = 2;\n}\n");
  EXPECT_EQ(codes(p.diagnostics), (std::vector<std::string>{"E1103", "E1101", "E1104"}));
}

}  // namespace
}  // namespace rung::syntax
