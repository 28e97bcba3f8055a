// The transformer block (transformer_block.h) recorded as GraphIR instead of executed: the
// template's V is a ValueRef and each run(op, inputs, attrs) appends a node whose result
// types the op registry infers (ops::infer_types, the evaluator's own rule). The block's 12
// inputs are the parameters of one exported region `block`, its 9 outputs the results.
// optimize_block_graph then runs the pass pipeline `rung opt` and `rung build -O` run (the
// default: inline, fold, simplify, layout, fuse, dce), validating the graph with the op
// signatures before the pipeline and after every pass. A backend then executes the region
// whole through OpBackend::run_region (fused elementwise calls as one loop or one kernel).
// Header-only: the CUDA bench and the CPU-side test (tests/blockgraph) both include it.
#pragma once

#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "ir/graph/builder.h"
#include "ir/graph/validator.h"
#include "ir/graph/walk.h"
#include "ops/registry.h"
#include "ops/signatures.h"
#include "ops/typing.h"
#include "passes/pass.h"
#include "transformer_block.h"

namespace rung::bench {

// The template's executor that records instead of running. After the first error (N0010
// unknown op, N0011 operands the op does not accept: the evaluator's codes) it records
// nothing more and hands back a placeholder, so the template runs to its end harmlessly.
struct GraphRecorder {
  GraphBuilder b;
  DiagnosticSink& diags;
  bool failed = false;

  ValueRef operator()(const char* op, std::vector<ValueRef> in, const AttrMap& attrs) {
    if (failed) return {};
    const ops::OpDef* def = ops::op_registry().find(op);
    if (!def) {
      diags.error("N0010", "unknown op `" + std::string(op) + "` in the recorded block").note("`rung ops` lists every op");
      failed = true;
      return {};
    }
    std::vector<TensorType> types;
    for (const auto& v : in) types.push_back(b.type_of(v));
    std::vector<std::string> errors;
    auto typed = ops::infer_types(*def, types, attrs, errors);
    if (!typed) {
      auto& d = diags.error("N0011", "`" + def->name + "` cannot be applied to these operands (recording the block)");
      for (const auto& e : errors) d.note(e);
      d.note("signature: " + def->signature());
      failed = true;
      return {};
    }
    return b.op_multi(def->name, std::move(in), typed->results, attrs).front();
  }
};

struct BlockGraph {
  Graph graph;
  std::string name = "block";  // the exported region
  RegionId region() const { return graph.exports().at(name); }
};

// Records the block for inputs of these types (block_input_names() order). Nullopt with a
// diagnostic when an op refuses its operands or the recorded graph does not validate.
inline std::optional<BlockGraph> record_block_graph(const BlockDims& d, std::span<const TensorType> input_types,
                                                    DiagnosticSink& diags) {
  BlockGraph bg;
  GraphRecorder rec{GraphBuilder(bg.graph), diags};
  auto names = block_input_names();
  if (input_types.size() != names.size()) {
    diags.error("N0011", "the block takes " + std::to_string(names.size()) + " inputs, " + std::to_string(input_types.size()) +
                             " types were given");
    return std::nullopt;
  }
  std::vector<ValueRef> params;
  for (std::size_t i = 0; i < names.size(); ++i)
    params.push_back(rec.b.param(names[i], static_cast<std::int64_t>(i), input_types[i]));
  std::vector<ValueRef> results = transformer_block<ValueRef>(rec, d, params);
  if (rec.failed) return std::nullopt;
  rec.b.export_region(bg.name, params, results);
  ops::RegistrySignatures sig;
  ValidateOptions vo;
  vo.signatures = &sig;
  if (!validate(bg.graph, diags, vo)) return std::nullopt;
  return bg;
}

// What the pipeline did to the block region.
struct BlockPassReport {
  std::vector<PassStats> stats;
  int iterations = 0;
  int validations = 0;                 // graphs validated (with op signatures), all passed
  std::size_t nodes_before = 0, nodes_after = 0;  // nodes of the block region (params included)
  std::size_t fused_calls = 0;         // `call` nodes with fusion = "elementwise" in the region
  std::size_t fused_ops = 0;           // registry ops inside their callees
  // Ops of the fusible families (elementwise, compare, cast) before the pipeline, and those
  // it left outside any fused call: with an operand of another shape than the result (a
  // broadcast: [B, T, 1] or [D] into [B, T, D]; the fuse pass takes such operands as inputs,
  // so these stay out for the other reason too), or otherwise (no fusible neighbour with a
  // single use).
  std::size_t fusible_family_ops = 0;
  std::size_t unfused_broadcast = 0, unfused_other = 0;
};

inline bool in_fusible_family(const Node& n) {
  const ops::OpDef* def = ops::op_registry().find(n.opcode);
  return def && (def->family == "elementwise" || def->family == "compare" || def->family == "cast");
}

inline bool is_fused_elementwise_node(const Node& n) {
  if (n.opcode != opcode::kCall) return false;
  auto it = n.attrs.find("fusion");
  return it != n.attrs.end() && it->second.is<std::string>() && it->second.as<std::string>() == "elementwise";
}

// Runs `passes` (empty: the default pipeline, as `rung opt` does) on the block in place.
// False with diagnostics when a pass fails or a graph after any pass does not validate
// (P0001, naming the pass).
inline bool optimize_block_graph(BlockGraph& bg, BlockPassReport& report, DiagnosticSink& diags,
                                 std::vector<std::string> passes = {}) {
  auto region_nodes = [&] { return nodes_in_region(bg.graph, bg.graph.region(bg.region())).size(); };
  report = {};
  report.nodes_before = region_nodes();
  for (NodeId n : nodes_in_region(bg.graph, bg.graph.region(bg.region())))
    report.fusible_family_ops += in_fusible_family(bg.graph.node(n));
  ops::RegistrySignatures sig;
  PipelineOptions po;
  po.passes = std::move(passes);
  po.print_after = {"all"};
  std::string broken;  // the first pass after which the graph did not validate
  DiagnosticSink invalid;
  po.print = [&](std::string_view pass, int, const Graph& g, bool) {
    ValidateOptions vo;
    vo.signatures = &sig;
    DiagnosticSink inner;
    ++report.validations;
    if (!validate(g, inner, vo) && broken.empty()) {
      broken = pass;
      for (const auto& v : inner.all()) invalid.error(v.code, v.message);
    }
  };
  PassManager pm(po);
  PassContext ctx{diags, &sig};
  bool ok = pm.run(bg.graph, ctx);
  report.stats = pm.stats();
  report.iterations = pm.iterations();
  if (!broken.empty()) {
    auto& d = diags.error("P0001", "the block graph does not validate after pass `" + broken + "`");
    for (const auto& v : invalid.all()) d.note("[" + v.code + "] " + v.message);
    return false;
  }
  if (!ok) return false;
  const Region& r = bg.graph.region(bg.region());
  report.nodes_after = region_nodes();
  for (NodeId n : nodes_in_region(bg.graph, r)) {
    const Node& node = bg.graph.node(n);
    if (in_fusible_family(node)) {
      bool broadcast = false;
      for (const auto& in : node.inputs) {
        const TensorType& t = bg.graph.node(in.node).outputs[in.output];
        broadcast = broadcast || (t.rank() != 0 && t.shape != node.outputs[0].shape);
      }
      ++(broadcast ? report.unfused_broadcast : report.unfused_other);
    }
    if (!is_fused_elementwise_node(node)) continue;
    ++report.fused_calls;
    const Region& callee = bg.graph.region(*bg.graph.find_region(node.attrs.at("callee").as<Hash256>()));
    for (NodeId c : nodes_in_region(bg.graph, callee))
      if (bg.graph.node(c).opcode != opcode::kParam && bg.graph.node(c).opcode != opcode::kConst) ++report.fused_ops;
  }
  return true;
}

}  // namespace rung::bench
