#include "syntax/comments.h"

#include <algorithm>

namespace rung::syntax {
namespace {

std::string_view trim_end(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\f' || s.back() == '\v'))
    s.remove_suffix(1);
  return s;
}

}  // namespace

CommentMap::CommentMap(SyntaxNode root) {
  has_comments_.resize(root.range().end + 1);
  blank_before_.resize(root.range().end + 1);
  std::vector<Comment> pending;
  std::uint32_t prev = kEnd;  // offset of the previous significant token, kEnd before the first
  int newlines = 0;           // since the last token or comment
  bool at_start = true;

  // Splits the comments between `prev` and the token at `next` into prev's trailing and
  // next's leading ones.
  auto settle = [&](std::uint32_t next) {
    std::size_t split = 0;
    if (prev != kEnd) {
      std::size_t same_line = 0;
      while (same_line < pending.size() && !pending[same_line].newline_before) ++same_line;
      if (same_line > 0 && pending[same_line - 1].newline_after) split = same_line;
    }
    if (split > 0) {
      has_comments_[prev] = true;
      auto& t = map_[prev].trailing;
      t.insert(t.end(), pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(split));
    }
    if (split < pending.size()) {
      if (next != kEnd) has_comments_[next] = true;
      auto& l = map_[next].leading;
      l.insert(l.end(), pending.begin() + static_cast<std::ptrdiff_t>(split), pending.end());
    }
    count_ += pending.size();
    pending.clear();
  };

  for (SyntaxToken t = root.first_token(); t; t = t.next_token()) {
    SyntaxKind k = t.kind();
    if (k == SyntaxKind::WHITESPACE) {
      int n = static_cast<int>(std::count(t.text().begin(), t.text().end(), '\n'));
      if (n > 0 && !pending.empty() && newlines == 0) pending.back().newline_after = true;
      newlines += n;
      continue;
    }
    if (is_comment(k)) {
      Comment c;
      c.line_comment = k != SyntaxKind::BLOCK_COMMENT;
      c.text = c.line_comment ? trim_end(t.text()) : t.text();
      c.newline_before = at_start || newlines > 0;
      c.blank_before = newlines >= 2;
      // A line comment runs to the end of its line by definition.
      c.newline_after = c.line_comment;
      pending.push_back(c);
      newlines = 0;
      at_start = false;
      continue;
    }
    std::uint32_t offset = t.range().begin;
    if (newlines >= 2) blank_before_[offset] = true;
    settle(offset);
    prev = offset;
    newlines = 0;
    at_start = false;
  }
  if (!pending.empty() && newlines > 0) pending.back().newline_after = true;
  settle(kEnd);
}


}  // namespace rung::syntax
