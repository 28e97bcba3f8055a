// The GraphIR invariant validator. It runs after reading a .keg file and after every pass.
//
// What it checks (each with its own code, all violations reported, not just the first):
//   G0001 a node's stored hash recomputes        G0020 a region's stored hash recomputes
//   G0002 every input names an existing node     G0021 region params are param nodes
//   G0003 every input precedes its user (so the  G0022 param `index` equals its position
//         node list is a topological order and  G0023 region results name existing values
//         the graph is acyclic)                  G0024 a region reaches only its own params
//   G0004 input output-indices exist             G0025 regions are not stored twice
//   G0005 nodes are not stored twice             G0026 a param appears once per region
//   G0006 the schema version is supported        G0030 exports name existing regions
//   G0007 types are well formed                  G0031 export names are non-empty UTF-8
//   G0010 param / G0011 const / G0012 call nodes are well formed (call: arguments and
//         results agree with the callee's parameter and result types)
//   G0013 an op's edges agree with its declared signature (through OpSignatures)
//   G0014 the opcode is known (when OpSignatures is given)
//
// What construction already guarantees, and so is not re-derived here: canonical attribute
// order (AttrMap is sorted) and UTF-8 strings (the reader checks them on the way in).
#pragma once

#include <vector>

#include "base/diagnostic.h"
#include "ir/graph/graph.h"

namespace rung {

// The hook through which the op registry checks each node against its op's signature.
class OpSignatures {
 public:
  virtual ~OpSignatures() = default;
  // Returns false if `node.opcode` is unknown; otherwise reports G0013 violations.
  virtual bool check(const Graph& g, NodeId id, DiagnosticSink& diags) const = 0;
};

struct ValidateOptions {
  const OpSignatures* signatures = nullptr;
  // Where each node / region came from (file byte spans), to locate diagnostics.
  const std::vector<Span>* node_spans = nullptr;
  const std::vector<Span>* region_spans = nullptr;
};

// Returns true when no error was reported.
bool validate(const Graph& g, DiagnosticSink& diags, const ValidateOptions& opts = {});

}  // namespace rung
