#include "ops/signatures.h"

#include "ops/typing.h"

namespace rung::ops {

namespace {

// Result types must match what the op infers in dtype and shape; the memory space is a
// placement decision of later layers and is not part of the signature.
bool same_value_type(const TensorType& a, const TensorType& b) { return a.dtype == b.dtype && a.shape == b.shape; }

}  // namespace

bool RegistrySignatures::check(const Graph& g, NodeId id, DiagnosticSink& diags) const {
  const Node& n = g.node(id);
  const OpDef* op = registry_.find(n.opcode);
  if (!op) return false;
  std::vector<TensorType> inputs;
  for (const auto& in : n.inputs) inputs.push_back(g.node(in.node).outputs.at(in.output));
  std::vector<std::string> errors;
  auto typed = infer_types(*op, inputs, n.attrs, errors);
  if (typed) {
    if (typed->results.size() != n.outputs.size()) {
      errors.push_back("has " + std::to_string(n.outputs.size()) + " outputs; `" + op->name + "` has " +
                       std::to_string(typed->results.size()));
    } else {
      for (std::size_t i = 0; i < n.outputs.size(); ++i)
        if (!same_value_type(n.outputs[i], typed->results[i]))
          errors.push_back("output " + std::to_string(i) + " is declared " + n.outputs[i].to_string() + " but `" +
                           op->name + "` gives " + typed->results[i].to_string());
    }
  }
  for (const auto& e : errors)
    diags.error("G0013", describe_node(g, id) + " does not match its signature: " + e)
        .note("signature: " + op->signature());
  return true;
}

}  // namespace rung::ops
