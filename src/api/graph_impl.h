// What the graph-building handles (include/rung/graph.h) hold. Private to src/api.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/block/block.h"
#include "ir/graph/graph.h"
#include "ops/op_def.h"
#include "rung/graph.h"

namespace rung::graph {

// The scratch graph every value of one builder lives in. Inputs are param nodes with index
// 0 here; Builder::function copies what a function uses into a graph of its own, where
// each parameter gets its position.
struct Builder::Impl {
  std::uint64_t id = 0;
  Graph g;
};

struct Function::Impl {
  std::string name;
  block::Program program;  // one exported function over program.graph, results named
};

namespace detail {

// The caller's attributes as the registry's values, kind by kind against `op`'s declaration
// (the exact widenings of graph.h only). Unknown names and wrong kinds append to `errors`.
std::optional<AttrMap> attr_map(const ops::OpDef& op, const Attrs& given, std::vector<std::string>& errors);
// The public form of a registry value (an attribute's default).
std::optional<Attr> public_attr(const AttrValue& v);
// N0010 for an unknown op, with the nearest names.
Diagnostics unknown_op(std::string_view name);
// A function over `g` (its only export, named `name`), its result slots named `results`.
Function make_function(Graph g, const std::string& name, const std::vector<std::string>& results);

}  // namespace detail
}  // namespace rung::graph
