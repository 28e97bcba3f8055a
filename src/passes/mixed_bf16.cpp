// mixed_bf16: mixed precision, f32 master weights with bf16 compute. Opt-in (not in the
// default pipeline) and, unlike every other pass, NOT bit-preserving: it changes the
// precision of the program on purpose (Pass::exact() is false).
//
// Each matmul / linear / attention / ffn_swiglu / ffn_gelu node with an f32 result becomes
//   cast(op(cast(a, bf16), cast(b, bf16), ...), f32)
// The op computes as its bf16 definition says (operands widened exactly, f32 accumulation,
// one rounding to bf16 at the output), and the result returns to f32, so everything else —
// parameters (the master weights), elementwise ops, reductions, losses and the optimizer
// ops (sgd_update / adam_update are f32-only) — stays f32. Run it after autodiff has built
// the gradient regions and it applies to both directions of training; run it after
// `layout` (a cast between a transpose and its matmul hides the transpose).
#include <set>

#include "passes/passes.h"
#include "passes/rebuild.h"

namespace rung {
namespace {

const std::set<std::string, std::less<>> kHeavy = {"matmul", "linear", "attention", "ffn_swiglu", "ffn_gelu"};

class MixedBf16Pass final : public Pass {
 public:
  std::string_view name() const override { return "mixed_bf16"; }
  std::string_view summary() const override {
    return "opt-in, changes precision: matmul/linear/attention/ffn compute in bf16, f32 everywhere else";
  }
  bool exact() const override { return false; }
  Graph run(const Graph& in, PassContext&) override {
    RebuildHooks hooks;
    hooks.rewrite = [](GraphBuilder& b, const Node& n, const std::vector<ValueRef>& inputs)
        -> std::optional<std::vector<ValueRef>> {
      if (!kHeavy.count(n.opcode) || n.outputs.size() != 1 || n.outputs[0].dtype != DType::f32) return std::nullopt;
      std::vector<ValueRef> narrow;
      for (const auto& v : inputs) {
        TensorType t = b.type_of(v);
        if (t.dtype != DType::f32) {
          narrow.push_back(v);
          continue;
        }
        t.dtype = DType::bf16;
        narrow.push_back(b.op("cast", {v}, t, {{"to", DType::bf16}}));
      }
      TensorType low = n.outputs[0];
      low.dtype = DType::bf16;
      ValueRef y = b.op(n.opcode, narrow, low, n.attrs);
      return std::vector<ValueRef>{b.op("cast", {y}, n.outputs[0], {{"to", DType::f32}})};
    };
    return rebuild(in, hooks);
  }
};

}  // namespace

std::unique_ptr<Pass> make_mixed_bf16_pass() { return std::make_unique<MixedBf16Pass>(); }
}  // namespace rung
