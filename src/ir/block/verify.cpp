#include "ir/block/verify.h"

#include <set>

namespace rung::block {
namespace {

const TensorType kI64 = tensor(DType::i64, {});
const TensorType kBool = tensor(DType::boolean, {});

class Verifier {
 public:
  Verifier(const Program& p, DiagnosticSink& d) : p_(p), d_(d) {}

  void run() {
    std::set<std::string> names;
    for (const auto& f : p_.functions) {
      if (!names.insert(f.name).second) d_.error("B0009", "function `" + f.name + "` is defined twice");
      f_ = &f;
      loops_ = 0;
      for (SlotId s : f.params) slot(s, nullptr);
      for (SlotId s : f.results) slot(s, nullptr);
      body(f.body);
    }
  }

 private:
  const Slot* slot(SlotId s, const Stmt* at) {
    if (s < f_->slots.size()) return &f_->slots[s];
    auto& e = d_.error("B0001", "in `" + f_->name + "`: slot %" + std::to_string(s) + " does not exist (" +
                                    std::to_string(f_->slots.size()) + " slots)");
    if (at) e.primary(at->span);
    return nullptr;
  }
  bool all_slots(const Stmt& s) {
    bool ok = true;
    for (SlotId x : s.args) ok = slot(x, &s) && ok;
    for (SlotId x : s.results) ok = slot(x, &s) && ok;
    for (const auto& it : s.items)
      if (it.slot) ok = slot(*it.slot, &s) && ok;
    return ok;
  }
  Diagnostic& err(const Stmt& s, const char* code, std::string msg) {
    return d_.error(code, "in `" + f_->name + "`: " + std::move(msg)).primary(s.span);
  }
  const TensorType& type(SlotId s) const { return f_->slots[s].type; }
  bool same(const TensorType& a, const TensorType& b) const { return a.type_id() == b.type_id(); }

  void types_match(const Stmt& s, const char* code, const std::string& what, const std::vector<SlotId>& slots,
                   const std::vector<TensorType>& want) {
    if (slots.size() != want.size()) {
      err(s, code, what + ": " + std::to_string(slots.size()) + " values where " + std::to_string(want.size()) + " are expected");
      return;
    }
    for (std::size_t i = 0; i < slots.size(); ++i)
      if (!same(type(slots[i]), want[i]))
        err(s, code, what + " " + std::to_string(i) + ": slot `" + f_->slots[slots[i]].name + "` is " + type(slots[i]).to_string() +
                         ", expected " + want[i].to_string());
  }

  // A call: the callee's symbolic dims bind to the caller's at this call (one symbol, one
  // dim across all arguments and results), then the types must be equal.
  void call_types_match(const Stmt& s, const std::string& what, const std::vector<SlotId>& slots,
                        std::vector<TensorType> want, std::map<std::string, Dim>& bound) {
    for (std::size_t i = 0; i < want.size() && i < slots.size(); ++i)
      if (want[i].rank() == type(slots[i]).rank())
        for (std::size_t k = 0; k < want[i].rank(); ++k) {
          Dim& d = want[i].shape[k];
          if (d.is_static()) continue;
          d = bound.emplace(d.name(), type(slots[i]).shape[k]).first->second;
        }
    types_match(s, "B0006", what, slots, want);
  }

  void body(const std::vector<Stmt>& list) {
    // Nesting comes from our own front end, bounded by source nesting; recursion is fine.
    for (const auto& s : list) stmt(s);
  }

  void stmt(const Stmt& s) {
    if (!all_slots(s)) return;
    switch (s.kind) {
      case StmtKind::compute: {
        auto r = p_.graph.find_region(s.region);
        if (!r) {
          err(s, "B0002", "compute names region " + s.region.short_hex() + ", which is not in the program's graph");
          break;
        }
        const Region& reg = p_.graph.region(*r);
        std::vector<TensorType> params, results;
        for (NodeId n : reg.params) params.push_back(p_.graph.node(n).outputs.at(0));
        for (const auto& v : reg.results) results.push_back(p_.graph.node(v.node).outputs.at(v.output));
        types_match(s, "B0003", "argument of @" + reg.name, s.args, params);
        types_match(s, "B0003", "result of @" + reg.name, s.results, results);
        break;
      }
      case StmtKind::call: {
        const Function* callee = p_.find(s.callee);
        if (!callee) {
          err(s, "B0006", "calls `" + s.callee + "`, which is not defined");
          break;
        }
        std::vector<TensorType> params, results;
        for (SlotId x : callee->params) if (x < callee->slots.size()) params.push_back(callee->slots[x].type);
        for (SlotId x : callee->results) if (x < callee->slots.size()) results.push_back(callee->slots[x].type);
        std::map<std::string, Dim> bound;
        call_types_match(s, "argument of `" + s.callee + "`", s.args, params, bound);
        call_types_match(s, "result of `" + s.callee + "`", s.results, results, bound);
        break;
      }
      case StmtKind::for_range:
        if (s.args.size() != 2 || s.results.size() != 1) {
          err(s, "B0004", "a for loop has two bounds and one variable");
          break;
        }
        for (SlotId x : {s.args[0], s.args[1], s.results[0]})
          if (!same(type(x), kI64)) err(s, "B0004", "loop slot `" + f_->slots[x].name + "` is " + type(x).to_string() + ", expected i64");
        ++loops_;
        body(s.body);
        --loops_;
        break;
      case StmtKind::while_loop:
      case StmtKind::if_else:
        if (s.args.size() != 1 || !same(type(s.args[0]), kBool)) {
          err(s, "B0005", std::string(stmt_kind_name(s.kind)) + " needs one bool scalar condition");
          break;
        }
        body(s.cond_body);
        if (s.kind == StmtKind::while_loop) ++loops_;
        body(s.body);
        if (s.kind == StmtKind::while_loop) --loops_;
        body(s.else_body);
        break;
      case StmtKind::break_loop:
      case StmtKind::continue_loop:
        if (loops_ == 0) err(s, "B0010", std::string(stmt_kind_name(s.kind)) + " outside a loop");
        if (!s.args.empty() || !s.results.empty()) err(s, "B0010", std::string(stmt_kind_name(s.kind)) + " takes no slots");
        break;
      case StmtKind::assign:
        if (s.args.size() != 1 || s.results.size() != 1) {
          err(s, "B0008", "assign copies one slot into one slot");
        } else {
          // Between slots of different memory spaces an assign is the transfer (to_device, ...).
          TensorType want = type(s.results[0]);
          want.space = type(s.args[0]).space;
          types_match(s, "B0008", "assigned value", s.args, {want});
        }
        break;
      case StmtKind::print:
      case StmtKind::read:
        if (!f_->effects.count("io"))
          err(s, "B0007", std::string(stmt_kind_name(s.kind)) + " needs the io effect, which `" + f_->name + "` does not declare");
        // The csv kinds carry `read_csv(..., header: true|false)` (csv.header / csv.noheader).
        if (s.kind == StmtKind::read && (s.results.size() != 1 || (s.callee != "csv" && s.callee != "csv.header" && s.callee != "csv.noheader" && s.callee != "npy")))
          err(s, "B0007", "read produces one slot from a csv or npy file");
        break;
      case StmtKind::ret: {
        std::vector<TensorType> want;
        for (SlotId x : f_->results) if (x < f_->slots.size()) want.push_back(f_->slots[x].type);
        types_match(s, "B0008", "returned value", s.args, want);
        break;
      }
    }
  }

  const Program& p_;
  DiagnosticSink& d_;
  const Function* f_ = nullptr;
  int loops_ = 0;  // loops around the statement being checked (break/continue need one)
};

}  // namespace

bool verify(const Program& p, DiagnosticSink& diags) {
  std::size_t before = diags.error_count();
  Verifier(p, diags).run();
  return diags.error_count() == before;
}

}  // namespace rung::block
