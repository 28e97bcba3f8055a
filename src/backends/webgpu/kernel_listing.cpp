#include "backends/webgpu/kernel_listing.h"

#include <set>

#include "backends/webgpu/executor.h"
#include "backends/webgpu/wgsl/generator.h"
#include "ir/graph/type_parse.h"
#include "ir/graph/walk.h"

namespace rung::webgpu {

namespace {

std::optional<TensorDesc> desc_of(const TensorType& t) {
  TensorDesc d{t.dtype, {}};
  for (const auto& dim : t.shape) {
    if (!dim.is_static()) return std::nullopt;
    d.shape.push_back(dim.extent());
  }
  return d;
}

}  // namespace

bool op_kernel_text(const std::string& name, const std::vector<std::string>& types, std::string& out, DiagnosticSink& diags) {
  const ops::OpDef* op = ops::op_registry().find(name);
  if (!op) {
    diags.error("N0010", "unknown op `" + name + "`").note("`rung ops` lists every op");
    return false;
  }
  std::vector<TensorDesc> in;
  for (const auto& t : types) {
    std::string err;
    auto tt = parse_type(t, err);
    std::optional<TensorDesc> d = tt ? desc_of(*tt) : std::nullopt;
    if (!d) {
      diags.error("C0018", "--type `" + t + "` is not a static tensor type (" + (err.empty() ? "symbolic dims" : err) + ")")
          .note("write e.g. --type f32[4,8] once per operand");
      return false;
    }
    in.push_back(*d);
  }
  std::vector<TensorDesc> outs;
  auto p = program_for_types(*op, in, {}, DeviceCaps{}, outs, diags);
  if (!p) return false;
  out += program_text(*p);
  return true;
}

bool graph_kernel_text(const Graph& g, std::string& out, DiagnosticSink& diags) {
  std::set<std::string> seen;  // one listing per distinct (op, types, attrs)
  bool any = false;
  for (RegionId rid : g.reachable_regions()) {
    const Region& r = g.region(rid);
    for (NodeId n : nodes_in_region(g, r)) {
      const Node& node = g.node(n);
      const ops::OpDef* op = ops::op_registry().find(node.opcode);
      if (!op) continue;  // param, const, call
      std::vector<TensorDesc> in;
      bool fixed = true;
      for (const auto& v : node.inputs) {
        auto d = desc_of(g.node(v.node).outputs[v.output]);
        if (!d) fixed = false;
        else in.push_back(*d);
      }
      std::string header = "// ##### " + describe_node(g, n) + " in `" + r.name + "`\n";
      if (!fixed) {
        out += header + "// (symbolic operand shapes: the kernel is generated when the shapes are bound at run time)\n\n";
        continue;
      }
      std::string key = node.opcode + "|" + attrs_to_string(node.attrs);
      for (const auto& d : in) key += "|" + d.to_string();
      if (!seen.insert(key).second) continue;
      std::vector<TensorDesc> outs;
      DiagnosticSink local;
      auto p = program_for_types(*op, in, node.attrs, DeviceCaps{}, outs, local);
      out += header;
      if (!p) {
        for (const auto& d : local.all()) out += "// no kernel: " + d.code + " " + d.message + "\n";
        out += "\n";
        continue;
      }
      out += program_text(*p) + "\n";
      any = true;
    }
  }
  if (!any && out.empty()) diags.warning("C0018", "the program has no op nodes");
  return true;
}

}  // namespace rung::webgpu
