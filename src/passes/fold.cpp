// fold: replace a node whose inputs are all constants by the constant it evaluates to.
// Folding runs the op's reference kernel — the definition itself — so it can never change
// a bit of the result. Only static-shaped results up to a size limit are folded (a folded
// constant is stored in the graph; folding a 1 GiB broadcast would bloat every artifact).
#include "ops/evaluate.h"
#include "passes/passes.h"
#include "passes/rebuild.h"

namespace rung {
namespace {

constexpr std::uint64_t kMaxFoldedBytes = 1 << 16;

std::optional<ops::HostTensor> const_value(const Graph& g, ValueRef v) {
  const Node& n = g.node(v.node);
  if (n.opcode != opcode::kConst) return std::nullopt;
  const TensorType& t = n.outputs[0];
  ops::Extents ext;
  for (const auto& d : t.shape) ext.push_back(d.extent());
  const Bytes& b = n.attrs.at("value").as<Bytes>();
  return ops::HostTensor(t.dtype, std::move(ext), std::vector<std::uint8_t>(b.begin(), b.end()));
}

class FoldPass final : public Pass {
 public:
  std::string_view name() const override { return "fold"; }
  std::string_view summary() const override { return "evaluate nodes whose inputs are all constants (with the reference kernels)"; }
  Graph run(const Graph& in, PassContext& ctx) override {
    RebuildHooks hooks;
    hooks.rewrite = [&ctx](GraphBuilder& b, const Node& n, const std::vector<ValueRef>& inputs)
        -> std::optional<std::vector<ValueRef>> {
      if (n.opcode == opcode::kConst || n.opcode == opcode::kCall || n.opcode == opcode::kParam) return std::nullopt;
      if (inputs.empty()) return std::nullopt;  // sources (iota, random) stay: they may be large
      std::vector<ops::HostTensor> values;
      for (const auto& v : inputs) {
        auto c = const_value(b.graph(), v);
        if (!c) return std::nullopt;
        values.push_back(std::move(*c));
      }
      for (const auto& t : n.outputs) {
        auto bytes = t.byte_size();
        if (!bytes || *bytes > kMaxFoldedBytes) return std::nullopt;
      }
      DiagnosticSink local;  // a kernel that refuses its data leaves the node for run time
      auto out = ops::evaluate(n.opcode, values, n.attrs, local);
      if (!out) return std::nullopt;
      std::vector<ValueRef> results;
      for (std::size_t i = 0; i < out->size(); ++i) {
        if ((*out)[i].type().type_id() != n.outputs[i].type_id()) return std::nullopt;
        const auto& bytes = (*out)[i].bytes();
        results.push_back(b.constant(n.outputs[i], Bytes(bytes.begin(), bytes.end())));
      }
      (void)ctx;
      return results;
    };
    return rebuild(in, hooks);
  }
  bool applies(const Graph& g) const override {
    for (const auto& n : g.nodes()) {
      if (n.opcode == opcode::kConst || n.opcode == opcode::kCall || n.opcode == opcode::kParam || n.inputs.empty()) continue;
      bool all_const = true, small = true;
      for (const auto& v : n.inputs) all_const = all_const && g.node(v.node).opcode == opcode::kConst;
      for (const auto& t : n.outputs) {
        auto bytes = t.byte_size();
        small = small && bytes && *bytes <= kMaxFoldedBytes;
      }
      if (all_const && small) return true;
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<Pass> make_fold_pass() { return std::make_unique<FoldPass>(); }
}  // namespace rung
