// layout: transposition folding for matmul. A `transpose` that only swaps the last two
// axes, feeding an operand of `matmul`, is folded into the matmul's transpose_a/transpose_b
// attribute. matmul with a transpose flag reads the same elements in the same fma-chain
// order as matmul of the materialised transpose, so the bits are unchanged; the transpose
// itself disappears when nothing else uses it (dce).
#include <numeric>

#include "passes/passes.h"
#include "passes/rebuild.h"

namespace rung {
namespace {

// Is `n` a transpose whose permutation swaps exactly the last two axes?
bool swaps_last_two(const Graph& g, const Node& n) {
  if (n.opcode != "transpose") return false;
  std::size_t rank = g.node(n.inputs[0].node).outputs[n.inputs[0].output].rank();
  if (rank < 2) return false;
  auto it = n.attrs.find("perm");
  std::vector<std::int64_t> perm;
  if (it != n.attrs.end()) perm = it->second.as<std::vector<std::int64_t>>();
  if (perm.empty()) return rank == 2;  // the default reverses the axes
  if (perm.size() != rank) return false;
  for (std::size_t i = 0; i < rank; ++i) {
    std::int64_t p = perm[i] < 0 ? perm[i] + static_cast<std::int64_t>(rank) : perm[i];
    std::int64_t want = i + 2 < rank ? static_cast<std::int64_t>(i) : static_cast<std::int64_t>(i + 2 == rank ? rank - 1 : rank - 2);
    if (p != want) return false;
  }
  return true;
}

bool flag(const Node& n, const char* name) {
  auto it = n.attrs.find(name);
  return it != n.attrs.end() && it->second.as<bool>();
}

class LayoutPass final : public Pass {
 public:
  std::string_view name() const override { return "layout"; }
  std::string_view summary() const override { return "fold last-two-axes transposes into matmul's transpose_a/transpose_b"; }
  Graph run(const Graph& in, PassContext&) override {
    RebuildHooks hooks;
    hooks.rewrite = [](GraphBuilder& b, const Node& n, const std::vector<ValueRef>& inputs)
        -> std::optional<std::vector<ValueRef>> {
      if (n.opcode != "matmul") return std::nullopt;
      const Graph& g = b.graph();
      std::vector<ValueRef> operands = inputs;
      AttrMap attrs = n.attrs;
      bool changed = false;
      const char* names[2] = {"transpose_a", "transpose_b"};
      for (int k = 0; k < 2; ++k) {
        const Node& producer = g.node(operands[k].node);
        if (!swaps_last_two(g, producer)) continue;
        bool now = !flag(n, names[k]);
        operands[k] = producer.inputs[0];
        if (now) attrs.insert_or_assign(names[k], AttrValue(true));
        else attrs.erase(names[k]);  // false is the default: keep one spelling per computation
        changed = true;
      }
      if (!changed) return std::nullopt;
      return std::vector<ValueRef>{b.op("matmul", operands, n.outputs[0], attrs)};
    };
    return rebuild(in, hooks);
  }
  bool applies(const Graph& g) const override {
    for (const auto& n : g.nodes())
      if (n.opcode == "matmul")
        for (const auto& in : n.inputs)
          if (swaps_last_two(g, g.node(in.node))) return true;
    return false;
  }
};

}  // namespace

std::unique_ptr<Pass> make_layout_pass() { return std::make_unique<LayoutPass>(); }
}  // namespace rung
