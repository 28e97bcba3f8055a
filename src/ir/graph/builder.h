// A small convenience layer for constructing GraphIR in C++ (tests, the sample graphs, and
// later the front end and passes). Everything goes through Graph::add, so building the
// same expression twice yields the same node.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "ir/graph/graph.h"

namespace rung {

class GraphBuilder {
 public:
  explicit GraphBuilder(Graph& g) : g_(g) {}

  ValueRef param(std::string name, std::int64_t index, TensorType type);
  // A constant: `value` holds the little-endian element bytes; its length must match the type.
  ValueRef constant(TensorType type, Bytes value);
  ValueRef constant_f32(std::initializer_list<Dim> dims, std::span<const float> values);
  // A single-output op with an explicit result type (the op registry infers types later).
  ValueRef op(std::string opcode, std::vector<ValueRef> inputs, TensorType result, AttrMap attrs = {});
  std::vector<ValueRef> op_multi(std::string opcode, std::vector<ValueRef> inputs,
                                 std::vector<TensorType> results, AttrMap attrs = {});
  std::vector<ValueRef> call(RegionId callee, std::vector<ValueRef> args);

  RegionId region(std::string name, std::vector<ValueRef> params, std::vector<ValueRef> results);
  RegionId export_region(std::string name, std::vector<ValueRef> params, std::vector<ValueRef> results);

  const TensorType& type_of(ValueRef v) const { return g_.node(v.node).outputs.at(v.output); }
  Graph& graph() { return g_; }

 private:
  Graph& g_;
};

}  // namespace rung
