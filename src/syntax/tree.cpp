#include "syntax/tree.h"

#include <algorithm>
#include <utility>

#include "base/check.h"

namespace rung::syntax {
namespace detail {

struct TreeData {
  std::unique_ptr<Arena> arena;
  const GreenNode* green_root = nullptr;
  const RedData* red_root = nullptr;
};

namespace {

const std::uint32_t* child_starts(const RedData* d) {
  if (!d->starts) {
    std::uint32_t n = d->green->child_count();
    auto* starts = d->owner->arena->make_array<std::uint32_t>(n + 1);
    std::uint32_t offset = d->offset;
    for (std::uint32_t i = 0; i < n; ++i) {
      starts[i] = offset;
      offset += d->green->child(i).width();
    }
    starts[n] = offset;
    d->starts = starts;
  }
  return d->starts;
}

const RedData* red_child(const RedData* d, std::uint32_t i) {
  if (!d->kids) d->kids = d->owner->arena->make_array<const RedData*>(d->green->child_count());
  if (!d->kids[i]) {
    const GreenNode* g = d->green->child(i).node();
    RUNG_CHECK(g != nullptr, "red_child on a token");
    d->kids[i] = d->owner->arena->make<RedData>(RedData{g, d, child_starts(d)[i], i, d->owner});
  }
  return d->kids[i];
}

std::uint32_t count(const RedData* d) { return d->green->child_count(); }

}  // namespace
}  // namespace detail

using detail::RedData;

namespace {

// A token as (parent, index); parent is null for "none".
using TokenRef = std::pair<const RedData*, std::uint32_t>;

// The first token at or after child `i` of `p`, in file order, never leaving `bound`
// (null: the whole tree).
TokenRef scan_forward(const RedData* p, std::uint32_t i, const RedData* bound) {
  while (p) {
    if (i < detail::count(p)) {
      if (p->green->child(i).is_token()) return {p, i};
      p = detail::red_child(p, i);
      i = 0;
      continue;
    }
    if (p == bound) return {};
    i = p->index + 1;
    p = p->parent;
  }
  return {};
}

// The last token before child `i` of `p` (child i-1 is looked at first).
TokenRef scan_backward(const RedData* p, std::uint32_t i, const RedData* bound) {
  while (p) {
    if (i > 0) {
      if (p->green->child(i - 1).is_token()) return {p, i - 1};
      p = detail::red_child(p, i - 1);
      i = detail::count(p);
      continue;
    }
    if (p == bound) return {};
    i = p->index;
    p = p->parent;
  }
  return {};
}

}  // namespace

std::string SyntaxNode::text() const {
  std::string out;
  append_text(*d_->green, out);
  return out;
}

SyntaxElement SyntaxNode::child(std::uint32_t i) const {
  RUNG_CHECK(i < child_count(), "child index out of range");
  if (d_->green->child(i).is_token()) return SyntaxToken(d_, i);
  return SyntaxNode(detail::red_child(d_, i));
}

SyntaxNode SyntaxNode::first_child() const {
  for (SyntaxNode c : children()) return c;
  return {};
}

SyntaxNode SyntaxNode::first_child(SyntaxKind kind) const {
  for (SyntaxNode c : children())
    if (c.kind() == kind) return c;
  return {};
}

SyntaxToken SyntaxNode::first_child_token(SyntaxKind kind) const {
  for (std::uint32_t i = 0; i < child_count(); ++i) {
    GreenElement e = d_->green->child(i);
    if (e.is_token() && e.token()->kind == kind) return SyntaxToken(d_, i);
  }
  return {};
}

SyntaxNode SyntaxNode::next_sibling() const {
  if (!d_->parent) return {};
  SyntaxNode parent(d_->parent);
  for (std::uint32_t i = d_->index + 1; i < parent.child_count(); ++i)
    if (!parent.green().child(i).is_token()) return parent.child(i).node();
  return {};
}

SyntaxToken SyntaxNode::first_token() const {
  auto [p, i] = scan_forward(d_, 0, d_);
  return p ? SyntaxToken(p, i) : SyntaxToken();
}

SyntaxToken SyntaxNode::last_token() const {
  auto [p, i] = scan_backward(d_, detail::count(d_), d_);
  return p ? SyntaxToken(p, i) : SyntaxToken();
}

SyntaxToken SyntaxNode::token_at_offset(std::uint32_t offset) const {
  if (offset >= range().end) return last_token();
  const RedData* p = d_;
  while (true) {
    const std::uint32_t* starts = detail::child_starts(p);
    std::uint32_t n = detail::count(p);
    // The last child starting at or before `offset`; it cannot be empty, since the next
    // child starts after `offset`.
    auto it = std::upper_bound(starts, starts + n, offset);
    auto i = static_cast<std::uint32_t>(it - starts);
    if (i == 0) return SyntaxNode(p).first_token();
    --i;
    if (p->green->child(i).is_token()) return SyntaxToken(p, i);
    p = detail::red_child(p, i);
  }
}

TextRange SyntaxToken::range() const {
  const std::uint32_t* starts = detail::child_starts(parent_);
  return {starts[index_], starts[index_ + 1]};
}

SyntaxToken SyntaxToken::next_token() const {
  auto [p, i] = scan_forward(parent_, index_ + 1, nullptr);
  return p ? SyntaxToken(p, i) : SyntaxToken();
}

SyntaxToken SyntaxToken::prev_token() const {
  auto [p, i] = scan_backward(parent_, index_, nullptr);
  return p ? SyntaxToken(p, i) : SyntaxToken();
}

Preorder::Preorder(SyntaxNode root) : root_(root), pending_(root) {}

bool Preorder::next(Step& out) {
  if (done_) return false;
  out = Step{pending_enter_, pending_};
  if (pending_enter_ && pending_.is_node() && pending_.node().child_count() > 0) {
    pending_ = pending_.node().child(0);
    return true;
  }
  if (pending_enter_ && pending_.is_node()) {
    pending_enter_ = false;  // an empty node: leave it next
    return true;
  }
  if (pending_.is_node() && pending_.node() == root_) {
    done_ = true;
    return true;
  }
  SyntaxNode parent = pending_.parent();
  std::uint32_t next = pending_.index_in_parent() + 1;
  if (next < parent.child_count()) {
    pending_ = parent.child(next);
    pending_enter_ = true;
  } else {
    pending_ = parent;
    pending_enter_ = false;
  }
  return true;
}

SyntaxTree::SyntaxTree(std::unique_ptr<Arena> arena, const GreenNode* root) : data_(std::make_unique<detail::TreeData>()) {
  data_->arena = std::move(arena);
  data_->green_root = root;
  data_->red_root = data_->arena->make<RedData>(RedData{root, nullptr, 0, 0, data_.get()});
}

SyntaxTree::SyntaxTree(SyntaxTree&&) noexcept = default;
SyntaxTree& SyntaxTree::operator=(SyntaxTree&&) noexcept = default;
SyntaxTree::~SyntaxTree() = default;

SyntaxNode SyntaxTree::root() const { return SyntaxNode(data_->red_root); }
const GreenNode& SyntaxTree::green_root() const { return *data_->green_root; }

std::string SyntaxTree::text() const {
  std::string out;
  out.reserve(data_->green_root->width());
  append_text(*data_->green_root, out);
  return out;
}

std::size_t SyntaxTree::arena_bytes() const { return data_->arena->bytes_used(); }

}  // namespace rung::syntax
