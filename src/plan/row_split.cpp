#include "plan/row_split.h"

#include "ir/graph/walk.h"
#include "ops/registry.h"

namespace rung::plan {
namespace {

constexpr const char* kRowsSymbol = "rows.chunk";

bool is_matmul_rows(const Node& n) {
  auto ta = n.attrs.find("transpose_a");
  return n.opcode == "matmul" && n.inputs.size() == 2 && !(ta != n.attrs.end() && ta->second.is<bool>() && ta->second.as<bool>());
}

}  // namespace

RowSplit row_split(const Graph& g, RegionId rid, const std::vector<std::vector<std::uint64_t>>& args, std::uint64_t chunk) {
  RowSplit s;
  const Region& r = g.region(rid);
  for (const auto& a : args)
    if (!a.empty() && a[0] > chunk) s.rows = std::max(s.rows, a[0]);
  if (s.rows == 0) return s;  // nothing larger than a chunk: runs whole, nothing to say
  auto refuse = [&](std::string why) {
    s.why = "`" + r.name + "`: " + std::move(why);
    return s;
  };
  // Symbols bound from the arguments, to read the leading extent of declared types.
  std::map<std::string, std::uint64_t> bound;
  std::map<NodeId, bool> split;
  s.split.assign(r.params.size(), false);
  for (std::size_t i = 0; i < r.params.size() && i < args.size(); ++i) {
    const TensorType& t = g.node(r.params[i]).outputs.at(0);
    for (std::size_t d = 0; d < t.shape.size() && d < args[i].size(); ++d)
      if (!t.shape[d].is_static()) bound.emplace(t.shape[d].name(), args[i][d]);
    s.split[i] = !args[i].empty() && args[i][0] == s.rows;
    if (s.split[i] && dtype_info(t.dtype).block_elems != 1) return refuse("argument " + std::to_string(i) + " has no fixed row size");
    split[r.params[i]] = s.split[i];
  }
  auto lead = [&](const TensorType& t) -> std::uint64_t {
    if (t.shape.empty()) return 0;
    if (t.shape[0].is_static()) return t.shape[0].extent();
    auto it = bound.find(t.shape[0].name());
    return it == bound.end() ? 0 : it->second;
  };
  for (NodeId n : nodes_in_region(g, r)) {
    if (split.count(n)) continue;
    const Node& node = g.node(n);
    std::vector<bool> in;
    bool any = false;
    for (const auto& v : node.inputs) {
      in.push_back(split.at(v.node));
      any = any || in.back();
    }
    std::string what = describe_node(g, n);
    if (!any) {
      for (const auto& t : node.outputs)
        if (lead(t) == s.rows) return refuse(what + " makes " + std::to_string(s.rows) + " rows from operands that are not split");
      split[n] = false;
      continue;
    }
    if (node.outputs.size() != 1) return refuse(what + " has several results");
    const TensorType& out = node.outputs[0];
    const ops::OpDef* def = ops::op_registry().find(node.opcode);
    if (def && def->family == "elementwise") {
      for (std::size_t i = 0; i < in.size(); ++i) {
        const TensorType& t = g.node(node.inputs[i].node).outputs.at(node.inputs[i].output);
        bool broadcast = t.shape.size() < out.shape.size() || lead(t) == 1;
        if (!in[i] && !broadcast) return refuse(what + ": operand " + std::to_string(i) + " is neither split nor broadcast along the rows");
        if (in[i] && t.shape.size() != out.shape.size()) return refuse(what + ": operand " + std::to_string(i) + " changes rank");
      }
    } else if (is_matmul_rows(node) && in[0] && !in[1]) {
      // rows of the left operand; the right one is used whole by every chunk
    } else {
      bool across = false;  // a reduction whose axes include dim 0 (or all dims)
      if (def && def->family == "reduce") {
        auto ax = node.attrs.find("axes");
        across = ax == node.attrs.end() || !ax->second.is<std::vector<std::int64_t>>() || ax->second.as<std::vector<std::int64_t>>().empty();
        if (!across)
          for (auto a : ax->second.as<std::vector<std::int64_t>>())
            across = across || a == 0 || a == -static_cast<std::int64_t>(g.node(node.inputs[0].node).outputs.at(node.inputs[0].output).shape.size());
      }
      return refuse(what + (across ? " reduces across the rows" : " is not split (only elementwise ops and row-wise matmul are)"));
    }
    split[n] = true;
  }
  for (std::size_t i = 0; i < r.results.size(); ++i)
    if (!split.at(r.results[i].node)) return refuse("result " + std::to_string(i) + " is not one row per input row");
  s.ok = true;
  return s;
}

RowChunker::Decision RowChunker::decide(RegionId r, const std::vector<std::vector<std::uint64_t>>& args) {
  Decision d;
  d.region = r;
  RowSplit s = row_split(g_, r, args, chunk_);
  if (!s.ok) return d;
  d.rows = s.rows;
  d.chunk = chunk_;
  d.split = s.split;
  auto key = std::make_pair(r, s.rows);
  if (auto it = copies_.find(key); it != copies_.end()) {
    d.region = it->second;
    return d;
  }
  // The copy: every value with `rows` leading rows gets the symbol instead (split values
  // only: row_split refused any other value of that many rows).
  const Region reg = g_.region(r);
  std::map<std::string, std::uint64_t> bound;
  for (std::size_t i = 0; i < reg.params.size() && i < args.size(); ++i) {
    const TensorType& t = g_.node(reg.params[i]).outputs.at(0);
    for (std::size_t k = 0; k < t.shape.size() && k < args[i].size(); ++k)
      if (!t.shape[k].is_static()) bound.emplace(t.shape[k].name(), args[i][k]);
  }
  auto retype = [&](TensorType& t) {
    if (t.shape.empty()) return;
    std::uint64_t lead = t.shape[0].is_static() ? t.shape[0].extent()
                         : bound.count(t.shape[0].name()) ? bound.at(t.shape[0].name()) : 0;
    if (lead == s.rows) t.shape[0] = Dim::symbol(kRowsSymbol);
  };
  std::map<NodeId, NodeId> remap;
  Region copy;
  copy.name = reg.name + ".rows";
  for (std::size_t i = 0; i < reg.params.size(); ++i) {
    Node p = g_.node(reg.params[i]);
    if (s.split[i]) retype(p.outputs[0]);
    p.hash = {};
    remap[reg.params[i]] = g_.add(std::move(p));
    copy.params.push_back(remap[reg.params[i]]);
  }
  for (NodeId n : nodes_in_region(g_, reg)) {
    if (remap.count(n)) continue;
    Node node = g_.node(n);
    for (auto& in : node.inputs) in.node = remap.at(in.node);
    for (auto& t : node.outputs) retype(t);  // only split values have `rows` leading rows
    node.hash = {};
    remap[n] = g_.add(std::move(node));
  }
  for (const auto& v : reg.results) copy.results.push_back({remap.at(v.node), v.output});
  d.region = g_.add_region(std::move(copy));
  copies_[key] = d.region;
  return d;
}

}  // namespace rung::plan
