// The lexer: bytes to tokens. Every byte of the input lands in exactly one token (trivia
// included), so concatenating token texts gives the input back. It never stops early:
// invalid bytes, stray characters and malformed literals become tokens too, each reported
// once with an E10xx diagnostic, and lexing continues after them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include "base/diagnostic.h"
#include "syntax/syntax_kind.h"

namespace rung::syntax {

class Lexed {
 public:
  std::size_t size() const { return kinds_.size(); }  // includes the final END_OF_FILE
  SyntaxKind kind(std::size_t i) const { return kinds_[i]; }
  std::uint32_t begin(std::size_t i) const { return starts_[i]; }
  std::uint32_t end(std::size_t i) const { return starts_[i + 1]; }
  std::string_view text(std::size_t i) const { return text_.substr(begin(i), end(i) - begin(i)); }
  // Whether the lexer reported a diagnostic inside token `i`.
  bool has_error(std::size_t i) const {
    return !errors_.empty() && std::binary_search(errors_.begin(), errors_.end(), static_cast<std::uint32_t>(i));
  }
  std::string_view source() const { return text_; }
  const std::vector<Diagnostic>& diagnostics() const { return diags_; }

 private:
  friend class Lexer;
  std::string_view text_;
  std::vector<SyntaxKind> kinds_;
  std::vector<std::uint32_t> starts_;  // size() + 1 entries; the last is text_.size()
  std::vector<std::uint32_t> errors_;  // indices of tokens with a diagnostic, ascending
  std::vector<Diagnostic> diags_;
};

// Lexes `text` (which must outlive the result). Diagnostics carry spans in `source`.
// The last token is a zero-width END_OF_FILE; has_error() is true for it when the file
// ended inside an unterminated block comment, so the parser knows the end was reported.
Lexed lex(std::string_view text, SourceId source = kNoSource);

}  // namespace rung::syntax
