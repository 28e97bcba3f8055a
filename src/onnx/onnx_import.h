// The ONNX importer's entry: model bytes to a BlockIR program whose one exported function
// `main` is the model's graph in registry ops. Every problem is a coded diagnostic naming the
// place in the model (protobuf keeps no byte offsets): `graph.node[37] "name" (Op, opset N)`,
// `graph.initializer[3] "w"`, `graph.input[0] "x"`. The codes (docs/onnx.md):
//   I0001 not parseable              I0008 external data path refused
//   I0002 a count/size/nesting limit I0009 external range or length wrong
//   I0003 IR version or opset range  I0010 the ONNX checker's finding
//   I0004 no handler (op or domain)  I0011 a declared type disagrees
//   I0005 attribute/mode/dtype       I0012 shape arithmetic rung cannot state
//   I0006 invalid dims               I0013 undefined, duplicate or out-of-order names
//   I0007 element/value kind         I0014 weights over the weight budget
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/diagnostic.h"
#include "ir/block/block.h"
#include "ops/host_tensor.h"

namespace rung::onnx_import {

struct Limits {
  std::uint64_t max_proto_bytes = 0x7fffffff;  // protobuf's own ceiling; bigger models use external data
  int max_recursion = 100;                     // protobuf message nesting
  std::uint64_t max_nodes = 1u << 20, max_initializers = 1u << 20, max_values = 1u << 16;
  std::uint64_t max_attributes = 1024;  // per node
  std::uint64_t max_rank = 16;
  std::uint64_t max_name_bytes = 4096;
  std::uint64_t max_weight_bytes = std::uint64_t{1} << 34;  // initializers and constants together (I0014)
};

struct Options {
  Limits limits;
  // The folder external data is read from; empty: the model came as bytes and may not
  // reference external files (I0008).
  std::string model_dir;
  // Symbolic dims bound to extents at import (`--dim B=8`), by their rung names: shape
  // arithmetic over them then folds (a Reshape to [S, 2*B, 8] has no rung dim otherwise).
  std::map<std::string, std::uint64_t> bound_dims;
  // Graph inputs bound to values at import (`--bind NAME=FILE.npy`), in the order given: each
  // stops being a parameter and becomes a constant, so shape-like operands computed from it
  // (Reshape's shape, Slice's starts, ...) fold. Checked against the declared inputs (I0013
  // unknown, twice or an initializer; I0011 dtype or shape).
  std::vector<std::pair<std::string, std::shared_ptr<const ops::HostTensor>>> bound_inputs;
};

// What the importer records about the model (the .keg's `onnx` section, rung/onnx.h).
struct Provenance {
  std::int64_t ir_version = 0;
  std::string producer_name, producer_version, graph_name;
  std::vector<std::pair<std::string, std::int64_t>> opsets;  // (domain, version) as imported
};

struct Imported {
  block::Program program;
  Provenance provenance;
};

std::optional<Imported> import_model(std::string_view bytes, const std::string& module_name, const Options& options,
                                     DiagnosticSink& diags);

// One handler: ONNX op `op_type` of `domain` ("" is ai.onnx) for opsets since..until.
struct HandlerInfo {
  std::string domain, op_type;
  int since = 0, until = 0;
  std::string how;  // the registry ops it emits
};
std::vector<HandlerInfo> handler_list();  // sorted by op, then since

// The graph inputs a caller feeds, in the graph's order: initializers listed as inputs (IR < 4
// models do that) are left out. Nullopt after I0001/I0002 when the bytes do not parse.
std::optional<std::vector<std::string>> graph_input_names(std::string_view bytes, const Limits& limits, DiagnosticSink& diags);

}  // namespace rung::onnx_import
