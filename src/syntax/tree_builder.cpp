#include "syntax/tree_builder.h"

#include <cstring>

#include "base/check.h"

namespace rung::syntax {
namespace {

// Nodes that take the comments written directly above them.
bool takes_leading_comments(SyntaxKind k) {
  switch (k) {
    case SyntaxKind::MODULE_DECL: case SyntaxKind::IMPORT: case SyntaxKind::TIER_DECL:
    case SyntaxKind::TOLERANCE_DECL: case SyntaxKind::STRUCT: case SyntaxKind::FN: case SyntaxKind::FIELD:
      return true;
    default: return false;
  }
}

class Builder {
 public:
  explicit Builder(const Lexed& lexed) : lexed_(lexed), arena_(std::make_unique<Arena>()) {
    // Tokens point into the arena's copy of the text, so the tree owns what it shows.
    std::string_view src = lexed.source();
    char* copy = static_cast<char*>(arena_->allocate(src.size() + 1, 1));
    std::memcpy(copy, src.data(), src.size());
    text_ = copy;
    children_.reserve(256);
    widths_.reserve(256);
    for (int k = 0; k < kTokenKindCount; ++k)
      fixed_length_[k] = static_cast<std::uint8_t>(fixed_text(static_cast<SyntaxKind>(k)).size());
  }

  void start_node(SyntaxKind kind) {
    if (!open_.empty()) {
      std::size_t keep = takes_leading_comments(kind) ? attached_trivia() : 0;
      flush_trivia(next_significant() - keep);
    }
    open_.push_back({kind, children_.size()});
  }

  void token(SyntaxKind kind, std::uint32_t lex_index) {
    RUNG_CHECK(!open_.empty(), "a token outside every node");
    flush_trivia(lex_index);
    RUNG_CHECK(next_ == lex_index, "token events out of order");
    push_token(kind, lex_index);
  }

  void finish_node() {
    RUNG_CHECK(!open_.empty(), "unbalanced Finish event");
    if (open_.size() == 1) {
      // The root keeps everything that is left: trailing trivia, never tokens.
      flush_trivia(lexed_.size() - 1);
      RUNG_CHECK(next_ + 1 == lexed_.size(), "the parser left tokens outside the tree");
    }
    auto [kind, first] = open_.back();
    open_.pop_back();
    auto count = static_cast<std::uint32_t>(children_.size() - first);
    std::uint64_t width = 0;
    for (std::size_t i = first; i < widths_.size(); ++i) width += widths_[i];
    const GreenNode* node = GreenNode::make(*arena_, kind, static_cast<std::uint32_t>(width), &children_[first], count);
    children_.resize(first);
    widths_.resize(first);
    if (open_.empty()) {
      root_ = node;
    } else {
      children_.push_back(GreenElement::of(node));
      widths_.push_back(static_cast<std::uint32_t>(width));
    }
  }

  SyntaxTree finish() {
    RUNG_CHECK(root_ != nullptr && open_.empty(), "events did not describe one root node");
    return SyntaxTree(std::move(arena_), root_);
  }

 private:
  std::size_t next_significant() const {
    std::size_t i = next_;
    while (i + 1 < lexed_.size() && is_trivia(lexed_.kind(i))) ++i;
    return i;
  }

  bool whitespace_has_blank_line(std::size_t i) const {
    std::string_view t = lexed_.text(i);
    std::size_t first = t.find('\n');
    return first != std::string_view::npos && t.find('\n', first + 1) != std::string_view::npos;
  }

  // A comment that begins its line (not one trailing code on the line above).
  bool starts_line(std::size_t i) const {
    if (i == 0) return true;
    if (lexed_.kind(i - 1) != SyntaxKind::WHITESPACE) return false;
    return i - 1 == 0 || lexed_.text(i - 1).find('\n') != std::string_view::npos;
  }

  // How many trivia tokens just before the next significant one belong to a node that
  // starts there: its comment block, up to a blank line.
  std::size_t attached_trivia() const {
    std::size_t end = next_significant();
    std::size_t begin = end;
    for (std::size_t i = end; i > next_; --i) {
      std::size_t t = i - 1;
      SyntaxKind k = lexed_.kind(t);
      if (k == SyntaxKind::WHITESPACE) {
        if (whitespace_has_blank_line(t)) break;
        continue;
      }
      if (!starts_line(t)) break;
      begin = t;
    }
    return end - begin;
  }

  void flush_trivia(std::size_t upto) {
    while (next_ < upto) {
      RUNG_CHECK(is_trivia(lexed_.kind(next_)), "a significant token was skipped");
      push_token(lexed_.kind(next_), static_cast<std::uint32_t>(next_));
    }
  }

  void push_token(SyntaxKind kind, std::uint32_t i) {
    children_.push_back(GreenElement::of(green_token(kind, i)));
    widths_.push_back(lexed_.end(i) - lexed_.begin(i));
    next_ = i + 1;
  }

  // Green tokens hold no position, so equal tokens can be one object: keywords and
  // punctuation (fixed text) and the common whitespace (" ", a newline and indentation)
  // are made once per tree. Most tokens are of these kinds; sharing them keeps a big
  // file's tree a fraction of the size.
  const GreenToken* green_token(SyntaxKind kind, std::uint32_t i) {
    std::uint32_t begin = lexed_.begin(i), length = lexed_.end(i) - begin;
    const char* text = text_ + begin;
    const GreenToken** slot = nullptr;
    // (The lexer gives keyword and punctuation tokens exactly their fixed text, and the
    // parser remaps only identifiers spelled like the keyword; the length check is a guard.)
    std::size_t fixed = fixed_length_[static_cast<std::size_t>(kind)];
    if (fixed != 0 && fixed == length) {
      slot = &by_kind_[static_cast<std::size_t>(kind)];
    } else if (kind == SyntaxKind::WHITESPACE && length <= kIndents) {
      if (length == 1 && text[0] == ' ') slot = &space_;
      else if (text[0] == '\n' && std::string_view(text + 1, length - 1).find_first_not_of(' ') == std::string_view::npos)
        slot = &newline_indent_[length - 1];
    }
    if (slot && *slot) return *slot;
    const GreenToken* t = arena_->make<GreenToken>(GreenToken{kind, length, text});
    if (slot) *slot = t;
    return t;
  }

  static constexpr std::uint32_t kIndents = 64;
  std::uint8_t fixed_length_[kTokenKindCount] = {};
  const GreenToken* by_kind_[kTokenKindCount] = {};
  const GreenToken* space_ = nullptr;
  const GreenToken* newline_indent_[kIndents] = {};

  const Lexed& lexed_;
  std::unique_ptr<Arena> arena_;
  const char* text_ = nullptr;
  std::size_t next_ = 0;  // the next lexer token to place
  std::vector<std::pair<SyntaxKind, std::size_t>> open_;
  std::vector<GreenElement> children_;  // of the open nodes, innermost last
  std::vector<std::uint32_t> widths_;   // beside them, so a node's width needs no pointer chasing
  const GreenNode* root_ = nullptr;
};

}  // namespace

SyntaxTree build_tree(const Lexed& lexed, std::vector<Event>& events) {
  Builder b(lexed);
  std::vector<SyntaxKind> chain;
  for (std::size_t i = 0; i < events.size(); ++i) {
    Event e = events[i];
    switch (e.kind) {
      case EventKind::Start: {
        // A node preceded by others (`a` in `a + b`) opens its wrappers first, outermost first.
        chain.clear();
        chain.push_back(e.syntax);
        std::size_t j = i;
        std::uint32_t fp = e.data;
        while (fp != 0) {
          j += fp;
          Event& parent = events[j];
          RUNG_CHECK(parent.kind == EventKind::Start, "a forward parent must be a Start event");
          chain.push_back(parent.syntax);
          fp = parent.data;
          parent.kind = EventKind::Tombstone;
        }
        for (auto it = chain.rbegin(); it != chain.rend(); ++it) b.start_node(*it);
        break;
      }
      case EventKind::Finish: b.finish_node(); break;
      case EventKind::Token: b.token(e.syntax, e.data); break;
      case EventKind::Error:
      case EventKind::Tombstone: break;
    }
  }
  return b.finish();
}

}  // namespace rung::syntax
