// The red layer over the green tree: SyntaxNode and SyntaxToken are cheap handles that add
// what green nodes leave out, the parent and the absolute byte offset. Red data is made on
// first visit and cached in the tree's arena, so handles stay valid as long as the tree.
// A tree is immutable but not thread-safe (the cache fills lazily).
//
// Trees can be deep (a sum of ten thousand terms is ten thousand nested BIN_EXPRs); the
// walkers here use parent links, not recursion.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "syntax/green.h"

namespace rung::syntax {

class SyntaxTree;
class SyntaxNode;
class SyntaxToken;

struct TextRange {
  std::uint32_t begin = 0, end = 0;
  std::uint32_t size() const { return end - begin; }
  bool contains(std::uint32_t offset) const { return offset >= begin && offset < end; }
  friend bool operator==(const TextRange&, const TextRange&) = default;
};

namespace detail {
struct TreeData;  // the arena and roots; lives on the heap so trees can move
struct RedData {
  const GreenNode* green;
  const RedData* parent;
  std::uint32_t offset;
  std::uint32_t index;  // among the parent's children
  TreeData* owner;
  mutable const RedData** kids = nullptr;   // per child: its red data once made (null for tokens)
  mutable std::uint32_t* starts = nullptr;  // per child: its absolute offset, then the end
};
}  // namespace detail

// A node or a token.
class SyntaxElement;

class SyntaxNode {
 public:
  SyntaxNode() = default;
  explicit operator bool() const { return d_ != nullptr; }
  friend bool operator==(const SyntaxNode& a, const SyntaxNode& b) { return a.d_ == b.d_; }

  SyntaxKind kind() const { return d_->green->kind(); }
  TextRange range() const { return {d_->offset, d_->offset + d_->green->width()}; }
  const GreenNode& green() const { return *d_->green; }
  std::string text() const;

  SyntaxNode parent() const { return SyntaxNode(d_->parent); }
  std::uint32_t index_in_parent() const { return d_->index; }
  std::uint32_t child_count() const { return d_->green->child_count(); }
  SyntaxElement child(std::uint32_t i) const;

  SyntaxNode first_child() const;                     // first child node
  SyntaxNode first_child(SyntaxKind kind) const;      // first child node of `kind`
  SyntaxToken first_child_token(SyntaxKind kind) const;
  SyntaxNode next_sibling() const;                    // next sibling node
  SyntaxToken first_token() const;                    // first token anywhere below, trivia included
  SyntaxToken last_token() const;
  // The token whose range holds `offset` (at a boundary, the one that starts there).
  SyntaxToken token_at_offset(std::uint32_t offset) const;

  // Child nodes (tokens skipped), for range-for.
  class ChildNodes;
  ChildNodes children() const;

 private:
  friend class SyntaxElement;
  friend class SyntaxToken;
  friend class SyntaxTree;
  explicit SyntaxNode(const detail::RedData* d) : d_(d) {}
  const detail::RedData* d_ = nullptr;
};

class SyntaxToken {
 public:
  SyntaxToken() = default;
  explicit operator bool() const { return parent_ != nullptr; }
  friend bool operator==(const SyntaxToken& a, const SyntaxToken& b) {
    return a.parent_ == b.parent_ && a.index_ == b.index_;
  }

  SyntaxKind kind() const { return green()->kind; }
  std::string_view text() const { return green()->text(); }
  TextRange range() const;
  SyntaxNode parent() const { return SyntaxNode(parent_); }
  std::uint32_t index_in_parent() const { return index_; }
  // The neighbouring tokens in file order, trivia included; null at either end.
  SyntaxToken next_token() const;
  SyntaxToken prev_token() const;

 private:
  friend class SyntaxNode;
  friend class SyntaxElement;
  SyntaxToken(const detail::RedData* parent, std::uint32_t index) : parent_(parent), index_(index) {}
  const GreenToken* green() const { return parent_->green->child(index_).token(); }
  const detail::RedData* parent_ = nullptr;
  std::uint32_t index_ = 0;
};

class SyntaxElement {
 public:
  SyntaxElement() = default;
  SyntaxElement(SyntaxNode n) : node_(n) {}     // NOLINT: implicit by design
  SyntaxElement(SyntaxToken t) : token_(t) {}   // NOLINT
  bool is_node() const { return static_cast<bool>(node_); }
  bool is_token() const { return static_cast<bool>(token_); }
  SyntaxNode node() const { return node_; }
  SyntaxToken token() const { return token_; }
  SyntaxKind kind() const { return is_node() ? node_.kind() : token_.kind(); }
  TextRange range() const { return is_node() ? node_.range() : token_.range(); }
  SyntaxNode parent() const { return is_node() ? node_.parent() : token_.parent(); }
  std::uint32_t index_in_parent() const { return is_node() ? node_.index_in_parent() : token_.index_in_parent(); }

 private:
  SyntaxNode node_;
  SyntaxToken token_;
};

class SyntaxNode::ChildNodes {
 public:
  class iterator {
   public:
    iterator(SyntaxNode parent, std::uint32_t i) : parent_(parent), i_(i) { skip(); }
    SyntaxNode operator*() const { return parent_.child(i_).node(); }
    iterator& operator++() {
      ++i_;
      skip();
      return *this;
    }
    bool operator!=(const iterator& o) const { return i_ != o.i_; }

   private:
    void skip() {
      while (i_ < parent_.child_count() && parent_.green().child(i_).is_token()) ++i_;
    }
    SyntaxNode parent_;
    std::uint32_t i_;
  };
  explicit ChildNodes(SyntaxNode n) : n_(n) {}
  iterator begin() const { return iterator(n_, 0); }
  iterator end() const { return iterator(n_, n_.child_count()); }

 private:
  SyntaxNode n_;
};

inline SyntaxNode::ChildNodes SyntaxNode::children() const { return ChildNodes(*this); }

// Pre-order walk over every element below (and including) a node, with explicit enter and
// leave steps; no recursion.
class Preorder {
 public:
  struct Step {
    bool enter;  // false: leaving a node (tokens are only entered)
    SyntaxElement element;
  };
  explicit Preorder(SyntaxNode root);
  bool next(Step& out);  // false when the walk is over

 private:
  SyntaxNode root_;
  SyntaxElement pending_;
  bool pending_enter_ = true;
  bool done_ = false;
};

// A parsed file: the green root, its red cache, and the text the tokens point into.
class SyntaxTree {
 public:
  // Takes the arena holding `root` (and the text its tokens point into).
  SyntaxTree(std::unique_ptr<Arena> arena, const GreenNode* root);
  SyntaxTree(SyntaxTree&&) noexcept;
  SyntaxTree& operator=(SyntaxTree&&) noexcept;
  ~SyntaxTree();

  SyntaxNode root() const;
  const GreenNode& green_root() const;
  // The text of every token in order: equal to the parsed input, byte for byte.
  std::string text() const;
  std::size_t arena_bytes() const;

 private:
  std::unique_ptr<detail::TreeData> data_;
};

}  // namespace rung::syntax
