#include "syntax/green.h"

#include <algorithm>
#include <utility>

#include "base/check.h"

namespace rung::syntax {

void* Arena::allocate(std::size_t bytes, std::size_t align) {
  RUNG_CHECK(align <= alignof(std::max_align_t), "over-aligned arena allocation");
  std::size_t pad = left_ ? (align - reinterpret_cast<std::uintptr_t>(cursor_) % align) % align : 0;
  if (pad + bytes > left_) {
    // Blocks grow with the tree so big files need few of them; huge requests get their own.
    std::size_t size = std::max<std::size_t>(bytes, std::size_t{4096} << std::min<std::size_t>(blocks_.size(), 10));
    blocks_.push_back(std::make_unique<std::byte[]>(size));
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
