// The GraphIR store: content-addressed, hash-consed tensor operation nodes, regions (one
// per function) and exports (named entry points).
//
// Identity. A node's hash is SHA3-256(domain::kNode || canonical(node)), where the encoding
// holds the schema version, the opcode, the output types, the hashes of the inputs (with
// output indices) and the attributes in canonical order. Because a node names its inputs
// by hash, a node can only be built after its inputs exist: graphs built through `add`
// are acyclic by construction, and inserting a structurally equal node returns the node
// already stored (common-subexpression elimination is a property of the representation).
//
// Trust. Graphs read from files go through `adopt_*`, which store what the file claims
// without recomputing or checking anything; `validate()` (validator.h) then reports every
// broken invariant. Nothing reads an adopted graph's hashes before validation succeeds.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/hash.h"
#include "ir/graph/attr.h"
#include "ir/graph/type.h"

namespace rung {

inline constexpr std::uint16_t kSchemaVersion = 1;

using NodeId = std::uint32_t;
using RegionId = std::uint32_t;

struct ValueRef {
  NodeId node = 0;
  std::uint32_t output = 0;
  bool operator==(const ValueRef&) const = default;
};

struct Node {
  std::uint16_t schema = kSchemaVersion;
  std::string opcode;
  std::vector<TensorType> outputs;
  std::vector<ValueRef> inputs;
  AttrMap attrs;
  Hash256 hash;  // set by Graph::add (computed) or Graph::adopt_node (claimed by a file)
};

struct Region {
  std::string name;
  std::vector<NodeId> params;      // `param` nodes, in parameter order
  std::vector<ValueRef> results;
  Hash256 hash;  // set by Graph::add_region (computed) or adopt_region (claimed)
};

// Well-known opcodes the GraphIR core itself understands (the op registry adds the rest).
namespace opcode {
inline constexpr std::string_view kParam = "param";  // attrs: index:int, name:string
inline constexpr std::string_view kConst = "const";  // attrs: value:bytes (little-endian elements)
inline constexpr std::string_view kCall = "call";    // attrs: callee:hash (a region hash)
}  // namespace opcode

class Graph {
 public:
  // Hash-consing insert. Inputs must name existing nodes and outputs (a RUNG_CHECK: the
  // builder and passes construct graphs; untrusted data goes through adopt_node).
  NodeId add(Node node);
  RegionId add_region(Region region);  // hash-consed like nodes
  // Declares (or replaces) an entry point.
  void set_export(const std::string& name, RegionId region);

  NodeId adopt_node(Node node);  // untrusted: stored as is (claimed hash kept)
  void reserve(std::size_t nodes);  // capacity hint for rebuilds
  RegionId adopt_region(Region region);

  const Node& node(NodeId id) const { return nodes_.at(id); }
  const Region& region(RegionId id) const { return regions_.at(id); }
  std::size_t node_count() const { return nodes_.size(); }
  std::size_t region_count() const { return regions_.size(); }
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<Region>& regions() const { return regions_; }
  const std::map<std::string, RegionId>& exports() const { return exports_; }

  std::optional<NodeId> find_node(const Hash256& h) const;
  std::optional<RegionId> find_region(const Hash256& h) const;

  // Recompute identities from the current content. Inputs/params must be in range.
  Hash256 compute_node_hash(const Node& node) const;
  Hash256 compute_region_hash(const Region& region) const;

  // Regions reachable from the exports through `call` nodes, sorted by hash.
  std::vector<RegionId> reachable_regions() const;
  // SHA3-256(domain::kGraph || exports sorted by name (name, region hash) ||
  //          reachable region hashes sorted). Independent of insertion order.
  Hash256 fingerprint() const;

 private:
  std::vector<Node> nodes_;
  std::vector<Region> regions_;
  std::unordered_map<Hash256, NodeId, Hash256Hasher> node_index_;
  std::unordered_map<Hash256, RegionId, Hash256Hasher> region_index_;
  std::map<std::string, RegionId> exports_;
};

void encode_node(const Graph& g, const Node& node, CanonicalWriter& w);
std::string describe_node(const Graph& g, NodeId id);  // "node #12 `matmul` (3fa2c1d0e4b5)"

}  // namespace rung
