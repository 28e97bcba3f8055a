#include "ir/block/codec.h"

#include <algorithm>

#include "base/utf8.h"

namespace rung::block {
namespace {

void encode_slots(CanonicalWriter& w, const std::vector<SlotId>& v) {
  w.u32(static_cast<std::uint32_t>(v.size()));
  for (SlotId s : v) w.u32(s);
}

// Statements in pre-order: each statement's header, then its cond_body, body and else_body
// statements in full. Iterative over nested bodies: (statement list, index) frames.
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
    w.u32(static_cast<std::uint32_t>(s.cond_body.size()));
    w.u32(static_cast<std::uint32_t>(s.body.size()));
    w.u32(static_cast<std::uint32_t>(s.else_body.size()));
    // Pushed reversed, so cond_body is written first.
    if (!s.else_body.empty()) stack.push_back({&s.else_body, 0});
    if (!s.body.empty()) stack.push_back({&s.body, 0});
    if (!s.cond_body.empty()) stack.push_back({&s.cond_body, 0});
  }
}

// Smallest encodings, so a count can be checked against the bytes left before allocating.
constexpr std::size_t kMinStmt = 1 + 4 + 4 + 4 + 4 + 4 + 3 * 4;
constexpr std::size_t kMinFunction = 4 + 1 + 4 + 4 + 4 + 4 + 4 + 4;
constexpr std::size_t kMinSlot = 4 + 1 + 1 + 4 + 1;
constexpr std::size_t kMinItem = 4 + 1 + 4;
constexpr std::size_t kMinDim = 1 + 4;

struct Failed {};  // the diagnostic is reported; abandon the section

class Decoder {
 public:
  Decoder(std::span<const std::uint8_t> payload, std::uint64_t base, SourceId src, DiagnosticSink& d)
      : payload_(payload), base_(base), r_(payload, base), src_(src), d_(d) {}

  std::optional<Program> run() {
    Program p;
    try {
      p.module = str("the module name");
      p.determinism.tier = str("the tier");
      p.determinism.tolerance = str("the tolerance");
      std::uint32_t n = count("function count", kMinFunction);
      p.functions.reserve(n);
      for (std::uint32_t i = 0; i < n; ++i) function(p.functions.emplace_back());
      if (!r_.at_end()) fail("has " + std::to_string(r_.remaining()) + " bytes of unexplained trailing data", r_.file_offset());
      // Canonical form: the bytes must be exactly what the decoded program encodes to (names
      // sorted and unique, flags 0 or 1, unused fields 0), so one program has one encoding.
      CanonicalWriter again;
      encode_program(p, again);
      const auto& b = again.data();
      auto diff = std::mismatch(b.begin(), b.end(), payload_.begin(), payload_.end());
      if (diff.first != b.end() || diff.second != payload_.end())
        fail("is not in canonical form (functions sorted by name and unique, effects sorted and unique, flags 0 or 1, an "
             "empty print item's slot 0): it first differs from the canonical encoding here",
             base_ + static_cast<std::uint64_t>(diff.second - payload_.begin()));
    } catch (const Failed&) {
      return std::nullopt;
    }
    return p;
  }

 private:
  [[noreturn]] void fail(const std::string& msg, std::uint64_t at) {
    d_.error("K0022", "section 'blockir': " + msg).primary(Span{src_, static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(at + 1)});
    throw Failed{};
  }
  [[noreturn]] void truncated(const std::string& what) { fail("ends in the middle of " + what, r_.file_offset()); }

  std::uint8_t u8(const char* what) {
    std::uint8_t v;
    if (!r_.u8(v)) truncated(what);
    return v;
  }
  std::uint32_t u32(const char* what) {
    std::uint32_t v;
    if (!r_.u32(v)) truncated(what);
    return v;
  }
  std::uint64_t u64(const char* what) {
    std::uint64_t v;
    if (!r_.u64(v)) truncated(what);
    return v;
  }
  bool flag(const char* what) { return u8(what) != 0; }  // not 0/1: caught by the canonical check
  std::string str(const char* what) {
    std::uint64_t at = r_.file_offset();
    std::uint32_t len = u32(what);
    std::span<const std::uint8_t> b;
    if (!r_.take(len, b)) truncated(what);
    std::string s(b.begin(), b.end());
    if (std::size_t bad = utf8::first_invalid(s); bad != s.size())
      fail(std::string(what) + " is not valid UTF-8", at + 4 + bad);
    return s;
  }
  // A count of records of at least `min_size` bytes each, all still to be read.
  std::uint32_t count(const char* what, std::size_t min_size) {
    std::uint64_t at = r_.file_offset();
    std::uint32_t n = u32(what);
    if (std::uint64_t{n} * min_size > r_.remaining())
      fail(std::string(what) + " is " + std::to_string(n) + ", but only " + std::to_string(r_.remaining()) +
               " bytes remain (each needs at least " + std::to_string(min_size) + ")", at);
    return n;
  }
  std::vector<SlotId> slots(const char* what) {
    std::uint32_t n = count(what, 4);
    std::vector<SlotId> v(n);
    for (auto& s : v) s = u32(what);
    return v;
  }

  TensorType type() {
    std::uint64_t at = r_.file_offset();
    TensorType t;
    auto dt = dtype_from_code(u8("a slot's dtype"));
    if (!dt) fail("a slot's type has an unknown dtype code", at);
    auto space = memspace_from_code(u8("a slot's memory space"));
    if (!space) fail("a slot's type has an unknown memory space code", at + 1);
    t.dtype = *dt;
    t.space = *space;
    std::uint32_t rank = count("a slot's rank", kMinDim);
    t.shape.reserve(rank);
    for (std::uint32_t d = 0; d < rank; ++d) {
      std::uint64_t dim_at = r_.file_offset();
      std::uint8_t tag = u8("a dimension");
      if (tag == 0) {
        t.shape.push_back(Dim::fixed(u64("a dimension extent")));
      } else if (tag == 1) {
        std::string sym = str("a symbolic dimension");
        if (sym.empty()) fail("a symbolic dimension has an empty name", dim_at);
        t.shape.push_back(Dim::symbol(std::move(sym)));
      } else {
        fail("dimension tag " + std::to_string(tag) + " is neither 0 (static) nor 1 (symbolic)", dim_at);
      }
    }
    return t;
  }

  void function(Function& f) {
    f.name = str("a function name");
    f.exported = flag("a function's export flag");
    f.tier = str("a function's tier");
    std::uint32_t ne = count("effect count", 4);
    for (std::uint32_t i = 0; i < ne; ++i) f.effects.insert(str("an effect"));
    std::uint32_t ns = count("slot count", kMinSlot);
    f.slots.reserve(ns);
    for (std::uint32_t i = 0; i < ns; ++i) {
      Slot& s = f.slots.emplace_back();
      s.name = str("a slot name");
      s.type = type();
      s.is_mutable = flag("a slot's mutable flag");
    }
    f.params = slots("the parameter slots");
    f.results = slots("the result slots");
    body(f.body);
  }

  // Statements in pre-order, without recursion: a frame per statement list being filled.
  // `pending_` counts statements declared and not yet read, in every open list: each needs
  // kMinStmt bytes, so hostile counts cannot reserve more than the bytes left justify.
  void body(std::vector<Stmt>& top) {
    struct Frame {
      std::vector<Stmt>* list;
      std::uint32_t left;
    };
    std::vector<Frame> stack;
    auto open = [&](std::vector<Stmt>& list, const char* what) {
      std::uint64_t at = r_.file_offset();
      std::uint32_t n = u32(what);
      if ((pending_ + n) * kMinStmt > r_.remaining())
        fail(std::string(what) + " is " + std::to_string(n) + ", but the " + std::to_string(r_.remaining()) +
                 " bytes left cannot hold that many statements", at);
      pending_ += n;
      list.reserve(n);  // filled in place: references to its statements stay valid
      return n;
    };
    std::uint32_t n = open(top, "statement count");
    if (n) stack.push_back({&top, n});
    while (!stack.empty()) {
      if (stack.back().left == 0) {
        stack.pop_back();
        continue;
      }
      --stack.back().left;
      --pending_;
      std::size_t depth = stack.size();
      std::uint64_t begin = r_.file_offset();
      Stmt& s = stack.back().list->emplace_back();
      std::uint8_t kind = u8("a statement kind");
      if (kind < static_cast<std::uint8_t>(StmtKind::compute) || kind > static_cast<std::uint8_t>(StmtKind::continue_loop))
        fail("statement kind " + std::to_string(kind) + " is unknown (1.." +
                 std::to_string(static_cast<int>(StmtKind::continue_loop)) + ")", begin);
      s.kind = static_cast<StmtKind>(kind);
      s.args = slots("a statement's argument slots");
      s.results = slots("a statement's result slots");
      if (s.kind == StmtKind::compute && !r_.hash(s.region)) truncated("a compute statement's region hash");
      s.callee = str("a statement's callee");
      s.text = str("a statement's text");
      std::uint32_t ni = count("print item count", kMinItem);
      s.items.reserve(ni);
      for (std::uint32_t i = 0; i < ni; ++i) {
        PrintItem& it = s.items.emplace_back();
        it.text = str("a print item");
        bool has = flag("a print item's slot flag");
        std::uint32_t slot = u32("a print item's slot");
        if (has) it.slot = slot;
      }
      std::uint64_t nested_at = r_.file_offset();
      std::uint32_t nc = open(s.cond_body, "a condition's statement count");
      std::uint32_t nb = open(s.body, "a body's statement count");
      std::uint32_t ne = open(s.else_body, "an else body's statement count");
      s.span = Span{src_, static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(r_.file_offset())};
      if ((nc || nb || ne) && depth + 1 > kMaxNesting)
        fail("statements nest deeper than " + std::to_string(kMaxNesting) + " levels", nested_at);
      if (ne) stack.push_back({&s.else_body, ne});
      if (nb) stack.push_back({&s.body, nb});
      if (nc) stack.push_back({&s.cond_body, nc});
    }
  }

  std::span<const std::uint8_t> payload_;
  std::uint64_t base_;
  ByteReader r_;
  SourceId src_;
  DiagnosticSink& d_;
  std::uint64_t pending_ = 0;
};

}  // namespace

void encode_program(const Program& p, CanonicalWriter& w) {
  w.str(p.module);
  w.str(p.determinism.tier);
  w.str(p.determinism.tolerance);
  std::vector<const Function*> sorted;
  for (const auto& f : p.functions) sorted.push_back(&f);
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
}

std::uint32_t nesting_depth(const Program& p) {
  std::uint32_t deepest = 0;
  std::vector<std::pair<const std::vector<Stmt>*, std::uint32_t>> stack;
  for (const auto& f : p.functions) stack.push_back({&f.body, 1});
  while (!stack.empty()) {
    auto [list, depth] = stack.back();
    stack.pop_back();
    if (!list->empty()) deepest = std::max(deepest, depth);
    for (const auto& s : *list)
      for (const auto* nested : {&s.cond_body, &s.body, &s.else_body}) stack.push_back({nested, depth + 1});
  }
  return deepest;
}

std::optional<Program> decode_program(std::span<const std::uint8_t> payload, std::uint64_t file_offset, SourceId source,
                                      DiagnosticSink& diags) {
  return Decoder(payload, file_offset, source, diags).run();
}

}  // namespace rung::block
