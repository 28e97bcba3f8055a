#include "ir/graph/keg.h"

#include <algorithm>
#include <queue>
#include <unordered_map>

#include "base/check.h"
#include "ir/graph/keg_format.h"

namespace rung {
namespace {

// Nodes in a canonical topological order: Kahn's algorithm, taking the smallest hash among
// the ready nodes each time. Depends only on content, not on insertion order.
std::vector<NodeId> canonical_order(const Graph& g) {
  std::size_t n = g.node_count();
  std::vector<std::uint32_t> pending(n);
  std::vector<std::vector<NodeId>> users(n);
  for (NodeId id = 0; id < n; ++id)
    for (const auto& in : g.node(id).inputs) {
      users[in.node].push_back(id);
      ++pending[id];
    }
  auto later = [&](NodeId a, NodeId b) { return g.node(a).hash > g.node(b).hash; };
  std::priority_queue<NodeId, std::vector<NodeId>, decltype(later)> ready(later);
  for (NodeId id = 0; id < n; ++id)
    if (pending[id] == 0) ready.push(id);
  std::vector<NodeId> order;
  order.reserve(n);
  while (!ready.empty()) {
    NodeId id = ready.top();
    ready.pop();
    order.push_back(id);
    for (NodeId u : users[id])
      if (--pending[u] == 0) ready.push(u);
  }
  RUNG_CHECK(order.size() == n, "write_keg: graph has a cycle (it was not built through Graph::add)");
  return order;
}

class Writer {
 public:
  Writer(const Graph& g, std::span<const KegAttachment> attachments) : g_(g), attachments_(attachments) {}

  std::vector<std::uint8_t> run() {
    auto order = canonical_order(g_);
    std::vector<std::uint32_t> position(g_.node_count());
    for (std::uint32_t i = 0; i < order.size(); ++i) position[order[i]] = i;

    // Regions sorted by hash; exports by name (std::map order).
    std::vector<RegionId> regions(g_.region_count());
    for (RegionId r = 0; r < regions.size(); ++r) regions[r] = r;
    std::sort(regions.begin(), regions.end(), [&](RegionId a, RegionId b) { return g_.region(a).hash < g_.region(b).hash; });
    std::vector<std::uint32_t> region_pos(g_.region_count());
    for (std::uint32_t i = 0; i < regions.size(); ++i) region_pos[regions[i]] = i;

    CanonicalWriter nodes, regs, exps;
    nodes.u32(static_cast<std::uint32_t>(order.size()));
    for (NodeId id : order) {
      const Node& n = g_.node(id);
      nodes.hash(n.hash);
      nodes.u16(n.schema);
      nodes.u32(intern_string(n.opcode));
      nodes.u32(intern_attrs(n.attrs));
      nodes.u32(static_cast<std::uint32_t>(n.outputs.size()));
      for (const auto& t : n.outputs) nodes.u32(intern_type(t));
      nodes.u32(static_cast<std::uint32_t>(n.inputs.size()));
      for (const auto& in : n.inputs) {
        nodes.u32(position[in.node]);
        nodes.u32(in.output);
      }
    }
    regs.u32(static_cast<std::uint32_t>(regions.size()));
    for (RegionId rid : regions) {
      const Region& r = g_.region(rid);
      regs.hash(r.hash);
      regs.u32(intern_string(r.name));
      regs.u32(static_cast<std::uint32_t>(r.params.size()));
      for (NodeId p : r.params) regs.u32(position[p]);
      regs.u32(static_cast<std::uint32_t>(r.results.size()));
      for (const auto& v : r.results) {
        regs.u32(position[v.node]);
        regs.u32(v.output);
      }
    }
    exps.u32(static_cast<std::uint32_t>(g_.exports().size()));
    for (const auto& [name, r] : g_.exports()) {
      exps.u32(intern_string(name));
      exps.u32(region_pos[r]);
    }

    CanonicalWriter strs;
    strs.u32(static_cast<std::uint32_t>(strings_.size()));
    for (const auto& s : strings_) strs.str(s);
    CanonicalWriter typ;
    typ.u32(static_cast<std::uint32_t>(types_.size()));
    for (const auto& t : types_) typ.raw(t);
    CanonicalWriter att;
    att.u32(static_cast<std::uint32_t>(attr_maps_.size()));
    for (const auto& a : attr_maps_) att.raw(a);

    std::vector<std::pair<keg::SectionKind, std::vector<std::uint8_t>>> sections;
    sections.emplace_back(keg::SectionKind::strings, strs.take());
    sections.emplace_back(keg::SectionKind::types, typ.take());
    sections.emplace_back(keg::SectionKind::attributes, att.take());
    sections.emplace_back(keg::SectionKind::nodes, nodes.take());
    sections.emplace_back(keg::SectionKind::regions, regs.take());
    sections.emplace_back(keg::SectionKind::exports, exps.take());
    std::vector<const KegAttachment*> extra;  // in kind order, like the six
    for (const auto& a : attachments_) extra.push_back(&a);
    std::sort(extra.begin(), extra.end(), [](auto* a, auto* b) { return a->kind < b->kind; });
    for (const KegAttachment* a : extra) {
      if (a->kind == static_cast<std::uint32_t>(keg::SectionKind::blockir) ||
          a->kind == static_cast<std::uint32_t>(keg::SectionKind::provenance)) {
        sections.emplace_back(static_cast<keg::SectionKind>(a->kind), a->payload);  // framed by the layer that made it
        continue;
      }
      RUNG_CHECK(a->kind == static_cast<std::uint32_t>(keg::SectionKind::exec_plan), "write_keg: unknown attachment kind");
      CanonicalWriter w;
      w.u32(keg::kExecPlanFrameVersion);
      w.hash(g_.fingerprint());
      w.raw(a->payload);
      sections.emplace_back(static_cast<keg::SectionKind>(a->kind), w.take());
    }
    return assemble(sections);
  }

 private:
  std::uint32_t intern_string(const std::string& s) {
    auto [it, inserted] = string_ids_.emplace(s, static_cast<std::uint32_t>(strings_.size()));
    if (inserted) strings_.push_back(s);
    return it->second;
  }

  void write_shape(CanonicalWriter& w, const Shape& shape) {
    w.u32(static_cast<std::uint32_t>(shape.size()));
    for (const auto& d : shape) {
      if (d.is_static()) {
        w.u8(0);
        w.u64(d.extent());
      } else {
        w.u8(1);
        w.u32(intern_string(d.name()));
      }
    }
  }

  std::uint32_t intern_type(const TensorType& t) {
    CanonicalWriter w;
    w.u8(static_cast<std::uint8_t>(t.dtype));
    w.u8(static_cast<std::uint8_t>(t.space));
    write_shape(w, t.shape);
    return intern_blob(types_, type_ids_, w.take());
  }

  std::uint32_t intern_attrs(const AttrMap& attrs) {
    CanonicalWriter w;
    w.u32(static_cast<std::uint32_t>(attrs.size()));
    for (const auto& [key, v] : attrs) {
      w.u32(intern_string(key));
      w.u8(static_cast<std::uint8_t>(v.kind()));
      switch (v.kind()) {
        case AttrKind::string: w.u32(intern_string(v.as<std::string>())); break;
        case AttrKind::shape: write_shape(w, v.as<Shape>()); break;
        default: {
          CanonicalWriter payload;
          v.encode(payload);  // kind byte + payload; the kind byte is already written
          w.raw(std::span(payload.data()).subspan(1));
        }
      }
    }
    return intern_blob(attr_maps_, attr_ids_, w.take());
  }

  static std::uint32_t intern_blob(std::vector<std::vector<std::uint8_t>>& table,
                                   std::unordered_map<std::string, std::uint32_t>& ids, std::vector<std::uint8_t> blob) {
    std::string key(blob.begin(), blob.end());
    auto [it, inserted] = ids.emplace(std::move(key), static_cast<std::uint32_t>(table.size()));
    if (inserted) table.push_back(std::move(blob));
    return it->second;
  }

  std::vector<std::uint8_t> assemble(const std::vector<std::pair<keg::SectionKind, std::vector<std::uint8_t>>>& sections) {
    CanonicalWriter out;
    out.raw(std::span(keg::kMagic));
    out.u16(keg::kMajor);
    std::uint16_t minor = keg::kMinor;
    for (const auto& [kind, data] : sections) {
      if (kind == keg::SectionKind::exec_plan) minor = std::max(minor, keg::kMinorWithExecPlan);
      if (kind == keg::SectionKind::blockir) minor = std::max(minor, keg::kMinorWithBlockIR);
    }
    out.u16(minor);
    out.u32(keg::kHeaderSize);
    out.u32(static_cast<std::uint32_t>(sections.size()));
    out.u64(keg::kHeaderSize);  // the section table follows the header
    out.hash(g_.fingerprint());
    RUNG_CHECK(out.size() == keg::kHeaderSize, "header layout");
    std::uint64_t offset = keg::kHeaderSize + std::uint64_t{keg::kEntrySize} * sections.size();
    for (const auto& [kind, data] : sections) {
      offset = (offset + 7) & ~std::uint64_t{7};
      out.u32(static_cast<std::uint32_t>(kind));
      bool optional = kind == keg::SectionKind::exec_plan || kind == keg::SectionKind::provenance;
      out.u32(optional ? keg::kFlagOptional : 0);
      out.u64(offset);
      out.u64(data.size());
      out.hash(sha3_256(data));
      offset += data.size();
    }
    for (const auto& [kind, data] : sections) {
      while (out.size() % 8) out.u8(0);
      out.raw(data);
    }
    return out.take();
  }

  const Graph& g_;
  std::span<const KegAttachment> attachments_;
  std::vector<std::string> strings_;
  std::unordered_map<std::string, std::uint32_t> string_ids_;
  std::vector<std::vector<std::uint8_t>> types_, attr_maps_;
  std::unordered_map<std::string, std::uint32_t> type_ids_, attr_ids_;
};

}  // namespace

std::string_view keg::section_name(std::uint32_t kind) {
  switch (kind) {
    case 1: return "strings";
    case 2: return "types";
    case 3: return "attributes";
    case 4: return "nodes";
    case 5: return "regions";
    case 6: return "exports";
    case 7: return "exec_plan";
    case 8: return "blockir";
    case 9: return "provenance";
    default: return "unknown";
  }
}

std::vector<std::uint8_t> write_keg(const Graph& g, std::span<const KegAttachment> attachments) {
  for (std::size_t i = 0; i < attachments.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) RUNG_CHECK(attachments[i].kind != attachments[j].kind, "write_keg: an attachment kind twice");
  return Writer(g, attachments).run();
}

}  // namespace rung
