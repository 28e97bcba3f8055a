#include "ir/block/block.h"

#include <algorithm>

#include "base/canonical.h"
#include "base/check.h"

namespace rung::block {

std::string_view stmt_kind_name(StmtKind k) {
  switch (k) {
    case StmtKind::compute: return "compute";
    case StmtKind::call: return "call";
    case StmtKind::for_range: return "for";
    case StmtKind::while_loop: return "while";
    case StmtKind::if_else: return "if";
    case StmtKind::assign: return "assign";
    case StmtKind::print: return "print";
    case StmtKind::read: return "read";
    case StmtKind::ret: return "return";
    case StmtKind::break_loop: return "break";
    case StmtKind::continue_loop: return "continue";
  }
  RUNG_UNREACHABLE("invalid StmtKind");
}

const Function* Program::find(std::string_view name) const {
  for (const auto& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

namespace {

void encode_slots(CanonicalWriter& w, const std::vector<SlotId>& v) {
  w.u32(static_cast<std::uint32_t>(v.size()));
  for (SlotId s : v) w.u32(s);
}

// Iterative over nested bodies: (statement list, index) frames.
void encode_body(CanonicalWriter& w, const std::vector<Stmt>& top) {
  struct Frame {
    const std::vector<Stmt>* list;
    std::size_t next;
  };
  std::vector<Frame> stack{{&top, 0}};
  w.u32(static_cast<std::uint32_t>(top.size()));
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next == f.list->size()) {
      stack.pop_back();
      continue;
    }
    const Stmt& s = (*f.list)[f.next++];
    w.u8(static_cast<std::uint8_t>(s.kind));
    encode_slots(w, s.args);
    encode_slots(w, s.results);
    if (s.kind == StmtKind::compute) w.hash(s.region);
    w.str(s.callee);
    w.str(s.text);
    w.u32(static_cast<std::uint32_t>(s.items.size()));
    for (const auto& it : s.items) {
      w.str(it.text);
      w.boolean(it.slot.has_value());
      w.u32(it.slot.value_or(0));
    }
    // Nested lists follow in a fixed order: cond_body, body, else_body (pushed reversed).
    w.u32(static_cast<std::uint32_t>(s.cond_body.size()));
    w.u32(static_cast<std::uint32_t>(s.body.size()));
    w.u32(static_cast<std::uint32_t>(s.else_body.size()));
    if (!s.else_body.empty()) stack.push_back({&s.else_body, 0});
    if (!s.body.empty()) stack.push_back({&s.body, 0});
    if (!s.cond_body.empty()) stack.push_back({&s.cond_body, 0});
  }
}

}  // namespace

Hash256 Program::hash() const {
  CanonicalWriter w;
  w.raw(std::string_view("rung/blockir/program\0", 21));
  w.str(module);
  w.str(determinism.tier);
  w.str(determinism.tolerance);
  std::vector<const Function*> sorted;
  for (const auto& f : functions) sorted.push_back(&f);
  std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->name < b->name; });
  w.u32(static_cast<std::uint32_t>(sorted.size()));
  for (const Function* f : sorted) {
    w.str(f->name);
    w.boolean(f->exported);
    w.str(f->tier);
    w.u32(static_cast<std::uint32_t>(f->effects.size()));
    for (const auto& e : f->effects) w.str(e);
    w.u32(static_cast<std::uint32_t>(f->slots.size()));
    for (const auto& s : f->slots) {
      w.str(s.name);
      s.type.encode(w);
      w.boolean(s.is_mutable);
    }
    encode_slots(w, f->params);
    encode_slots(w, f->results);
    encode_body(w, f->body);
  }
  return sha3_256(w.data());
}

}  // namespace rung::block
