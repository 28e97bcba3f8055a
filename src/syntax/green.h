// The green tree: immutable nodes that know their kind, their width in bytes and their
// children, but not where they are (the red layer in tree.h adds positions and parents).
// Tokens keep their exact text, trivia included, so the tree prints back its input byte
// for byte. Everything lives in one arena owned by the SyntaxTree.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "syntax/syntax_kind.h"

namespace rung::syntax {

class GreenNode;

struct GreenToken {
  SyntaxKind kind;
  std::uint32_t length;
  const char* data;
  std::string_view text() const { return {data, length}; }
};

// A child of a green node: a node or a token (a tagged pointer; both are 8-aligned).
class GreenElement {
 public:
  GreenElement() = default;
  static GreenElement of(const GreenToken* t) { return GreenElement(reinterpret_cast<std::uintptr_t>(t) | 1u); }
  static GreenElement of(const GreenNode* n) { return GreenElement(reinterpret_cast<std::uintptr_t>(n)); }
  bool is_token() const { return (bits_ & 1u) != 0; }
  const GreenToken* token() const { return is_token() ? reinterpret_cast<const GreenToken*>(bits_ & ~std::uintptr_t{1}) : nullptr; }
  const GreenNode* node() const { return is_token() ? nullptr : reinterpret_cast<const GreenNode*>(bits_); }
  SyntaxKind kind() const;
  std::uint32_t width() const;

 private:
  explicit GreenElement(std::uintptr_t bits) : bits_(bits) {}
  std::uintptr_t bits_ = 0;
};

class Arena;

// A node and its children in one allocation: the header, then `count` elements.
class alignas(8) GreenNode {
 public:
  static const GreenNode* make(Arena& arena, SyntaxKind kind, std::uint32_t width, const GreenElement* children,
                               std::uint32_t count);
  SyntaxKind kind() const { return kind_; }
  std::uint32_t width() const { return width_; }
  std::uint32_t child_count() const { return count_; }
  GreenElement child(std::uint32_t i) const { return begin()[i]; }
  const GreenElement* begin() const { return reinterpret_cast<const GreenElement*>(this + 1); }
  const GreenElement* end() const { return begin() + count_; }

 private:
  GreenNode(SyntaxKind kind, std::uint32_t width, std::uint32_t count) : kind_(kind), count_(count), width_(width) {}
  SyntaxKind kind_;
  std::uint32_t count_;
  std::uint32_t width_;
};
static_assert(sizeof(GreenNode) % alignof(GreenElement) == 0);

inline SyntaxKind GreenElement::kind() const { return is_token() ? token()->kind : node()->kind(); }
inline std::uint32_t GreenElement::width() const { return is_token() ? token()->length : node()->width(); }

// Bump allocation for green and red data; freed all at once with the tree.
class Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  void* allocate(std::size_t bytes, std::size_t align);
  template <class T, class... Args>
  T* make(Args&&... args) {
    return new (allocate(sizeof(T), alignof(T))) T(std::forward<Args>(args)...);
  }
  template <class T>
  T* make_array(std::size_t n) {
    T* p = static_cast<T*>(allocate(sizeof(T) * (n ? n : 1), alignof(T)));
    for (std::size_t i = 0; i < n; ++i) new (p + i) T();
    return p;
  }
  std::size_t bytes_used() const { return used_; }

 private:
  std::vector<std::unique_ptr<std::byte[]>> blocks_;
  std::byte* cursor_ = nullptr;
  std::size_t left_ = 0;
  std::size_t used_ = 0;
};

// Appends the text of `node` to `out`; walks with an explicit stack, so any depth is fine.
void append_text(const GreenNode& node, std::string& out);

}  // namespace rung::syntax
