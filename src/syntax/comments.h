// Where the formatter puts comments: each comment is tied to a significant token, as a
// trailing comment of the token before it (on that token's line, with a line break after)
// or as a leading comment of the token after it. The formatter prints every token through
// this map, so no comment is lost whatever the tree shape. Blank lines are recorded too,
// so the formatter can keep (at most) one where the author left one.
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "syntax/tree.h"

namespace rung::syntax {

struct Comment {
  std::string_view text;  // line comments without trailing whitespace
  bool line_comment = false;
  bool newline_before = false;  // starts its own line
  bool newline_after = false;   // nothing else follows on its line
  bool blank_before = false;    // an empty line separates it from what precedes
};

struct TokenComments {
  std::vector<Comment> leading;
  std::vector<Comment> trailing;
};

class CommentMap {
 public:
  // The key for comments after the last token of the file.
  static constexpr std::uint32_t kEnd = UINT32_MAX;

  explicit CommentMap(SyntaxNode root);

  // Keyed by the token's start offset (or kEnd).
  const TokenComments* at(std::uint32_t offset) const {
    if (offset != kEnd && (offset >= has_comments_.size() || !has_comments_[offset])) return nullptr;
    auto it = map_.find(offset);
    return it == map_.end() ? nullptr : &it->second;
  }
  // Whether an empty line precedes the token at `offset`, ignoring its leading comments.
  bool blank_before(std::uint32_t offset) const { return offset < blank_before_.size() && blank_before_[offset]; }
  std::size_t comment_count() const { return count_; }

 private:
  std::unordered_map<std::uint32_t, TokenComments> map_;
  // By offset: most tokens have no comments, and a bit answers that without hashing.
  std::vector<bool> has_comments_;
  std::vector<bool> blank_before_;
  std::size_t count_ = 0;
};

}  // namespace rung::syntax
