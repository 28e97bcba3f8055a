#include "plan/tiling.h"

#include <algorithm>
#include <map>

#include "ir/graph/walk.h"
#include "ops/registry.h"
#include "plan/size.h"

namespace rung::plan {
namespace {

std::uint64_t bytes_of(DType dt, const std::vector<std::uint64_t>& shape) {
  std::uint64_t n = 1;
  for (auto e : shape) n *= e;
  return storage_bytes(dt, n).value_or(UINT64_MAX);
}

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

struct Operand {
  DType dtype;
  std::vector<std::uint64_t> shape;
};

// How many dim-0 tiles make every split operand/result fit; 0 if the op cannot be split so.
// `split[i]`: whether operand i is split (the others are passed whole).
std::uint32_t tiles_for(const std::string& op, const AttrMap& attrs, const std::vector<Operand>& ins, const Operand& out,
                        std::uint64_t limit, std::vector<bool>& split, std::string& why) {
  const ops::OpDef* def = ops::op_registry().find(op);
  bool elementwise = def && def->family == "elementwise";
  auto ta = attrs.find("transpose_a");
  bool matmul = op == "matmul" && ins.size() == 2 && ins[0].shape.size() == 2 && ins[1].shape.size() == 2 &&
                !(ta != attrs.end() && ta->second.is<bool>() && ta->second.as<bool>());
  if (out.shape.empty() || (!elementwise && !matmul)) {
    why += "; `" + op + "` cannot be split along dim 0";
    return 0;
  }
  std::uint64_t rows = out.shape[0];
  split.assign(ins.size(), false);
  std::uint64_t tiles = ceil_div(bytes_of(out.dtype, out.shape), limit);
  for (std::size_t i = 0; i < ins.size(); ++i) {
    bool rowwise = matmul ? i == 0 : (ins[i].shape.size() == out.shape.size() && ins[i].shape[0] == rows && rows > 1);
    std::uint64_t b = bytes_of(ins[i].dtype, ins[i].shape);
    if (rowwise) {
      split[i] = true;
      tiles = std::max(tiles, ceil_div(b, limit));
    } else if (b > limit) {
      why += "; operand " + std::to_string(i) + " (" + format_bytes(b) + ") is used whole by every tile";
      return 0;
    }
  }
  if (tiles > rows) {
    why += "; one row alone exceeds the limit";
    return 0;
  }
  return static_cast<std::uint32_t>(std::max<std::uint64_t>(tiles, 1));
}

}  // namespace

void annotate_tiling(MemoryPlan& plan, const Graph& g, std::uint64_t limit) {
  if (limit == 0) return;
  for (std::uint32_t d = 0; d < plan.dispatches.size(); ++d) {
    Dispatch& dsp = plan.dispatches[d];
    std::uint64_t largest = 0;
    std::vector<Operand> ins;
    for (auto id : dsp.inputs) {
      largest = std::max(largest, plan.buffers[id].bytes);
      ins.push_back({plan.buffers[id].dtype, plan.buffers[id].shape});
    }
    for (auto id : dsp.outputs) largest = std::max(largest, plan.buffers[id].bytes);
    if (largest <= limit || dsp.outputs.empty()) continue;
    const Buffer& out = plan.buffers[dsp.outputs[0]];
    Tiling t;
    t.dispatch = d;
    t.largest = largest;
    t.why = "`" + dsp.op + "` in `" + dsp.region + "` binds " + format_bytes(largest) + " > limit " + format_bytes(limit);
    std::vector<bool> split;
    t.tiles = dsp.outputs.size() == 1 ? tiles_for(dsp.op, g.node(dsp.node).attrs, ins, {out.dtype, out.shape}, limit, split, t.why) : 0;
    if (dsp.outputs.size() != 1) t.why += "; ops with several results are not split";
    dsp.tiles = std::max<std::uint32_t>(t.tiles, 1);
    for (auto id : dsp.outputs) plan.buffers[id].tiles = dsp.tiles;
    plan.tilings.push_back(std::move(t));
  }
}

std::optional<RegionId> tile_region(Graph& g, RegionId rid, std::uint64_t limit, std::size_t& split_count, DiagnosticSink& diags,
                                    const std::map<std::string, std::uint64_t>& dims) {
  split_count = 0;
  const Region r = g.region(rid);
  std::vector<NodeId> order = nodes_in_region(g, r);
  // Symbolic dims take the extents the run bound (from its arguments): the copy is specialised.
  auto concrete = [&](TensorType t) -> std::optional<TensorType> {
    for (auto& d : t.shape)
      if (!d.is_static()) {
        auto it = dims.find(d.name());
        if (it == dims.end()) return std::nullopt;
        d = Dim::fixed(it->second);
      }
    return t;
  };
  for (NodeId n : order)
    for (const auto& t : g.node(n).outputs)
      if (!concrete(t)) {
        diags.error("L0006", "cannot tile `" + r.name + "`: " + describe_node(g, n) + " has symbolic type " + t.to_string() +
                                 " and no argument binds its dims");
        return std::nullopt;
      }
  auto extents = [](const TensorType& t) {
    std::vector<std::uint64_t> e;
    for (const auto& d : t.shape) e.push_back(d.extent());
    return e;
  };
  std::map<NodeId, NodeId> remap;  // old node -> new node (same outputs, made static)
  std::vector<NodeId> params;
  for (NodeId p : r.params) {
    Node param = g.node(p);
    if (param.outputs.at(0).is_static()) {
      remap[p] = p;
    } else {
      param.outputs[0] = *concrete(param.outputs[0]);
      param.hash = {};
      remap[p] = g.add(std::move(param));
    }
    params.push_back(remap[p]);
  }
  for (NodeId n : order) {
    if (remap.count(n)) continue;
    Node node = g.node(n);
    for (auto& t : node.outputs) t = *concrete(t);
    for (auto& in : node.inputs) in.node = remap.at(in.node);
    std::vector<Operand> ins;
    for (const auto& in : node.inputs) {
      const TensorType& t = g.node(in.node).outputs.at(in.output);
      ins.push_back({t.dtype, extents(t)});
    }
    std::uint64_t largest = 0;
    for (const auto& o : ins) largest = std::max(largest, bytes_of(o.dtype, o.shape));
    for (const auto& t : node.outputs) largest = std::max(largest, bytes_of(t.dtype, extents(t)));
    std::vector<bool> split;
    std::string why;
    std::uint32_t tiles = 0;
    if (largest > limit && node.outputs.size() == 1 && node.opcode != opcode::kCall && node.opcode != opcode::kConst)
      tiles = tiles_for(node.opcode, node.attrs, ins, {node.outputs[0].dtype, extents(node.outputs[0])}, limit, split, why);
    else if (largest > limit)
      why = "; calls, constants and ops with several results are not split";
    if (largest > limit && tiles == 0) {  // the plan says red for it; executing it is refused too
      diags.error("L0010", "cannot split " + describe_node(g, n) + " in `" + r.name + "` for the binding limit: it binds " +
                               format_bytes(largest) + " > " + format_bytes(limit) + why);
      return std::nullopt;
    }
    if (tiles <= 1) {
      node.hash = {};
      remap[n] = g.add(std::move(node));
      continue;
    }
    ++split_count;
    const TensorType out_t = node.outputs[0];
    std::uint64_t rows = extents(out_t)[0], per = ceil_div(rows, tiles);
    std::vector<ValueRef> parts;
    for (std::uint64_t lo = 0; lo < rows; lo += per) {
      std::uint64_t hi = std::min(rows, lo + per);
      Node piece;
      piece.opcode = node.opcode;
      piece.attrs = node.attrs;
      for (std::size_t i = 0; i < node.inputs.size(); ++i) {
        if (!split[i]) {
          piece.inputs.push_back(node.inputs[i]);
          continue;
        }
        TensorType st = g.node(node.inputs[i].node).outputs.at(node.inputs[i].output);
        st.shape[0] = Dim::fixed(hi - lo);
        Node slice;
        slice.opcode = "slice";
        slice.outputs = {st};
        slice.inputs = {node.inputs[i]};
        slice.attrs.emplace("starts", AttrValue(std::vector<std::int64_t>{static_cast<std::int64_t>(lo)}));
        slice.attrs.emplace("ends", AttrValue(std::vector<std::int64_t>{static_cast<std::int64_t>(hi)}));
        slice.attrs.emplace("axes", AttrValue(std::vector<std::int64_t>{0}));
        piece.inputs.push_back({g.add(std::move(slice)), 0});
      }
      TensorType pt = out_t;
      pt.shape[0] = Dim::fixed(hi - lo);
      piece.outputs = {pt};
      parts.push_back({g.add(std::move(piece)), 0});
    }
    Node cat;
    cat.opcode = "concat";
    cat.outputs = {out_t};
    cat.inputs = parts;
    cat.attrs.emplace("axis", AttrValue(std::int64_t{0}));
    remap[n] = g.add(std::move(cat));
  }
  Region out;
  out.name = r.name + ".tiled";
  out.params = params;
  for (const auto& v : r.results) out.results.push_back({remap.at(v.node), v.output});
  return g.add_region(std::move(out));
}

}  // namespace rung::plan
