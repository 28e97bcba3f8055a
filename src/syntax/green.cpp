#include "syntax/green.h"

#include <algorithm>
#include <utility>

#include "base/check.h"

namespace rung::syntax {

void* Arena::allocate(std::size_t bytes, std::size_t align) {
  RUNG_CHECK(align <= alignof(std::max_align_t) && (align & (align - 1)) == 0, "bad arena alignment");
  std::size_t pad = (0 - reinterpret_cast<std::uintptr_t>(cursor_)) & (align - 1);
  if (pad + bytes > left_) {
    // Blocks grow with the tree so big files need few of them; huge requests get their own.
    // Not zeroed: every object placed here is constructed.
    std::size_t size = std::max<std::size_t>(bytes, std::size_t{4096} << std::min<std::size_t>(blocks_.size(), 12));
    blocks_.push_back(std::unique_ptr<std::byte[]>(new std::byte[size]));
    cursor_ = blocks_.back().get();
    left_ = size;
    pad = 0;
  }
  void* p = cursor_ + pad;
  cursor_ += pad + bytes;
  left_ -= pad + bytes;
  used_ += pad + bytes;
  return p;
}

const GreenNode* GreenNode::make(Arena& arena, SyntaxKind kind, std::uint32_t width, const GreenElement* children,
                                 std::uint32_t count) {
  void* mem = arena.allocate(sizeof(GreenNode) + sizeof(GreenElement) * count, alignof(GreenNode));
  auto* node = new (mem) GreenNode(kind, width, count);
  auto* kids = reinterpret_cast<GreenElement*>(node + 1);
  for (std::uint32_t i = 0; i < count; ++i) new (kids + i) GreenElement(children[i]);
  return node;
}

void append_text(const GreenNode& root, std::string& out) {
  std::vector<std::pair<const GreenNode*, std::uint32_t>> stack{{&root, 0}};
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    if (next == node->child_count()) {
      stack.pop_back();
      continue;
    }
    GreenElement e = node->child(next++);
    if (e.is_token()) out += e.token()->text();
    else stack.push_back({e.node(), 0});
  }
}

}  // namespace rung::syntax
