// The validator's view of the registry: checks each node's inputs, attributes and declared
// result types against its op's signature (G0013), and tells the validator which opcodes
// are unknown (it reports G0014).
#pragma once

#include "ir/graph/validator.h"
#include "ops/registry.h"

namespace rung::ops {

class RegistrySignatures final : public OpSignatures {
 public:
  explicit RegistrySignatures(const OpRegistry& registry = op_registry()) : registry_(registry) {}
  bool check(const Graph& g, NodeId id, DiagnosticSink& diags) const override;

 private:
  const OpRegistry& registry_;
};

}  // namespace rung::ops
