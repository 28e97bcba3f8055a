#include "ir/graph/printer.h"

#include <nlohmann/json.hpp>
#include <unordered_map>

namespace rung {

namespace {
std::string types_to_string(const std::vector<TensorType>& ts) {
  std::string s;
  for (std::size_t i = 0; i < ts.size(); ++i) s += (i ? ", " : "") + ts[i].to_string();
  return ts.size() == 1 ? s : "(" + s + ")";
}
}  // namespace

std::string list_nodes(const Graph& g) {
  std::string out;
  for (NodeId id = 0; id < g.node_count(); ++id) {
    const Node& n = g.node(id);
    out += "#" + std::to_string(id) + "  " + n.hash.short_hex() + "  " + n.opcode + "  (";
    for (std::size_t i = 0; i < n.inputs.size(); ++i)
      out += (i ? ", #" : "#") + std::to_string(n.inputs[i].node) + "." + std::to_string(n.inputs[i].output);
    out += ") -> " + types_to_string(n.outputs);
    if (!n.attrs.empty()) out += "  " + attrs_to_string(n.attrs);
    out += "\n";
  }
  return out;
}

std::string print_regions(const Graph& g) {
  std::string out;
  for (RegionId r = 0; r < g.region_count(); ++r) {
    const Region& reg = g.region(r);
    // Values are numbered per region in storage order of the nodes they reach.
    std::vector<bool> in_region(g.node_count());
    std::vector<NodeId> stack;
    for (const auto& v : reg.results) stack.push_back(v.node);
    while (!stack.empty()) {
      NodeId n = stack.back();
      stack.pop_back();
      if (in_region[n]) continue;
      in_region[n] = true;
      for (const auto& in : g.node(n).inputs) stack.push_back(in.node);
    }
    std::unordered_map<NodeId, std::string> names;
    std::size_t next = 0;
    auto value = [&](ValueRef v) {
      const std::string& base = names[v.node];
      return g.node(v.node).outputs.size() == 1 ? base : base + "#" + std::to_string(v.output);
    };
    for (NodeId p : reg.params) names[p] = "%" + std::to_string(next++);

    std::string exported;
    for (const auto& [name, er] : g.exports())
      if (er == r) exported += " export(" + name + ")";
    out += "region @" + reg.name + "(";
    for (std::size_t i = 0; i < reg.params.size(); ++i)
      out += (i ? ", " : "") + names[reg.params[i]] + ": " + g.node(reg.params[i]).outputs.at(0).to_string();
    out += ")" + exported + "  ; " + reg.hash.short_hex() + "\n";
    for (NodeId id = 0; id < g.node_count(); ++id) {
      if (!in_region[id] || g.node(id).opcode == opcode::kParam) continue;
      const Node& n = g.node(id);
      names[id] = "%" + std::to_string(next++);
      out += "  " + names[id] + " = " + n.opcode;
      for (std::size_t i = 0; i < n.inputs.size(); ++i) out += (i ? ", " : " ") + value(n.inputs[i]);
      if (!n.attrs.empty()) out += " " + attrs_to_string(n.attrs);
      out += " : " + types_to_string(n.outputs) + "\n";
    }
    out += "  return";
    for (std::size_t i = 0; i < reg.results.size(); ++i) out += (i ? ", " : " ") + value(reg.results[i]);
    out += "\n\n";
  }
  return out;
}

nlohmann::json node_to_json(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  nlohmann::json inputs = nlohmann::json::array(), outputs = nlohmann::json::array(), attrs = nlohmann::json::object();
  for (const auto& in : n.inputs) inputs.push_back({{"node", in.node}, {"output", in.output}});
  for (const auto& t : n.outputs) outputs.push_back(t.to_string());
  for (const auto& [k, v] : n.attrs) attrs[k] = v.to_string();
  return {{"index", id}, {"hash", n.hash.hex()}, {"schema", n.schema}, {"opcode", n.opcode},
          {"inputs", inputs}, {"outputs", outputs}, {"attrs", attrs}};
}

}  // namespace rung
