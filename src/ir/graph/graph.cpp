#include "ir/graph/graph.h"

#include <algorithm>

#include "base/check.h"
#include "ir/graph/domain.h"

namespace rung {

void encode_node(const Graph& g, const Node& node, CanonicalWriter& w) {
  w.u16(node.schema);
  w.str(node.opcode);
  w.u32(static_cast<std::uint32_t>(node.outputs.size()));
  for (const auto& t : node.outputs) t.encode(w);
  w.u32(static_cast<std::uint32_t>(node.inputs.size()));
  for (const auto& in : node.inputs) {
    w.hash(g.node(in.node).hash);
    w.u32(in.output);
  }
  encode_attrs(node.attrs, w);
}

Hash256 Graph::compute_node_hash(const Node& node) const {
  CanonicalWriter w;
  w.raw(domain::kNode);
  encode_node(*this, node, w);
  return sha3_256(w.data());
}

Hash256 Graph::compute_region_hash(const Region& region) const {
  CanonicalWriter w;
  w.raw(domain::kRegion);
  w.str(region.name);
  w.u32(static_cast<std::uint32_t>(region.params.size()));
  for (NodeId p : region.params) w.hash(node(p).hash);
  w.u32(static_cast<std::uint32_t>(region.results.size()));
  for (const auto& r : region.results) {
    w.hash(node(r.node).hash);
    w.u32(r.output);
  }
  return sha3_256(w.data());
}

NodeId Graph::add(Node n) {
  for (const auto& in : n.inputs) {
    RUNG_CHECK(in.node < nodes_.size(), "Graph::add: input names a node that does not exist");
    RUNG_CHECK(in.output < nodes_[in.node].outputs.size(), "Graph::add: input names a missing output");
  }
  n.hash = compute_node_hash(n);
  if (auto it = node_index_.find(n.hash); it != node_index_.end()) return it->second;
  auto id = static_cast<NodeId>(nodes_.size());
  node_index_.emplace(n.hash, id);
  nodes_.push_back(std::move(n));
  return id;
}

RegionId Graph::add_region(Region r) {
  for (NodeId p : r.params) RUNG_CHECK(p < nodes_.size(), "Graph::add_region: unknown param node");
  for (const auto& v : r.results) RUNG_CHECK(v.node < nodes_.size(), "Graph::add_region: unknown result node");
  r.hash = compute_region_hash(r);
  if (auto it = region_index_.find(r.hash); it != region_index_.end()) return it->second;
  auto id = static_cast<RegionId>(regions_.size());
  region_index_.emplace(r.hash, id);
  regions_.push_back(std::move(r));
  return id;
}

void Graph::set_export(const std::string& name, RegionId region) {
  RUNG_CHECK(region < regions_.size(), "set_export: unknown region");
  exports_[name] = region;
}

void Graph::reserve(std::size_t nodes) {
  nodes_.reserve(nodes);
  node_index_.reserve(nodes);
}

NodeId Graph::adopt_node(Node n) {
  auto id = static_cast<NodeId>(nodes_.size());
  node_index_.emplace(n.hash, id);  // keeps the first on duplicates; the validator reports them
  nodes_.push_back(std::move(n));
  return id;
}

RegionId Graph::adopt_region(Region r) {
  auto id = static_cast<RegionId>(regions_.size());
  region_index_.emplace(r.hash, id);
  regions_.push_back(std::move(r));
  return id;
}

std::optional<NodeId> Graph::find_node(const Hash256& h) const {
  auto it = node_index_.find(h);
  if (it == node_index_.end()) return std::nullopt;
  return it->second;
}

std::optional<RegionId> Graph::find_region(const Hash256& h) const {
  auto it = region_index_.find(h);
  if (it == region_index_.end()) return std::nullopt;
  return it->second;
}

std::vector<RegionId> Graph::reachable_regions() const {
  // Iterative walk (no recursion: depth could come from an untrusted file).
  std::vector<bool> region_seen(regions_.size()), node_seen(nodes_.size());
  std::vector<RegionId> out, region_stack;
  for (const auto& [name, r] : exports_)
    if (r < regions_.size() && !region_seen[r]) {
      region_seen[r] = true;
      region_stack.push_back(r);
    }
  std::vector<NodeId> node_stack;
  while (!region_stack.empty()) {
    RegionId r = region_stack.back();
    region_stack.pop_back();
    out.push_back(r);
    for (const auto& v : regions_[r].results)
      if (v.node < nodes_.size()) node_stack.push_back(v.node);
    while (!node_stack.empty()) {
      NodeId n = node_stack.back();
      node_stack.pop_back();
      if (node_seen[n]) continue;
      node_seen[n] = true;
      const Node& node = nodes_[n];
      if (node.opcode == opcode::kCall) {
        if (auto it = node.attrs.find("callee"); it != node.attrs.end() && it->second.is<Hash256>())
          if (auto callee = find_region(it->second.as<Hash256>()); callee && !region_seen[*callee]) {
            region_seen[*callee] = true;
            region_stack.push_back(*callee);
          }
      }
      for (const auto& in : node.inputs)
        if (in.node < nodes_.size() && !node_seen[in.node]) node_stack.push_back(in.node);
    }
  }
  std::sort(out.begin(), out.end(), [&](RegionId a, RegionId b) { return regions_[a].hash < regions_[b].hash; });
  return out;
}

Hash256 Graph::fingerprint() const {
  CanonicalWriter w;
  w.raw(domain::kGraph);
  w.u32(static_cast<std::uint32_t>(exports_.size()));
  for (const auto& [name, r] : exports_) {  // std::map: sorted by name bytes
    w.str(name);
    w.hash(regions_.at(r).hash);
  }
  auto reach = reachable_regions();
  w.u32(static_cast<std::uint32_t>(reach.size()));
  for (RegionId r : reach) w.hash(regions_[r].hash);
  return sha3_256(w.data());
}

std::string describe_node(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  return "node #" + std::to_string(id) + " `" + n.opcode + "` (" + n.hash.short_hex() + ")";
}

}  // namespace rung
