// What every walk over a GraphIR region checks, in one place: the host walk (host_walk.h,
// the reference's and the CPU backend's), the device walk (device_walk.h, CUDA's and
// WebGPU's) and the BlockIR executor (interpreter.h) hold values to their declared types
// with the same rule and report the same codes: R0001 wrong number of arguments, R0002 an
// argument does not fit its parameter's type, R0003 a node's results do not fit its
// declared types, R0004 calls nested too deeply.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <unordered_map>

#include "base/diagnostic.h"
#include "ir/graph/graph.h"
#include "ops/host_tensor.h"

namespace rung::runtime {

// Symbolic dims bound while running (B = 64, ...).
using DimBindings = std::map<std::string, std::uint64_t>;

// Checks a value of `dtype` and `shape` against a declared type, binding symbols on first
// sight. Returns an empty string when it fits, else why not.
std::string fit_type(const TensorType& declared, DType dtype, std::span<const std::uint64_t> shape, DimBindings& bindings);
std::string fit_type(const TensorType& declared, const ops::HostTensor& value, DimBindings& bindings);

// Entering region `r` with `args` arguments at call depth `depth`: R0004 past `max_depth`,
// R0001 when the count is not the region's. False after the diagnostic.
bool check_region_entry(const Region& r, std::size_t args, int depth, int max_depth, DiagnosticSink& diags);
// Argument `i` of region `r` (R0002).
bool check_argument(const Graph& g, const Region& r, std::size_t i, DType dtype, std::span<const std::uint64_t> shape,
                    DimBindings& bindings, DiagnosticSink& diags);
// Node `n` produced `count` results (R0003 when its type declares another number).
bool check_result_count(const Graph& g, NodeId n, std::size_t count, DiagnosticSink& diags);
// Result `i` of node `n` (R0003).
bool check_result(const Graph& g, NodeId n, std::size_t i, DType dtype, std::span<const std::uint64_t> shape,
                  DimBindings& bindings, DiagnosticSink& diags);

// `attrs` with every symbol in its shape-valued attributes replaced by the extent bound on
// entry (a reshape to [B, 64] in a region entered with B = 3 runs as a reshape to [3, 64]:
// the op's shape rule sees concrete operands and must see a concrete target). Returns
// `attrs` itself when no attribute holds a bound symbol, else `scratch` filled with the copy.
// A symbol not bound stays, and the op's shape rule reports it.
const AttrMap& bind_shape_attrs(const AttrMap& attrs, const DimBindings& bindings, AttrMap& scratch);

// The value of a `const` node.
ops::HostTensor constant_value(const Node& node);

// How often each value is used inside region `r` (its nodes in `order`, and its results):
// a walk frees a value when its count reaches zero.
std::unordered_map<NodeId, std::size_t> uses_in_region(const Graph& g, const Region& r, std::span<const NodeId> order);

}  // namespace rung::runtime
