#include "syntax/lexer.h"

#include <gtest/gtest.h>

namespace rung::syntax {
namespace {

// "KIND text" for every token but the final END_OF_FILE, space-separated.
std::string kinds(std::string_view text) {
  Lexed l = lex(text);
  std::string out;
  for (std::size_t i = 0; i + 1 < l.size(); ++i) {
    if (l.kind(i) == SyntaxKind::WHITESPACE) continue;
    if (!out.empty()) out += ' ';
    out += std::string(kind_name(l.kind(i))) + ":" + std::string(l.text(i));
  }
  return out;
}

std::vector<std::string> codes(std::string_view text) {
  std::vector<std::string> out;
  Lexed l = lex(text);
  for (const Diagnostic& d : l.diagnostics()) out.push_back(d.code);
  return out;
}

TEST(Lexer, EveryByteLandsInExactlyOneToken) {
  std::string text = "fn f(x: f32[B]) -> f32 { x @ w + 1e-3 } // done\n/* c */ $ \xFF \"s\"";
  Lexed l = lex(text);
  ASSERT_GE(l.size(), 2u);
  EXPECT_EQ(l.begin(0), 0u);
  std::string joined;
  for (std::size_t i = 0; i < l.size(); ++i) {
    EXPECT_LE(l.begin(i), l.end(i));
    if (i + 1 < l.size()) {
      EXPECT_LT(l.begin(i), l.end(i)) << "only END_OF_FILE is empty";
    }
    joined += l.text(i);
  }
  EXPECT_EQ(joined, text);
  EXPECT_EQ(l.kind(l.size() - 1), SyntaxKind::END_OF_FILE);
  EXPECT_EQ(l.end(l.size() - 1), text.size());
}

TEST(Lexer, KeywordsContextualWordsAndIdentifiers) {
  EXPECT_EQ(kinds("fn let mut export import module struct"),
            "FN_KW:fn LET_KW:let MUT_KW:mut EXPORT_KW:export IMPORT_KW:import MODULE_KW:module STRUCT_KW:struct");
  // `tier`, `tolerance`, `override` are words the parser gives meaning; the lexer does not.
  EXPECT_EQ(kinds("tier tolerance override fnx _ _a"),
            "IDENT:tier IDENT:tolerance IDENT:override IDENT:fnx UNDERSCORE:_ IDENT:_a");
}

TEST(Lexer, OperatorsByMaximalMunch) {
  EXPECT_EQ(kinds("..= .. . -> -= - && & || != ! == = <= < >= > += + *= * /= / %= % @= @"),
            "DOT2EQ:..= DOT2:.. DOT:. THIN_ARROW:-> MINUSEQ:-= MINUS:- AMP2:&& AMP:& PIPE2:|| NEQ:!= BANG:! "
            "EQ2:== EQ:= LTEQ:<= LT:< GTEQ:>= GT:> PLUSEQ:+= PLUS:+ STAREQ:*= STAR:* SLASHEQ:/= SLASH:/ "
            "PERCENTEQ:%= PERCENT:% ATEQ:@= AT:@");
  EXPECT_EQ(kinds("a..=b"), "IDENT:a DOT2EQ:..= IDENT:b");
}

TEST(Lexer, NumbersFloatsAndRanges) {
  EXPECT_EQ(kinds("1.5 1e-3 2E+10 3.0e5 1_000 0x2A 0b101 0o17"),
            "FLOAT_NUMBER:1.5 FLOAT_NUMBER:1e-3 FLOAT_NUMBER:2E+10 FLOAT_NUMBER:3.0e5 INT_NUMBER:1_000 "
            "INT_NUMBER:0x2A INT_NUMBER:0b101 INT_NUMBER:0o17");
  // `0..n` is a range, not the float `0.` followed by `.n`.
  EXPECT_EQ(kinds("0..n"), "INT_NUMBER:0 DOT2:.. IDENT:n");
  // After `.` digits are a tuple index: `t.0.1` is two field accesses.
  EXPECT_EQ(kinds("t.0.1"), "IDENT:t DOT:. INT_NUMBER:0 DOT:. INT_NUMBER:1");
  // A field access on an integer is not a float.
  EXPECT_EQ(kinds("1.max"), "INT_NUMBER:1 DOT:. IDENT:max");
}

TEST(Lexer, MalformedNumbersAreOneTokenAndOneDiagnostic) {
  for (const char* bad : {"0x", "0b102", "1e", "12abc", "1.5f32", "0o8"}) {
    SCOPED_TRACE(bad);
    Lexed l = lex(bad);
    EXPECT_EQ(l.size(), 2u) << "one token, then END_OF_FILE";
    EXPECT_TRUE(l.has_error(0));
    EXPECT_EQ(codes(bad), std::vector<std::string>{"E1006"});
  }
  EXPECT_EQ(codes("18446744073709551615"), std::vector<std::string>{});
  EXPECT_EQ(codes("18446744073709551616"), std::vector<std::string>{"E1007"});
  EXPECT_EQ(codes("0xFFFFFFFFFFFFFFFF0"), std::vector<std::string>{"E1007"});
}

TEST(Lexer, CommentsAreTriviaOfFourKinds) {
  EXPECT_EQ(kinds("// line\n/// doc\n//// not doc\n/* a /* nested */ b */x"),
            "LINE_COMMENT:// line DOC_COMMENT:/// doc LINE_COMMENT://// not doc "
            "BLOCK_COMMENT:/* a /* nested */ b */ IDENT:x");
  // A line comment ends before the line break, CRLF included.
  EXPECT_EQ(kinds("// c\r\nx"), "LINE_COMMENT:// c IDENT:x");
}

TEST(Lexer, UnterminatedBlockCommentRunsToTheEndAndMarksIt) {
  Lexed l = lex("x /* open /* nested */ still");
  EXPECT_EQ(l.kind(2), SyntaxKind::BLOCK_COMMENT);
  EXPECT_EQ(l.text(2), "/* open /* nested */ still");
  ASSERT_EQ(l.diagnostics().size(), 1u);
  EXPECT_EQ(l.diagnostics()[0].code, "E1004");
  EXPECT_TRUE(l.has_error(l.size() - 1)) << "END_OF_FILE says the end was already reported";
}

TEST(Lexer, StringsEscapesAndTheirErrors) {
  EXPECT_EQ(kinds(R"("a \"b\" \n\t\\ \0 \u{1F600}")"), R"(STRING:"a \"b\" \n\t\\ \0 \u{1F600}")");
  EXPECT_TRUE(codes(R"("a \"b\" \n\t\\ \0 \u{1F600}")").empty());
  EXPECT_EQ(codes(R"("\q")"), std::vector<std::string>{"E1005"});
  EXPECT_EQ(codes(R"("\u{D800}")"), std::vector<std::string>{"E1005"});
  EXPECT_EQ(codes(R"("\u{1234567}")"), std::vector<std::string>{"E1005"});
  // An unterminated string stops at the line break, so the next line lexes normally.
  Lexed l = lex("\"open\nx");
  EXPECT_EQ(l.kind(0), SyntaxKind::STRING);
  EXPECT_EQ(l.text(0), "\"open");
  EXPECT_EQ(l.kind(2), SyntaxKind::IDENT);
  EXPECT_EQ(codes("\"open\nx"), std::vector<std::string>{"E1003"});
}

TEST(Lexer, InvalidBytesAndStrayCharactersBecomeErrorTokens) {
  EXPECT_EQ(kinds("a \xFF\xFE b $$$ c"), "IDENT:a ERROR_TOKEN:\xFF\xFE IDENT:b ERROR_TOKEN:$$$ IDENT:c");
  std::vector<std::string> want{"E1001", "E1002", "E1002"};
  EXPECT_EQ(codes("a \xFF\xFE b $$$ c \xCE\xB1 d"), want);
  // Inside comments and strings a bad byte is reported but the token keeps its kind.
  Lexed c = lex("// caf\xE9\n\"caf\xE9\"");
  EXPECT_EQ(c.kind(0), SyntaxKind::LINE_COMMENT);
  EXPECT_EQ(c.kind(2), SyntaxKind::STRING);
  EXPECT_EQ(c.diagnostics().size(), 2u);
}

TEST(Lexer, TypographicQuotesGetOneDiagnosticWithTheFix) {
  Lexed l = lex("x = \xE2\x80\x9Chi\xE2\x80\x9D;");
  ASSERT_EQ(l.diagnostics().size(), 1u);
  const Diagnostic& d = l.diagnostics()[0];
  EXPECT_EQ(d.code, "E1002");
  ASSERT_EQ(d.suggestions.size(), 1u);
  EXPECT_EQ(d.suggestions[0].replacement, "\"hi\"");
}

TEST(Lexer, ByteOrderMarkAtTheStartIsTrivia) {
  Lexed l = lex("\xEF\xBB\xBF" "fn");
  EXPECT_EQ(l.kind(0), SyntaxKind::WHITESPACE);
  EXPECT_EQ(l.kind(1), SyntaxKind::FN_KW);
  EXPECT_TRUE(l.diagnostics().empty());
  EXPECT_EQ(codes("fn \xEF\xBB\xBF"), std::vector<std::string>{"E1002"}) << "elsewhere it is a stray character";
}

TEST(Lexer, NeverStopsEarlyOnAnyByte) {
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  all += all;
  Lexed l = lex(all);
  std::string joined;
  for (std::size_t i = 0; i < l.size(); ++i) joined += l.text(i);
  EXPECT_EQ(joined, all);
}

TEST(Lexer, DiagnosticSpansPointIntoTheSource) {
  Lexed l = lex("let a = 1 # 2;", 7);
  ASSERT_EQ(l.diagnostics().size(), 1u);
  const Label* p = l.diagnostics()[0].primary_label();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->span.source, 7u);
  EXPECT_EQ(p->span.begin, 10u);
  EXPECT_EQ(p->span.end, 11u);
}

}  // namespace
}  // namespace rung::syntax
