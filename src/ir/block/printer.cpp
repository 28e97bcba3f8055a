#include "ir/block/printer.h"

namespace rung::block {
namespace {

std::string slot_name(const Function& f, SlotId s) {
  if (s >= f.slots.size()) return "%?" + std::to_string(s);
  return "%" + std::to_string(s) + (f.slots[s].name.empty() ? "" : ":" + f.slots[s].name);
}

std::string list(const Function& f, const std::vector<SlotId>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + slot_name(f, v[i]);
  return s;
}

void print_body(std::string& out, const Program& p, const Function& f, const std::vector<Stmt>& body, int depth) {
  std::string ind(2 * depth, ' ');
  for (const auto& s : body) {
    std::string lhs = s.results.empty() || s.kind == StmtKind::for_range ? "" : list(f, s.results) + " = ";
    switch (s.kind) {
      case StmtKind::compute: {
        auto r = p.graph.find_region(s.region);
        out += ind + lhs + "compute @" + (r ? p.graph.region(*r).name : "?") + "#" + s.region.short_hex(8) + "(" + list(f, s.args) + ")\n";
        break;
      }
      case StmtKind::call: out += ind + lhs + "call " + s.callee + "(" + list(f, s.args) + ")\n"; break;
      case StmtKind::for_range:
        out += ind + "for " + (s.results.empty() ? "?" : slot_name(f, s.results[0])) + " in " + (s.args.size() == 2 ? slot_name(f, s.args[0]) + ".." + slot_name(f, s.args[1]) : "?") + " {\n";
        print_body(out, p, f, s.body, depth + 1);
        out += ind + "}\n";
        break;
      case StmtKind::while_loop:
        out += ind + "while {\n";
        print_body(out, p, f, s.cond_body, depth + 1);
        out += ind + "} test " + list(f, s.args) + " {\n";
        print_body(out, p, f, s.body, depth + 1);
        out += ind + "}\n";
        break;
      case StmtKind::if_else:
        out += ind + "if " + list(f, s.args) + " {\n";
        print_body(out, p, f, s.body, depth + 1);
        if (!s.else_body.empty()) {
          out += ind + "} else {\n";
          print_body(out, p, f, s.else_body, depth + 1);
        }
        out += ind + "}\n";
        break;
      case StmtKind::assign: out += ind + lhs + list(f, s.args) + "\n"; break;
      case StmtKind::print: {
        out += ind + "print";
        for (const auto& it : s.items) out += " " + (it.slot ? slot_name(f, *it.slot) : "\"" + it.text + "\"");
        out += "\n";
        break;
      }
      case StmtKind::read: out += ind + lhs + "read " + s.callee + " \"" + s.text + "\"\n"; break;
      case StmtKind::ret: out += ind + "return " + list(f, s.args) + "\n"; break;
      case StmtKind::break_loop:
      case StmtKind::continue_loop: out += ind + std::string(stmt_kind_name(s.kind)) + "\n"; break;
    }
  }
}

}  // namespace

std::string print(const Program& p) {
  std::string out = "module " + p.module + "  tier " + p.determinism.tier + "  tolerance " + p.determinism.tolerance +
                    "  ; blockir " + p.hash().short_hex(16) + "\n\n";
  for (const auto& f : p.functions) {
    out += std::string(f.exported ? "export " : "") + "fn " + f.name + "(";
    for (std::size_t i = 0; i < f.params.size(); ++i) {
      SlotId s = f.params[i];
      out += (i ? ", " : "") + slot_name(f, s) + ": " + (s < f.slots.size() ? f.slots[s].type.to_string() : "?");
    }
    out += ") -> (" + list(f, f.results) + ")";
    if (!f.effects.empty()) {
      out += " !{";
      bool first = true;
      for (const auto& e : f.effects) out += (first ? "" : ", ") + e, first = false;
      out += "}";
    }
    if (!f.tier.empty()) out += " tier " + f.tier;
    out += " {\n";
    for (SlotId s = 0; s < f.slots.size(); ++s)
      out += "  ; " + slot_name(f, s) + ": " + f.slots[s].type.to_string() + (f.slots[s].is_mutable ? " mut" : "") + "\n";
    print_body(out, p, f, f.body, 1);
    out += "}\n\n";
  }
  return out;
}

}  // namespace rung::block
