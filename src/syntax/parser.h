// The parser's machinery (the grammar lives in grammar_*.cpp): lookahead over significant
// tokens, Markers that open nodes, error reporting with cascade suppression, recovery
// scopes, a nesting limit and a step limit. Parsing never fails: every token is consumed
// into some node, and mistakes become ERROR nodes plus diagnostics.
#pragma once

#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "base/check.h"
#include "syntax/event.h"
#include "syntax/lexer.h"
#include "syntax/token_set.h"

namespace rung::syntax {

class Parser;
class CompletedMarker;

// An open node. It must be completed (given a kind) or abandoned before it is destroyed;
// forgetting either is a grammar bug caught at once.
class Marker {
 public:
  Marker(Marker&& o) noexcept : pos_(o.pos_), live_(o.live_), preceding_(o.preceding_) { o.live_ = false; }
  Marker(const Marker&) = delete;
  Marker& operator=(const Marker&) = delete;
  Marker& operator=(Marker&&) = delete;
  ~Marker() {
    // (While an exception unwinds, markers die live; that is not the grammar's fault.)
    if (live_ && std::uncaught_exceptions() == 0) RUNG_CHECK(false, "a Marker was neither completed nor abandoned");
  }

  CompletedMarker complete(Parser& p, SyntaxKind kind);
  void abandon(Parser& p);

 private:
  friend class Parser;
  friend class CompletedMarker;
  explicit Marker(std::uint32_t pos, bool preceding = false) : pos_(pos), preceding_(preceding) {}
  std::uint32_t pos_;  // index of its Start event
  bool live_ = true;
  bool preceding_;  // made by precede(): a node already points at it, so it cannot be abandoned
};

class CompletedMarker {
 public:
  SyntaxKind kind() const { return kind_; }
  // Opens a node that will wrap this one: `a` parsed, then `+` seen, `a` becomes a child.
  Marker precede(Parser& p) const;
  // Changes the kind of the completed node (a parenthesised expression turns out a tuple).
  CompletedMarker change_kind(Parser& p, SyntaxKind kind) const;

 private:
  friend class Marker;
  CompletedMarker(std::uint32_t start, SyntaxKind kind) : start_(start), kind_(kind) {}
  std::uint32_t start_;
  SyntaxKind kind_;
};

class Parser {
 public:
  static constexpr int kMaxDepth = 128;            // nested constructs; deeper input gets E1198
  static constexpr std::uint32_t kStepLimit = 4096;  // lookaheads without progress before the parser is declared stuck

  Parser(const Lexed& lexed, SourceId source);

  // Lookahead over significant tokens (trivia is invisible to the grammar).
  SyntaxKind nth(std::size_t n) {
    if (++steps_ > kStepLimit) stuck_ = true;
    if (stuck_) return SyntaxKind::END_OF_FILE;
    return lexed_.kind(nth_index(n));
  }
  SyntaxKind current() { return nth(0); }
  bool at(SyntaxKind k) { return current() == k; }
  bool at(TokenSet s) { return s.contains(current()); }
  bool nth_at(std::size_t n, SyntaxKind k) { return nth(n) == k; }
  std::string_view nth_text(std::size_t n) const;
  // An identifier spelled like the contextual keyword `kw` (`tier`, `tolerance`, `override`).
  bool at_contextual(SyntaxKind kw, std::size_t n = 0);

  void bump();                   // consumes the current token (never END_OF_FILE)
  void bump_remap(SyntaxKind k);  // consumes it, shown in the tree as `k`
  bool eat(SyntaxKind k);
  // Consumes `k` or reports "expected `k`, found ..." (E1101) and consumes nothing.
  bool expect(SyntaxKind k);
  // Consumes the closing delimiter `close` of the group opened by the token at `open_tok`,
  // or reports E1107 pointing at both.
  bool expect_closing(SyntaxKind close, std::uint32_t open_tok);

  Marker start();

  // Errors. Each returns the diagnostic to decorate, or nullptr when it was suppressed
  // because it would only echo an earlier one: a second error at the same token, an error
  // at a token the lexer already reported, or any further error in a statement or item
  // that already has one. One mistake, one diagnostic.
  Diagnostic* error(const char* code, std::string message);                // at the current token
  Diagnostic* error_after_prev(const char* code, std::string message);     // just after the previous token
  // Reports, then wraps the current token in an ERROR node unless it is in `recovery`
  // (or is `}` or the end of file, which enclosing rules own).
  void err_recover(const char* code, std::string message, TokenSet recovery);
  // Wraps tokens in one ERROR node until a token in `stop` at delimiter depth zero, keeping
  // bracketed groups whole. Reports nothing; the caller has.
  void skip_balanced_until(TokenSet stop);
  // "`fn`", "`foo`", "end of file": how diagnostics name the current token.
  std::string found();
  Span current_span();
  Span token_span(std::uint32_t lex_index) const;
  std::uint32_t position() const { return pos_; }  // the lexer index of the current token

  // A statement or item: after its first error, further errors inside it are dropped.
  class Scope {
   public:
    explicit Scope(Parser& p) : p_(p) { p_.poisoned_.push_back(false); }
    ~Scope() { p_.poisoned_.pop_back(); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Parser& p_;
  };

  // Guards recursion. `ok()` is false past kMaxDepth; the caller then gives up on the
  // construct with `too_deep()`.
  class Nest {
   public:
    explicit Nest(Parser& p) : p_(p) { ++p_.depth_; }
    ~Nest() { --p_.depth_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;
    bool ok() const { return p_.depth_ <= kMaxDepth; }

   private:
    Parser& p_;
  };
  // Wraps the current token in an ERROR node; an opening bracket, with its whole group.
  CompletedMarker skip_group();
  // Reports E1198 and wraps the construct starting at the current token (a whole bracketed
  // group, or one token) in an ERROR node.
  CompletedMarker too_deep();

  // After the grammar's top rule: if the step limit tripped, wraps what is left in an
  // ERROR node and reports E1199, so even a parser bug keeps every byte.
  void drain();
  ParseOutput finish();

 private:
  friend class Marker;
  friend class CompletedMarker;
  Diagnostic* report(const char* code, std::string message, Span span);
  void push_token(SyntaxKind kind);

  // The lexer index of the first significant token at or after `i` (END_OF_FILE stops it).
  std::uint32_t skip_trivia(std::uint32_t i) const {
    while (is_trivia(lexed_.kind(i))) ++i;
    return i;
  }
  std::uint32_t nth_index(std::size_t n) const {
    std::uint32_t i = pos_;
    for (; n > 0 && i + 1 < lexed_.size(); --n) i = skip_trivia(i + 1);
    return i;
  }

  const Lexed& lexed_;
  SourceId source_;
  // Positions are lexer indices; the parser steps over trivia as it goes, so it needs no
  // table of its own (a big file has millions of tokens).
  std::uint32_t pos_ = 0;                  // the current significant token
  std::uint32_t prev_ = UINT32_MAX;        // the last one consumed
  std::uint32_t steps_ = 0;
  bool stuck_ = false;
  int depth_ = 0;
  std::uint32_t last_error_pos_ = UINT32_MAX;
  std::vector<bool> poisoned_;
  ParseOutput out_;
};

}  // namespace rung::syntax
