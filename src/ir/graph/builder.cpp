#include "ir/graph/builder.h"

#include <cstring>

#include "base/check.h"

namespace rung {

ValueRef GraphBuilder::param(std::string name, std::int64_t index, TensorType type) {
  Node n;
  n.opcode = opcode::kParam;
  n.outputs = {std::move(type)};
  n.attrs.emplace("index", index);
  n.attrs.emplace("name", std::move(name));
  return {g_.add(std::move(n)), 0};
}

ValueRef GraphBuilder::constant(TensorType type, Bytes value) {
  auto bytes = type.byte_size();
  RUNG_CHECK(bytes && *bytes == value.size(), "constant: byte length does not match its type");
  Node n;
  n.opcode = opcode::kConst;
  n.outputs = {std::move(type)};
  n.attrs.emplace("value", std::move(value));
  return {g_.add(std::move(n)), 0};
}

ValueRef GraphBuilder::constant_f32(std::initializer_list<Dim> dims, std::span<const float> values) {
  Bytes b(values.size() * 4);
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, &values[i], 4);
    for (int k = 0; k < 4; ++k) b[4 * i + k] = static_cast<std::uint8_t>(bits >> (8 * k));
  }
  return constant(tensor(DType::f32, dims), std::move(b));
}

ValueRef GraphBuilder::op(std::string opcode, std::vector<ValueRef> inputs, TensorType result, AttrMap attrs) {
  return op_multi(std::move(opcode), std::move(inputs), {std::move(result)}, std::move(attrs)).front();
}

std::vector<ValueRef> GraphBuilder::op_multi(std::string opcode, std::vector<ValueRef> inputs,
                                             std::vector<TensorType> results, AttrMap attrs) {
  Node n;
  n.opcode = std::move(opcode);
  n.inputs = std::move(inputs);
  n.outputs = std::move(results);
  n.attrs = std::move(attrs);
  std::size_t count = n.outputs.size();
  NodeId id = g_.add(std::move(n));
  std::vector<ValueRef> out;
  for (std::uint32_t i = 0; i < count; ++i) out.push_back({id, i});
  return out;
}

std::vector<ValueRef> GraphBuilder::call(RegionId callee, std::vector<ValueRef> args) {
  const Region& r = g_.region(callee);
  std::vector<TensorType> results;
  for (const auto& v : r.results) results.push_back(type_of(v));
  return op_multi(std::string(opcode::kCall), std::move(args), std::move(results), {{"callee", r.hash}});
}

RegionId GraphBuilder::region(std::string name, std::vector<ValueRef> params, std::vector<ValueRef> results) {
  Region r;
  r.name = std::move(name);
  for (const auto& p : params) {
    RUNG_CHECK(g_.node(p.node).opcode == opcode::kParam, "region parameters must be param nodes");
    r.params.push_back(p.node);
  }
  r.results = std::move(results);
  return g_.add_region(std::move(r));
}

RegionId GraphBuilder::export_region(std::string name, std::vector<ValueRef> params, std::vector<ValueRef> results) {
  RegionId r = region(name, std::move(params), std::move(results));
  g_.set_export(name, r);
  return r;
}

}  // namespace rung
