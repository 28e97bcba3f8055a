#include "plan/roles.h"

#include <algorithm>
#include <set>

#include "ir/graph/walk.h"

namespace rung::plan {
namespace {

bool is_role(AllocClass c) {
  return c == AllocClass::parameters || c == AllocClass::master_weights || c == AllocClass::optimizer_state;
}

// When one value plays several roles, the most specific wins.
AllocClass stronger(AllocClass a, AllocClass b) {
  auto rank = [](AllocClass c) {
    switch (c) {
      case AllocClass::master_weights: return 4;
      case AllocClass::optimizer_state: return 3;
      case AllocClass::parameters: return 2;
      case AllocClass::gradients: return 1;
      default: return 0;
    }
  };
  return rank(b) > rank(a) ? b : a;
}

// Role of operand `i` of an optimizer op (sgd_update(p, g, vel), adam_update(p, g, m, v, pows)).
AllocClass optimizer_operand_role(const std::string& op, std::size_t i) {
  if (op == "sgd_update") return i == 0 ? AllocClass::parameters : i == 2 ? AllocClass::optimizer_state : AllocClass::working;
  if (op == "adam_update")
    return i == 0 ? AllocClass::parameters : (i >= 2 && i <= 4) ? AllocClass::optimizer_state : AllocClass::working;
  return AllocClass::working;
}
// Class of output `i` of an optimizer op: (p', state'...).
std::optional<AllocClass> optimizer_output_class(const std::string& op, std::size_t i) {
  if (op != "sgd_update" && op != "adam_update") return std::nullopt;
  return i == 0 ? AllocClass::parameters : AllocClass::optimizer_state;
}

bool is_low_precision_cast(const Graph& g, const Node& n) {
  if (n.opcode != "cast" || n.inputs.size() != 1 || n.outputs.size() != 1) return false;
  DType from = g.node(n.inputs[0].node).outputs.at(n.inputs[0].output).dtype, to = n.outputs[0].dtype;
  return from == DType::f32 && (to == DType::f16 || to == DType::bf16);
}

std::optional<RegionId> callee_of(const Graph& g, const Node& n) {
  if (n.opcode != opcode::kCall) return std::nullopt;
  auto it = n.attrs.find("callee");
  if (it == n.attrs.end() || it->second.kind() != AttrKind::hash) return std::nullopt;
  return g.find_region(it->second.as<Hash256>());
}

}  // namespace

std::optional<std::size_t> gradient_wrt_count(const Graph& g, RegionId r) {
  const Region& reg = g.region(r);
  constexpr std::string_view suffix = ".grad";
  if (reg.name.size() <= suffix.size() || !reg.name.ends_with(suffix)) return std::nullopt;
  if (reg.results.empty() || reg.results.size() - 1 > reg.params.size()) return std::nullopt;
  std::size_t k = reg.results.size() - 1;
  for (std::size_t i = 0; i < k; ++i) {
    const ValueRef& res = reg.results[i + 1];
    if (g.node(res.node).outputs.at(res.output) != g.node(reg.params[i]).outputs.at(0)) return std::nullopt;
  }
  return k;
}

const std::vector<AllocClass>& Roles::region_params(RegionId r) {
  if (auto it = region_memo_.find(r); it != region_memo_.end()) return it->second;
  const Graph& g = p_.graph;
  const Region& reg = g.region(r);
  std::vector<AllocClass> roles(reg.params.size(), AllocClass::working);
  // A call cycle cannot occur in a hash-consed graph, but a file could claim one: stop.
  if (std::find(region_stack_.begin(), region_stack_.end(), r) != region_stack_.end()) {
    cycle_regions_[r] = roles;  // not memoised: the outer computation is still running
    return cycle_regions_[r];
  }
  region_stack_.push_back(r);

  std::map<NodeId, std::size_t> param_index;
  for (std::size_t i = 0; i < reg.params.size(); ++i) param_index[reg.params[i]] = i;
  std::vector<NodeId> order = nodes_in_region(g, reg);
  // Which nodes feed a gradient region's differentiated operand.
  std::set<NodeId> feeds_wrt;
  for (NodeId n : order) {
    const Node& node = g.node(n);
    if (auto callee = callee_of(g, node))
      if (auto k = gradient_wrt_count(g, *callee))
        for (std::size_t i = 0; i < node.inputs.size() && i < *k; ++i) feeds_wrt.insert(node.inputs[i].node);
  }
  for (NodeId n : order) {
    const Node& node = g.node(n);
    std::optional<RegionId> callee = callee_of(g, node);
    std::optional<std::size_t> k = callee ? gradient_wrt_count(g, *callee) : std::nullopt;
    for (std::size_t i = 0; i < node.inputs.size(); ++i) {
      auto pi = param_index.find(node.inputs[i].node);
      if (pi == param_index.end()) continue;
      AllocClass role = AllocClass::working;
      if (callee && k) role = i < *k ? AllocClass::parameters : AllocClass::working;
      else if (callee) role = region_params(*callee).at(i);
      else if (is_low_precision_cast(g, node) && feeds_wrt.count(n)) role = AllocClass::master_weights;
      else role = optimizer_operand_role(node.opcode, i);
      roles[pi->second] = stronger(roles[pi->second], role);
    }
  }
  region_stack_.pop_back();
  region_memo_[r] = std::move(roles);
  return region_memo_[r];
}

const std::vector<AllocClass>& Roles::slots(const block::Function& f) {
  if (auto it = slot_memo_.find(f.name); it != slot_memo_.end()) return it->second;
  std::vector<AllocClass> cls(f.slots.size(), AllocClass::working);
  std::vector<bool> known(f.slots.size(), false);
  if (std::find(fn_stack_.begin(), fn_stack_.end(), f.name) != fn_stack_.end()) {
    cycle_slots_[f.name] = cls;  // recursion: not memoised, the outer computation is still running
    return cycle_slots_[f.name];
  }
  fn_stack_.push_back(f.name);
  const Graph& g = p_.graph;
  auto mark = [&](block::SlotId s, AllocClass c) {
    if (s >= cls.size() || c == AllocClass::working) return;
    cls[s] = known[s] ? stronger(cls[s], c) : c;
    known[s] = true;
  };

  // Collect every statement once (bodies flattened) for the fixpoints below.
  std::vector<const block::Stmt*> all;
  std::vector<const std::vector<block::Stmt>*> work{&f.body};
  while (!work.empty()) {
    const auto* list = work.back();
    work.pop_back();
    for (const auto& s : *list) {
      all.push_back(&s);
      work.push_back(&s.body);
      work.push_back(&s.else_body);
      work.push_back(&s.cond_body);
    }
  }

  // Roles from what a slot is passed to, and classes from what a computation returns.
  for (const block::Stmt* s : all) {
    if (s->kind == block::StmtKind::compute) {
      auto r = g.find_region(s->region);
      if (!r) continue;
      const auto& roles = region_params(*r);
      for (std::size_t i = 0; i < s->args.size() && i < roles.size(); ++i) mark(s->args[i], roles[i]);
      const Region& reg = g.region(*r);
      for (std::size_t j = 0; j < s->results.size() && j < reg.results.size(); ++j) {
        const Node& producer = g.node(reg.results[j].node);
        if (auto callee = callee_of(g, producer); callee && gradient_wrt_count(g, *callee) && reg.results[j].output >= 1)
          mark(s->results[j], AllocClass::gradients);
        else if (auto oc = optimizer_output_class(producer.opcode, reg.results[j].output))
          mark(s->results[j], *oc);
      }
    } else if (s->kind == block::StmtKind::call) {
      const block::Function* callee = p_.find(s->callee);
      if (!callee) continue;
      const auto& callee_slots = slots(*callee);
      for (std::size_t i = 0; i < s->args.size() && i < callee->params.size(); ++i)
        if (is_role(callee_slots.at(callee->params[i]))) mark(s->args[i], callee_slots.at(callee->params[i]));
      for (std::size_t j = 0; j < s->results.size() && j < callee->results.size(); ++j)
        if (callee_slots.at(callee->results[j]) == AllocClass::gradients) mark(s->results[j], AllocClass::gradients);
    }
  }
  // Share roles along assign edges (both directions) until nothing changes.
  for (bool changed = true; changed;) {
    changed = false;
    for (const block::Stmt* s : all) {
      if (s->kind != block::StmtKind::assign) continue;
      for (std::size_t i = 0; i < s->args.size() && i < s->results.size(); ++i) {
        block::SlotId a = s->args[i], r = s->results[i];
        if (a >= cls.size() || r >= cls.size()) continue;
        for (auto [from, to] : {std::pair{a, r}, std::pair{r, a}})
          if (known[from] && (!known[to] || stronger(cls[to], cls[from]) != cls[to])) {
            mark(to, cls[from]);
            changed = true;
          }
      }
    }
  }
  // Inputs: files read and parameters not otherwise classed, then what is computed from
  // inputs alone (at least one input operand, every operand an input).
  std::vector<bool> input(f.slots.size(), false);
  for (block::SlotId s : f.params)
    if (s < input.size() && !known[s]) input[s] = true;
  for (const block::Stmt* s : all)
    if (s->kind == block::StmtKind::read)
      for (block::SlotId r : s->results)
        if (r < input.size() && !known[r]) input[r] = true;
  for (bool changed = true; changed;) {
    changed = false;
    for (const block::Stmt* s : all) {
      if (s->kind != block::StmtKind::compute && s->kind != block::StmtKind::assign && s->kind != block::StmtKind::call) continue;
      if (s->args.empty()) continue;
      bool all_inputs = std::all_of(s->args.begin(), s->args.end(), [&](block::SlotId a) { return a < input.size() && input[a]; });
      if (!all_inputs) continue;
      for (block::SlotId r : s->results)
        if (r < input.size() && !known[r] && !input[r]) {
          input[r] = true;
          changed = true;
        }
    }
  }
  for (std::size_t s = 0; s < cls.size(); ++s)
    if (!known[s] && input[s]) cls[s] = AllocClass::inputs;
  fn_stack_.pop_back();
  slot_memo_[f.name] = std::move(cls);
  return slot_memo_[f.name];
}

std::map<NodeId, std::vector<AllocClass>> Roles::region_values(RegionId r, const std::vector<AllocClass>& result_classes) {
  const Graph& g = p_.graph;
  const Region& reg = g.region(r);
  std::vector<NodeId> order = nodes_in_region(g, reg);
  std::map<NodeId, std::vector<AllocClass>> out;
  for (NodeId n : order) out[n] = std::vector<AllocClass>(g.node(n).outputs.size(), AllocClass::working);

  // Gradient region: forward values (ancestors of the loss) that a backward node reads are
  // activations kept for backward; the gradients it returns are gradients.
  if (auto k = gradient_wrt_count(g, r)) {
    std::set<NodeId> forward;
    std::vector<NodeId> stack{reg.results[0].node};
    while (!stack.empty()) {
      NodeId n = stack.back();
      stack.pop_back();
      if (!forward.insert(n).second) continue;
      for (const auto& in : g.node(n).inputs) stack.push_back(in.node);
    }
    for (NodeId n : order) {
      if (forward.count(n)) continue;
      for (const auto& in : g.node(n).inputs)
        if (forward.count(in.node)) std::fill(out[in.node].begin(), out[in.node].end(), AllocClass::activations);
    }
    for (std::size_t i = 1; i <= *k; ++i) out[reg.results[i].node][reg.results[i].output] = AllocClass::gradients;
  }
  for (NodeId n : order) {
    const Node& node = g.node(n);
    for (std::size_t i = 0; i < node.outputs.size(); ++i) {
      if (auto oc = optimizer_output_class(node.opcode, i)) out[n][i] = *oc;
      if (auto callee = callee_of(g, node); callee && gradient_wrt_count(g, *callee) && i >= 1) out[n][i] = AllocClass::gradients;
    }
  }
  // What the caller keeps has the caller's class.
  for (std::size_t j = 0; j < reg.results.size() && j < result_classes.size(); ++j)
    if (result_classes[j] != AllocClass::working) out[reg.results[j].node][reg.results[j].output] = result_classes[j];
  for (NodeId p : reg.params) out.erase(p);  // borrowed, classed by the caller
  return out;
}

}  // namespace rung::plan
