#include "syntax/parser.h"

namespace rung::syntax {

CompletedMarker Marker::complete(Parser& p, SyntaxKind kind) {
  RUNG_CHECK(live_, "completing a marker twice");
  live_ = false;
  Event& e = p.out_.events[pos_];
  e.kind = EventKind::Start;
  e.syntax = kind;
  p.out_.events.push_back(Event{EventKind::Finish, kind, 0});
  return CompletedMarker(pos_, kind);
}

void Marker::abandon(Parser& p) {
  RUNG_CHECK(live_, "abandoning a finished marker");
  RUNG_CHECK(!preceding_, "a marker made by precede() cannot be abandoned");
  live_ = false;
  // The usual case leaves no trace; otherwise the placeholder stays as a Tombstone.
  if (pos_ + 1 == p.out_.events.size()) p.out_.events.pop_back();
}

Marker CompletedMarker::precede(Parser& p) const {
  Marker m = p.start();
  m.preceding_ = true;
  p.out_.events[start_].data = m.pos_ - start_;
  return m;
}

CompletedMarker CompletedMarker::change_kind(Parser& p, SyntaxKind kind) const {
  p.out_.events[start_].syntax = kind;
  return CompletedMarker(start_, kind);
}

Parser::Parser(const Lexed& lexed, SourceId source) : lexed_(lexed), source_(source) {
  RUNG_CHECK(lexed.size() > 0 && lexed.kind(lexed.size() - 1) == SyntaxKind::END_OF_FILE,
             "the lexer ends every file with END_OF_FILE");
  pos_ = skip_trivia(0);
  // About three events per significant token in typical code (names and paths are nodes of
  // their own); reserving more (address space only) saves copying millions of events.
  out_.events.reserve(lexed.size() * 3 + 16);
}

std::string_view Parser::nth_text(std::size_t n) const { return lexed_.text(nth_index(n)); }

bool Parser::at_contextual(SyntaxKind kw, std::size_t n) {
  return nth(n) == SyntaxKind::IDENT && nth_text(n) == fixed_text(kw);
}

void Parser::push_token(SyntaxKind kind) {
  RUNG_CHECK(pos_ + 1 < lexed_.size(), "bumping past the end of the file");
  // A token the lexer complained about taints its statement: later errors there are echoes.
  if (lexed_.has_error(pos_) && !poisoned_.empty()) poisoned_.back() = true;
  out_.events.push_back(Event{EventKind::Token, kind, pos_});
  prev_ = pos_;
  pos_ = skip_trivia(pos_ + 1);
  steps_ = 0;
}

void Parser::bump() { push_token(current()); }

void Parser::bump_remap(SyntaxKind k) {
  current();  // counts as a step like any lookahead
  push_token(k);
}

bool Parser::eat(SyntaxKind k) {
  if (!at(k)) return false;
  bump();
  return true;
}

std::string Parser::found() {
  SyntaxKind k = current();
  switch (k) {
    case SyntaxKind::IDENT:
    case SyntaxKind::INT_NUMBER:
    case SyntaxKind::FLOAT_NUMBER: {
      std::string_view t = nth_text(0);
      if (t.size() > 24) return "`" + std::string(t.substr(0, 21)) + "...`";
      return "`" + std::string(t) + "`";
    }
    default: return std::string(describe(k));
  }
}

Span Parser::token_span(std::uint32_t i) const { return Span{source_, lexed_.begin(i), lexed_.end(i)}; }

Span Parser::current_span() {
  // At the end of the file, point just after the last real token: that is where the
  // missing text belongs, not below trailing comments.
  if (current() == SyntaxKind::END_OF_FILE && prev_ != UINT32_MAX) {
    std::uint32_t end = lexed_.end(prev_);
    return Span{source_, end, end};
  }
  return token_span(pos_);
}

bool Parser::expect(SyntaxKind k) {
  if (eat(k)) return true;
  std::string msg = "expected " + std::string(describe(k)) + ", found " + found();
  if (k == SyntaxKind::SEMICOLON) error_after_prev("E1101", std::move(msg));
  else error("E1101", std::move(msg));
  return false;
}

bool Parser::expect_closing(SyntaxKind close, std::uint32_t open_tok) {
  if (eat(close)) return true;
  Span open = token_span(open_tok);
  std::string open_text(lexed_.text(open_tok));
  Diagnostic* d = error("E1107", "expected " + std::string(describe(close)) + " to close `" + open_text +
                                     "`, found " + found());
  if (d) {
    d->labels.front().message = "expected " + std::string(describe(close)) + " here";
    d->secondary(open, "`" + open_text + "` opened here");
  }
  return false;
}

Marker Parser::start() {
  auto pos = static_cast<std::uint32_t>(out_.events.size());
  out_.events.push_back(Event{EventKind::Tombstone, SyntaxKind::ERROR, 0});
  return Marker(pos);
}

Diagnostic* Parser::report(const char* code, std::string message, Span span) {
  if (stuck_) return nullptr;
  bool suppressed = last_error_pos_ == pos_ || (!poisoned_.empty() && poisoned_.back()) || lexed_.has_error(pos_);
  if (!poisoned_.empty()) poisoned_.back() = true;
  last_error_pos_ = pos_;
  if (suppressed) return nullptr;
  Diagnostic d;
  d.code = code;
  d.message = std::move(message);
  d.primary(span);
  out_.events.push_back(Event{EventKind::Error, SyntaxKind::ERROR, static_cast<std::uint32_t>(out_.diagnostics.size())});
  out_.diagnostics.push_back(std::move(d));
  return &out_.diagnostics.back();
}

Diagnostic* Parser::error(const char* code, std::string message) {
  return report(code, std::move(message), current_span());
}

Diagnostic* Parser::error_after_prev(const char* code, std::string message) {
  if (prev_ == UINT32_MAX) return error(code, std::move(message));
  std::uint32_t end = lexed_.end(prev_);
  return report(code, std::move(message), Span{source_, end, end});
}

void Parser::err_recover(const char* code, std::string message, TokenSet recovery) {
  error(code, std::move(message));
  if (at(recovery) || at(SyntaxKind::R_CURLY) || at(SyntaxKind::END_OF_FILE)) return;
  Marker m = start();
  bump();
  m.complete(*this, SyntaxKind::ERROR);
}

namespace {
bool is_open(SyntaxKind k) { return k == SyntaxKind::L_PAREN || k == SyntaxKind::L_BRACK || k == SyntaxKind::L_CURLY; }
bool is_close(SyntaxKind k) { return k == SyntaxKind::R_PAREN || k == SyntaxKind::R_BRACK || k == SyntaxKind::R_CURLY; }
// Words that only ever start an item: skipping stops at them even inside brackets, so one
// unbalanced `{` in garbage cannot swallow the rest of the file.
constexpr TokenSet kHardStop = {SyntaxKind::FN_KW, SyntaxKind::STRUCT_KW, SyntaxKind::IMPORT_KW,
                                SyntaxKind::MODULE_KW, SyntaxKind::EXPORT_KW};
}  // namespace

void Parser::skip_balanced_until(TokenSet stop) {
  if (at(SyntaxKind::END_OF_FILE) || at(stop) || at(kHardStop)) return;
  Marker m = start();
  int depth = 0;
  while (!at(SyntaxKind::END_OF_FILE)) {
    SyntaxKind k = current();
    if (kHardStop.contains(k)) break;
    if (depth == 0 && stop.contains(k)) break;
    if (is_open(k)) ++depth;
    if (is_close(k) && depth > 0) --depth;
    bump();
  }
  m.complete(*this, SyntaxKind::ERROR);
}

CompletedMarker Parser::skip_group() {
  Marker m = start();
  int depth = 0;
  do {
    SyntaxKind k = current();
    if (k == SyntaxKind::END_OF_FILE) break;
    if (is_open(k)) ++depth;
    if (is_close(k)) --depth;
    bump();
  } while (depth > 0);
  return m.complete(*this, SyntaxKind::ERROR);
}

CompletedMarker Parser::too_deep() {
  error("E1198", "this nests too deeply (the limit is " + std::to_string(kMaxDepth) + " levels)");
  // Skip the rest of the construct, to where an enclosing list or statement continues,
  // so the levels above see their own delimiters and nothing else.
  constexpr TokenSet stop = {SyntaxKind::COMMA, SyntaxKind::SEMICOLON, SyntaxKind::R_PAREN, SyntaxKind::R_BRACK,
                             SyntaxKind::R_CURLY};
  Marker m = start();
  int depth = 0;
  while (!at(SyntaxKind::END_OF_FILE) && !at(kHardStop) && !(depth == 0 && at(stop))) {
    SyntaxKind k = current();
    if (is_open(k)) ++depth;
    if (is_close(k)) --depth;
    bump();
  }
  return m.complete(*this, SyntaxKind::ERROR);
}

void Parser::drain() {
  if (!stuck_) {
    RUNG_CHECK(pos_ + 1 == lexed_.size(), "the grammar left tokens unconsumed");
    return;
  }
  stuck_ = false;
  steps_ = 0;
  Diagnostic d;
  d.code = "E1199";
  d.message = "the parser stopped making progress here; the rest of the file is not parsed (this is a bug in rung)";
  d.primary(token_span(pos_));
  out_.events.push_back(Event{EventKind::Error, SyntaxKind::ERROR, static_cast<std::uint32_t>(out_.diagnostics.size())});
  out_.diagnostics.push_back(std::move(d));
  Marker m = start();
  while (pos_ + 1 < lexed_.size()) push_token(lexed_.kind(pos_));
  m.complete(*this, SyntaxKind::ERROR);
}

ParseOutput Parser::finish() { return std::move(out_); }

}  // namespace rung::syntax
