// simplify: algebraic identities that hold bit for bit under the numeric contract.
//
// Safe (for every x, NaN and signed zeros included; NaN payloads are canonicalised at
// outputs anyway):   x * 1 -> x    x / 1 -> x    x + (-0) -> x    x - (+0) -> x
//                    neg(neg(x)) -> x
// Deliberately NOT applied, because they change bits:
//   x + (+0) -> x    (-0 + +0 = +0, not -0)        x * 0 -> 0   (inf*0 = NaN, -x*0 = -0)
//   x - x -> 0       (NaN, inf)                     (a+b)+c -> a+(b+c)  (rounding)
//   a*b + c -> fma   (one rounding instead of two)  x / c -> x * (1/c)  (rounding)
// An identity applies only when it keeps the result's type (a broadcasting constant that
// would change the shape is left alone).
#include <cstring>

#include "passes/passes.h"
#include "passes/rebuild.h"

namespace rung {
namespace {

// Is v a constant whose every element has exactly the bits of `target` in its dtype?
bool is_splat(const Graph& g, ValueRef v, double target) {
  const Node& n = g.node(v.node);
  if (n.opcode != opcode::kConst) return false;
  const TensorType& t = n.outputs[0];
  const Bytes& b = n.attrs.at("value").as<Bytes>();
  auto all = [&](auto want) {
    using T = decltype(want);
    if (b.empty() || b.size() % sizeof(T)) return false;
    for (std::size_t i = 0; i < b.size(); i += sizeof(T))
      if (std::memcmp(b.data() + i, &want, sizeof(T)) != 0) return false;
    return true;
  };
  switch (t.dtype) {
    case DType::f32: return all(static_cast<float>(target));
    case DType::f64: return all(target);
    default: return false;  // integers: x*1 etc. are exact too, but rare enough to skip
  }
}

// The identity that applies to `n` (with operands `inputs` in graph `g`), if any: the
// value n can be replaced by, provided it has n's type.
std::optional<ValueRef> identity_of(const Graph& g, const Node& n, const std::vector<ValueRef>& inputs) {
  std::optional<ValueRef> x;
  if (n.opcode == "mul" && is_splat(g, inputs[1], 1.0)) x = inputs[0];
  else if (n.opcode == "mul" && is_splat(g, inputs[0], 1.0)) x = inputs[1];
  else if (n.opcode == "div" && is_splat(g, inputs[1], 1.0)) x = inputs[0];
  else if (n.opcode == "add" && is_splat(g, inputs[1], -0.0)) x = inputs[0];
  else if (n.opcode == "add" && is_splat(g, inputs[0], -0.0)) x = inputs[1];
  else if (n.opcode == "sub" && is_splat(g, inputs[1], 0.0)) x = inputs[0];
  else if (n.opcode == "neg" && g.node(inputs[0].node).opcode == "neg") x = g.node(inputs[0].node).inputs[0];
  if (!x || g.node(x->node).outputs[x->output].type_id() != n.outputs[0].type_id()) return std::nullopt;
  return x;
}

class SimplifyPass final : public Pass {
 public:
  std::string_view name() const override { return "simplify"; }
  std::string_view summary() const override { return "bit-exact algebraic identities (x*1, x/1, x+(-0), x-0, --x)"; }
  Graph run(const Graph& in, PassContext&) override {
    RebuildHooks hooks;
    hooks.rewrite = [](GraphBuilder& b, const Node& n, const std::vector<ValueRef>& inputs)
        -> std::optional<std::vector<ValueRef>> {
      if (auto x = identity_of(b.graph(), n, inputs)) return std::vector<ValueRef>{*x};
      return std::nullopt;
    };
    return rebuild(in, hooks);
  }
  bool applies(const Graph& g) const override {
    for (const auto& n : g.nodes())
      if (!n.inputs.empty() && identity_of(g, n, n.inputs)) return true;
    return false;
  }
};

}  // namespace

std::unique_ptr<Pass> make_simplify_pass() { return std::make_unique<SimplifyPass>(); }
}  // namespace rung
