#include "ir/block/block.h"

#include <algorithm>

#include "base/canonical.h"
#include "base/check.h"
#include "ir/block/codec.h"

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

Hash256 Program::hash() const {
  CanonicalWriter w;
  w.raw(std::string_view("rung/blockir/program\0", 21));
  encode_program(*this, w);
  return sha3_256(w.data());
}

}  // namespace rung::block
