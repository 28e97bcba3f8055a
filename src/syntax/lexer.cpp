#include "syntax/lexer.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "base/check.h"
#include "base/utf8.h"

namespace rung::syntax {
namespace {

bool is_ident_start(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_ident_char(unsigned char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }
bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
bool is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::string hex_cp(char32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(cp));
  return buf;
}

// Characters people paste from word processors, and the ASCII they meant.
const char* ascii_lookalike(char32_t cp) {
  switch (cp) {
    case 0x201C: case 0x201D: case 0x201E: return "\"";
    case 0x2018: case 0x2019: return "'";
    case 0x2212: case 0x2013: case 0x2014: return "-";
    case 0x00D7: return "*";
    case 0x00F7: return "/";
    case 0x00A0: case 0x2009: case 0x200B: return " ";
    default: return nullptr;
  }
}

}  // namespace

class Lexer {
 public:
  Lexer(std::string_view text, SourceId source) : text_(text), source_(source) {
    out_.text_ = text;
    // There are at most as many tokens as bytes. Reserving that much costs address space
    // only (big blocks are mapped lazily) and saves the copies of regrowing on big files.
    std::size_t guess = text.size() + 2;
    out_.kinds_.reserve(guess);
    out_.starts_.reserve(guess + 1);
  }

  Lexed run() {
    while (pos_ < text_.size()) next_token();
    push(SyntaxKind::END_OF_FILE, static_cast<std::uint32_t>(text_.size()), unterminated_comment_);
    out_.starts_.push_back(static_cast<std::uint32_t>(text_.size()));
    return std::move(out_);
  }

 private:
  unsigned char at(std::size_t i) const { return i < text_.size() ? static_cast<unsigned char>(text_[i]) : 0; }
  bool more(std::size_t i) const { return i < text_.size(); }

  void push(SyntaxKind k, std::uint32_t begin, bool error) {
    if (error) out_.errors_.push_back(static_cast<std::uint32_t>(out_.kinds_.size()));
    out_.kinds_.push_back(k);
    out_.starts_.push_back(begin);
    if (!is_trivia(k)) prev_significant_ = k;
  }

  Diagnostic& report(const char* code, std::string message, std::size_t begin, std::size_t end) {
    token_error_ = true;
    Diagnostic d;
    d.code = code;
    d.message = std::move(message);
    d.primary(Span{source_, static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(end)});
    out_.diags_.push_back(std::move(d));
    return out_.diags_.back();
  }

  void next_token() {
    std::size_t start = pos_;
    token_error_ = false;
    SyntaxKind kind = scan();
    RUNG_CHECK(pos_ > start, "the lexer must consume at least one byte per token");
    push(kind, static_cast<std::uint32_t>(start), token_error_);
  }

  SyntaxKind scan() {
    unsigned char c = at(pos_);
    if (is_space(c)) {
      while (more(pos_) && is_space(at(pos_))) ++pos_;
      return SyntaxKind::WHITESPACE;
    }
    if (is_ident_start(c)) return ident();
    if (is_digit(c)) return number();
    if (c == '"') return string();
    if (c == '/' && at(pos_ + 1) == '/') return line_comment();
    if (c == '/' && at(pos_ + 1) == '*') return block_comment();
    if (SyntaxKind k = punct(); k != SyntaxKind::ERROR_TOKEN) return k;
    // A byte-order mark at the very start is an editor's habit, not code: trivia.
    if (pos_ == 0 && text_.substr(0, 3) == "\xEF\xBB\xBF") {
      pos_ = 3;
      return SyntaxKind::WHITESPACE;
    }
    if (SyntaxKind k = typographic_string(); k != SyntaxKind::END_OF_FILE) return k;
    return unexpected();
  }

  SyntaxKind ident() {
    std::size_t start = pos_;
    while (more(pos_) && is_ident_char(at(pos_))) ++pos_;
    std::string_view word = text_.substr(start, pos_ - start);
    if (word == "_") return SyntaxKind::UNDERSCORE;
    return keyword_kind(word);
  }

  // Operators by maximal munch: `..=` before `..` before `.`.
  SyntaxKind punct() {
    using K = SyntaxKind;
    unsigned char c = at(pos_), d = at(pos_ + 1);
    auto one = [&](K k) { pos_ += 1; return k; };
    auto two = [&](K k) { pos_ += 2; return k; };
    auto with_eq = [&](K plain, K eq) { return d == '=' ? two(eq) : one(plain); };
    switch (c) {
      case '(': return one(K::L_PAREN);
      case ')': return one(K::R_PAREN);
      case '[': return one(K::L_BRACK);
      case ']': return one(K::R_BRACK);
      case '{': return one(K::L_CURLY);
      case '}': return one(K::R_CURLY);
      case ',': return one(K::COMMA);
      case ';': return one(K::SEMICOLON);
      case ':': return one(K::COLON);
      case '.':
        if (d == '.') {
          if (at(pos_ + 2) == '=') { pos_ += 3; return K::DOT2EQ; }
          return two(K::DOT2);
        }
        return one(K::DOT);
      case '-':
        if (d == '>') return two(K::THIN_ARROW);
        return with_eq(K::MINUS, K::MINUSEQ);
      case '&': return d == '&' ? two(K::AMP2) : one(K::AMP);
      case '|': return d == '|' ? two(K::PIPE2) : K::ERROR_TOKEN;
      case '!': return with_eq(K::BANG, K::NEQ);
      case '=': return with_eq(K::EQ, K::EQ2);
      case '<': return with_eq(K::LT, K::LTEQ);
      case '>': return with_eq(K::GT, K::GTEQ);
      case '+': return with_eq(K::PLUS, K::PLUSEQ);
      case '*': return with_eq(K::STAR, K::STAREQ);
      case '/': return with_eq(K::SLASH, K::SLASHEQ);
      case '%': return with_eq(K::PERCENT, K::PERCENTEQ);
      case '@': return with_eq(K::AT, K::ATEQ);
      default: return K::ERROR_TOKEN;
    }
  }

  SyntaxKind number() {
    std::size_t start = pos_;
    // After `.` only plain digits: `t.0.1` is two tuple-field accesses, not `t . 0.1`.
    if (prev_significant_ == SyntaxKind::DOT) {
      while (more(pos_) && is_digit(at(pos_))) ++pos_;
      return SyntaxKind::INT_NUMBER;
    }
    unsigned char p = at(pos_ + 1) | 0x20;
    if (at(pos_) == '0' && (p == 'x' || p == 'b' || p == 'o')) return radix_number(start, p);

    SyntaxKind kind = SyntaxKind::INT_NUMBER;
    while (more(pos_) && (is_digit(at(pos_)) || at(pos_) == '_')) ++pos_;
    if (at(pos_) == '.' && is_digit(at(pos_ + 1))) {
      kind = SyntaxKind::FLOAT_NUMBER;
      ++pos_;
      while (more(pos_) && (is_digit(at(pos_)) || at(pos_) == '_')) ++pos_;
    }
    if ((at(pos_) | 0x20) == 'e') {
      std::size_t j = pos_ + 1;
      if (at(j) == '+' || at(j) == '-') ++j;
      if (is_digit(at(j))) {
        kind = SyntaxKind::FLOAT_NUMBER;
        pos_ = j;
        while (more(pos_) && (is_digit(at(pos_)) || at(pos_) == '_')) ++pos_;
      } else if (!is_ident_char(at(j))) {
        pos_ = j;
        report("E1006", "float literal has no digits in its exponent", start, pos_)
            .note("write the exponent as digits, as in `1e-3`");
        return SyntaxKind::FLOAT_NUMBER;
      }
    }
    if (invalid_suffix()) return kind;
    if (kind == SyntaxKind::INT_NUMBER) check_int_range(start, 10);
    return kind;
  }

  SyntaxKind radix_number(std::size_t start, unsigned char p) {
    unsigned radix = p == 'x' ? 16 : p == 'b' ? 2 : 8;
    const char* name = p == 'x' ? "hexadecimal" : p == 'b' ? "binary" : "octal";
    pos_ += 2;
    std::size_t digits = 0;
    while (more(pos_) && is_ident_char(at(pos_))) {
      unsigned char c = at(pos_);
      if (c != '_') {
        unsigned v = is_digit(c) ? c - '0' : (c | 0x20) >= 'a' && (c | 0x20) <= 'z' ? (c | 0x20) - 'a' + 10 : 99;
        if (v >= radix) {
          std::size_t bad = pos_;
          while (more(pos_) && is_ident_char(at(pos_))) ++pos_;
          report("E1006", std::string("invalid digit `") + static_cast<char>(c) + "` in " + name + " literal", bad,
                 bad + 1);
          return SyntaxKind::INT_NUMBER;
        }
        ++digits;
      }
      ++pos_;
    }
    if (digits == 0) {
      report("E1006", std::string(name) + " literal has no digits", start, pos_);
      return SyntaxKind::INT_NUMBER;
    }
    check_int_range(start + 2, radix);
    return SyntaxKind::INT_NUMBER;
  }

  // `123abc`, `1.0f32`: rung literals carry no suffix; the whole run stays one token.
  bool invalid_suffix() {
    if (!is_ident_char(at(pos_))) return false;
    std::size_t suffix = pos_;
    while (more(pos_) && is_ident_char(at(pos_))) ++pos_;
    report("E1006", "invalid suffix `" + std::string(text_.substr(suffix, pos_ - suffix)) + "` on number literal",
           suffix, pos_)
        .note("number literals have no type suffix; the type comes from where the value is used");
    return true;
  }

  void check_int_range(std::size_t digits_begin, unsigned radix) {
    std::uint64_t value = 0;
    for (std::size_t i = digits_begin; i < pos_; ++i) {
      unsigned char c = at(i);
      if (c == '_') continue;
      unsigned v = is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10;
      bool overflow = value > (UINT64_MAX - v) / radix;
      value = value * radix + v;
      if (overflow) {
        std::size_t start = digits_begin - (radix == 10 ? 0 : 2);
        report("E1007", "integer literal is too large", start, pos_)
            .note("the largest integer literal is 18446744073709551615 (2^64 - 1)");
        return;
      }
    }
  }

  SyntaxKind string() {
    std::size_t start = pos_;
    ++pos_;  // opening quote
    while (true) {
      if (!more(pos_) || at(pos_) == '\n' || (at(pos_) == '\r' && at(pos_ + 1) == '\n')) {
        report("E1003", "unterminated string literal", start, pos_)
            .note("a string ends at its closing `\"` on the same line; write a line break as `\\n`");
        return SyntaxKind::STRING;
      }
      unsigned char c = at(pos_);
      if (c == '"') {
        ++pos_;
        return SyntaxKind::STRING;
      }
      if (c == '\\') {
        escape();
        continue;
      }
      if (c >= 0x80) {
        skip_utf8();
        continue;
      }
      ++pos_;
    }
  }

  void escape() {
    std::size_t start = pos_;
    unsigned char c = at(pos_ + 1);
    if (!more(pos_ + 1) || c == '\n' || c == '\r') {
      ++pos_;  // the backslash; the newline ends the (unterminated) string
      return;
    }
    switch (c) {
      case 'n': case 'r': case 't': case '\\': case '"': case '0':
        pos_ += 2;
        return;
      case 'u': unicode_escape(start); return;
      default: break;
    }
    pos_ += 1;
    if (c >= 0x80) skip_utf8();
    else ++pos_;
    report("E1005", "unknown escape sequence `" + std::string(text_.substr(start, pos_ - start)) + "`", start, pos_)
        .note("the escapes are \\n \\r \\t \\\\ \\\" \\0 and \\u{...}");
  }

  void unicode_escape(std::size_t start) {
    pos_ += 2;  // `\u`
    auto bad = [&](const char* why) {
      report("E1005", std::string("invalid unicode escape: ") + why, start, pos_)
          .note("write a code point as `\\u{1F600}`: one to six hex digits in braces");
    };
    if (at(pos_) != '{') return bad("expected `{` after `\\u`");
    ++pos_;
    std::uint32_t cp = 0;
    std::size_t digits = 0;
    while (more(pos_) && std::isxdigit(at(pos_))) {
      unsigned char c = at(pos_);
      cp = cp * 16 + (is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10);
      if (++digits > 6) break;
      ++pos_;
    }
    if (digits > 6) {
      while (more(pos_) && std::isxdigit(at(pos_))) ++pos_;
      if (at(pos_) == '}') ++pos_;
      return bad("more than six hex digits");
    }
    if (at(pos_) != '}') return bad(digits == 0 ? "expected hex digits" : "expected `}`");
    ++pos_;
    if (digits == 0) return bad("no hex digits");
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return bad("not a Unicode scalar value");
  }

  SyntaxKind line_comment() {
    std::size_t start = pos_;
    while (more(pos_) && at(pos_) != '\n') {
      if (at(pos_) == '\r' && at(pos_ + 1) == '\n') break;
      if (at(pos_) >= 0x80) skip_utf8();
      else ++pos_;
    }
    bool doc = pos_ - start >= 3 && at(start + 2) == '/' && (pos_ - start == 3 || at(start + 3) != '/');
    return doc ? SyntaxKind::DOC_COMMENT : SyntaxKind::LINE_COMMENT;
  }

  SyntaxKind block_comment() {
    std::size_t start = pos_;
    pos_ += 2;
    int depth = 1;
    while (more(pos_)) {
      unsigned char c = at(pos_);
      if (c == '/' && at(pos_ + 1) == '*') {
        ++depth;
        pos_ += 2;
      } else if (c == '*' && at(pos_ + 1) == '/') {
        pos_ += 2;
        if (--depth == 0) return SyntaxKind::BLOCK_COMMENT;
      } else if (c >= 0x80) {
        skip_utf8();
      } else {
        ++pos_;
      }
    }
    report("E1004", "unterminated block comment", start, start + 2)
        .note(depth > 1 ? "block comments nest: every `/*` inside needs its own `*/`"
                        : "the comment runs to the end of the file; close it with `*/`");
    unterminated_comment_ = true;
    return SyntaxKind::BLOCK_COMMENT;
  }

  // Inside comments and strings: steps over one scalar value, or reports a run of bytes
  // that are not UTF-8.
  void skip_utf8() {
    char32_t cp;
    std::size_t len = utf8::decode(text_, pos_, cp);
    if (len > 0) {
      pos_ += len;
      return;
    }
    std::size_t start = pos_;
    while (more(pos_) && at(pos_) >= 0x80 && utf8::decode(text_, pos_, cp) == 0) ++pos_;
    report("E1001", "invalid UTF-8 (" + byte_list(start, pos_) + ")", start, pos_)
        .note("rung source files are UTF-8");
  }

  std::string byte_list(std::size_t begin, std::size_t end) const {
    std::string s;
    std::size_t shown = std::min<std::size_t>(end - begin, 4);
    for (std::size_t i = 0; i < shown; ++i) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "%s0x%02X", i ? " " : "", at(begin + i));
      s += buf;
    }
    if (end - begin > shown) s += " ...";
    return s;
  }

  // “text” pasted from a word processor: one error token and one diagnostic for the
  // whole would-be string, with the fix. END_OF_FILE when this is not one.
  SyntaxKind typographic_string() {
    char32_t cp;
    if (utf8::decode(text_, pos_, cp) != 3 || cp != 0x201C) return SyntaxKind::END_OF_FILE;
    std::size_t close = pos_ + 3;
    while (more(close) && at(close) != '\n') {
      std::size_t len = utf8::decode(text_, close, cp);
      if (len == 0) return SyntaxKind::END_OF_FILE;
      if (cp == 0x201D) break;
      close += len;
    }
    if (!more(close) || at(close) == '\n') return SyntaxKind::END_OF_FILE;
    std::size_t start = pos_;
    pos_ = close + 3;
    std::string inner(text_.substr(start + 3, close - start - 3));
    report("E1002", "string literal written with typographic quotes `“` `”`", start, pos_)
        .suggest(Span{source_, static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(pos_)},
                 "\"" + inner + "\"", "use ASCII double quotes");
    return SyntaxKind::ERROR_TOKEN;
  }

  // A run of characters that start no token: stray ASCII (`$`, `#`, `|`), control
  // characters, non-ASCII text outside strings and comments, or bytes that are not UTF-8.
  SyntaxKind unexpected() {
    std::size_t start = pos_;
    char32_t cp;
    if (utf8::decode(text_, pos_, cp) == 0) {
      while (more(pos_) && utf8::decode(text_, pos_, cp) == 0) ++pos_;
      report("E1001", "invalid UTF-8 (" + byte_list(start, pos_) + ")", start, pos_)
          .note("rung source files are UTF-8");
      return SyntaxKind::ERROR_TOKEN;
    }
    char32_t first = cp;
    std::size_t first_len = utf8::decode(text_, pos_, cp);
    pos_ += first_len;
    // One token for a run of the same stray character (`$$$`), one diagnostic for it.
    while (more(pos_)) {
      std::size_t len = utf8::decode(text_, pos_, cp);
      if (len == 0 || cp != first) break;
      pos_ += len;
    }
    std::string shown = first < 0x20 || first == 0x7F ? hex_cp(first)
                                                         : "`" + std::string(text_.substr(start, first_len)) + "`";
    if (first >= 0x80) shown += " (" + hex_cp(first) + ")";
    Diagnostic& d = report("E1002", "unexpected character " + shown, start, pos_);
    if (const char* ascii = ascii_lookalike(first)) {
      d.suggest(Span{source_, static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(start + first_len)},
                ascii, std::string("this looks like `") + ascii + "`; rung uses ASCII punctuation");
    } else if (first == '|') {
      d.note("rung has `||` (logical or) but no bitwise operators");
    } else if (first >= 0x80) {
      d.note("identifiers and operators are ASCII; other characters may appear in strings and comments");
    }
    return SyntaxKind::ERROR_TOKEN;
  }

  std::string_view text_;
  SourceId source_;
  std::size_t pos_ = 0;
  bool token_error_ = false;
  bool unterminated_comment_ = false;
  SyntaxKind prev_significant_ = SyntaxKind::END_OF_FILE;
  Lexed out_;
};

Lexed lex(std::string_view text, SourceId source) {
  RUNG_CHECK(text.size() < 0xFFFFFFFFu, "the lexer handles files below 4 GiB");
  return Lexer(text, source).run();
}

}  // namespace rung::syntax
