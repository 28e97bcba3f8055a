#include "runtime/slot_lifetimes.h"

#include <algorithm>

namespace rung::runtime {
namespace {

using block::SlotId;
using block::Stmt;
using block::StmtKind;
using Live = std::vector<bool>;  // per slot: may be read before it is written again

class Liveness {
 public:
  explicit Liveness(const block::Function& f) : f_(f), n_(f.slots.size()) {}

  SlotDrops run() {
    Live in = body(f_.body, Live(n_));
    for (SlotId p : f_.params)
      if (p < n_ && !in[p]) out_.at_entry.push_back(p);
    return std::move(out_);
  }

 private:
  void mark(Live& l, const std::vector<SlotId>& ids) const {
    for (SlotId s : ids)
      if (s < n_) l[s] = true;
  }
  static void merge(Live& into, const Live& from) {
    for (std::size_t i = 0; i < into.size(); ++i) into[i] = into[i] || from[i];
  }
  static std::vector<SlotId> minus(const Live& a, const Live& b) {
    std::vector<SlotId> out;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a[i] && !b[i]) out.push_back(static_cast<SlotId>(i));
    return out;
  }
  // Every slot `s` or its nested statements write.
  void writes(const Stmt& s, Live& l) const {
    mark(l, s.results);
    for (const auto* list : {&s.body, &s.else_body, &s.cond_body})
      for (const auto& t : *list) writes(t, l);
  }
  // What may still be held after `s` (live into it, or written by it) and is dead after it.
  void record_after(const Stmt& s, const Live& in, const Live& out) {
    Live held = in;
    writes(s, held);
    out_.after[&s] = minus(held, out);
  }

  Live body(const std::vector<Stmt>& list, Live live) {
    for (auto it = list.rbegin(); it != list.rend(); ++it) live = stmt(*it, live);
    return live;
  }

  // Live before `s` from live after it; records the drops of `s` and its bodies. Loops
  // iterate to a fixpoint (liveness only grows), so the last recording is the final one.
  Live stmt(const Stmt& s, const Live& out) {
    switch (s.kind) {
      case StmtKind::ret: {
        Live in(n_);
        mark(in, s.args);
        return in;
      }
      case StmtKind::break_loop:
      case StmtKind::continue_loop:  // never falls through: live is what the jump's target reads
        if (loops_.empty()) return Live(n_);  // outside a loop (the verifier rejects it)
        return s.kind == StmtKind::break_loop ? loops_.back().first : loops_.back().second;
      case StmtKind::for_range: {
        const SlotId var = s.results.empty() ? static_cast<SlotId>(n_) : s.results[0];
        Live head = out;  // at the test: exit (out) or write var and run the body
        Live in_body;
        for (;;) {
          loops_.push_back({out, head});  // `break` goes on after the loop, `continue` to the test
          in_body = body(s.body, head);
          loops_.pop_back();
          Live next = in_body;
          if (var < n_) next[var] = false;
          merge(next, out);
          if (next == head) break;
          head = std::move(next);
        }
        Live at_body = head;  // held on entering the body: the head's slots, var, and (first time) lo, hi
        if (var < n_) at_body[var] = true;
        mark(at_body, s.args);
        out_.entering[&s.body] = minus(at_body, in_body);
        Live in = head;
        mark(in, s.args);
        record_after(s, in, out);
        return in;
      }
      case StmtKind::while_loop: {
        Live head(n_);  // before the condition's statements
        Live in_body, cond_out;
        for (;;) {
          loops_.push_back({out, head});  // `continue` runs the condition's statements again
          in_body = body(s.body, head);
          loops_.pop_back();
          cond_out = in_body;
          merge(cond_out, out);
          mark(cond_out, s.args);
          Live next = body(s.cond_body, cond_out);
          if (next == head) break;
          head = std::move(next);
        }
        out_.entering[&s.body] = minus(cond_out, in_body);
        record_after(s, head, out);
        return head;
      }
      case StmtKind::if_else: {
        Live in_then = body(s.body, out);
        Live in_else = body(s.else_body, out);
        Live in = in_then;
        merge(in, in_else);
        mark(in, s.args);
        out_.entering[&s.body] = minus(in, in_then);
        out_.entering[&s.else_body] = minus(in, in_else);
        record_after(s, in, out);
        return in;
      }
      case StmtKind::compute:
      case StmtKind::call:
      case StmtKind::assign:
      case StmtKind::read:
      case StmtKind::print: {
        Live in = out;
        for (SlotId r : s.results)
          if (r < n_) in[r] = false;
        mark(in, s.args);
        for (const auto& it : s.items)
          if (it.slot && *it.slot < n_) in[*it.slot] = true;
        record_after(s, in, out);
        return in;
      }
    }
    return out;
  }

  const block::Function& f_;
  std::size_t n_;
  SlotDrops out_;
  std::vector<std::pair<Live, Live>> loops_;  // the loops around the statement: live at break, at continue
};

const std::vector<SlotId> kNone;

}  // namespace

const std::vector<SlotId>& SlotDrops::after_stmt(const Stmt& s) const {
  auto it = after.find(&s);
  return it == after.end() ? kNone : it->second;
}

const std::vector<SlotId>& SlotDrops::entering_body(const std::vector<Stmt>& b) const {
  auto it = entering.find(&b);
  return it == entering.end() ? kNone : it->second;
}

SlotDrops slot_drops(const block::Function& f) { return Liveness(f).run(); }

}  // namespace rung::runtime

namespace rung::runtime {

std::vector<bool> handed_over(const SlotDrops& d, const block::Stmt& s, const std::vector<bool>& borrowed) {
  std::vector<bool> out(s.args.size(), false);
  if (s.kind != block::StmtKind::compute) return out;
  const auto& dying = d.after_stmt(s);
  for (std::size_t i = 0; i < s.args.size(); ++i) {
    SlotId id = s.args[i];
    bool dies = std::find(dying.begin(), dying.end(), id) != dying.end();
    bool once = std::count(s.args.begin(), s.args.end(), id) == 1;
    bool written = std::find(s.results.begin(), s.results.end(), id) != s.results.end();
    out[i] = dies && once && !written && !(id < borrowed.size() && borrowed[id]);
  }
  return out;
}

}  // namespace rung::runtime
