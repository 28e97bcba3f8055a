#include "runtime/walk_common.h"

#include "ir/graph/walk.h"

namespace rung::runtime {

std::string fit_type(const TensorType& declared, DType dtype, std::span<const std::uint64_t> shape, DimBindings& bindings) {
  if (declared.dtype != dtype)
    return "has dtype " + std::string(dtype_name(dtype)) + ", expected " + std::string(dtype_name(declared.dtype));
  if (declared.rank() != shape.size())
    return "has shape " + ops::extents_to_string(ops::Extents(shape.begin(), shape.end())) + " (rank " +
           std::to_string(shape.size()) + "), expected " + declared.to_string() + " (rank " + std::to_string(declared.rank()) + ")";
  for (std::size_t i = 0; i < declared.rank(); ++i) {
    const Dim& d = declared.shape[i];
    std::uint64_t got = shape[i];
    if (d.is_static()) {
      if (d.extent() != got)
        return "has extent " + std::to_string(got) + " in dimension " + std::to_string(i) + ", expected " + std::to_string(d.extent()) +
               " (type " + declared.to_string() + ")";
    } else if (auto [it, inserted] = bindings.emplace(d.name(), got); !inserted && it->second != got) {
      return "has extent " + std::to_string(got) + " in dimension " + std::to_string(i) + ", but " + d.name() + " = " +
             std::to_string(it->second) + " already (type " + declared.to_string() + ")";
    }
  }
  return {};
}

namespace {
bool has_bound_symbol(const Shape& s, const DimBindings& bindings) {
  for (const Dim& d : s)
    if (!d.is_static() && bindings.count(d.name())) return true;
  return false;
}
}  // namespace

const AttrMap& bind_shape_attrs(const AttrMap& attrs, const DimBindings& bindings, AttrMap& scratch) {
  bool any = false;
  for (const auto& [name, v] : attrs) any = any || (v.is<Shape>() && has_bound_symbol(v.as<Shape>(), bindings));
  if (!any) return attrs;
  scratch = attrs;
  for (auto& [name, v] : scratch) {
    if (!v.is<Shape>()) continue;
    Shape s = v.as<Shape>();
    for (Dim& d : s)
      if (!d.is_static())
        if (auto it = bindings.find(d.name()); it != bindings.end()) d = Dim::fixed(it->second);
    v = AttrValue(std::move(s));
  }
  return scratch;
}

std::string fit_type(const TensorType& declared, const ops::HostTensor& value, DimBindings& bindings) {
  return fit_type(declared, value.dtype(), value.shape(), bindings);
}

bool check_region_entry(const Region& r, std::size_t args, int depth, int max_depth, DiagnosticSink& diags) {
  if (depth > max_depth) {
    diags.error("R0004", "calls nested more than " + std::to_string(max_depth) + " deep (in `" + r.name + "`)");
    return false;
  }
  if (args != r.params.size()) {
    diags.error("R0001", "`" + r.name + "` takes " + std::to_string(r.params.size()) + " arguments, " + std::to_string(args) +
                             " were given");
    return false;
  }
  return true;
}

bool check_argument(const Graph& g, const Region& r, std::size_t i, DType dtype, std::span<const std::uint64_t> shape,
                    DimBindings& bindings, DiagnosticSink& diags) {
  const Node& p = g.node(r.params[i]);
  std::string why = fit_type(p.outputs[0], dtype, shape, bindings);
  if (why.empty()) return true;
  diags.error("R0002", "argument `" + p.attrs.at("name").as<std::string>() + "` of `" + r.name + "` " + why);
  return false;
}

bool check_result_count(const Graph& g, NodeId n, std::size_t count, DiagnosticSink& diags) {
  const Node& node = g.node(n);
  if (count == node.outputs.size()) return true;
  diags.error("R0003", describe_node(g, n) + " produced " + std::to_string(count) + " results, its type declares " +
                           std::to_string(node.outputs.size()));
  return false;
}

bool check_result(const Graph& g, NodeId n, std::size_t i, DType dtype, std::span<const std::uint64_t> shape,
                  DimBindings& bindings, DiagnosticSink& diags) {
  std::string why = fit_type(g.node(n).outputs[i], dtype, shape, bindings);
  if (why.empty()) return true;
  diags.error("R0003", describe_node(g, n) + " result " + std::to_string(i) + " " + why);
  return false;
}

ops::HostTensor constant_value(const Node& node) {
  const TensorType& t = node.outputs[0];
  ops::Extents ext;
  for (const auto& d : t.shape) ext.push_back(d.extent());
  const Bytes& b = node.attrs.at("value").as<Bytes>();
  return ops::HostTensor(t.dtype, std::move(ext), std::vector<std::uint8_t>(b.begin(), b.end()));
}

std::unordered_map<NodeId, std::size_t> uses_in_region(const Graph& g, const Region& r, std::span<const NodeId> order) {
  std::unordered_map<NodeId, std::size_t> uses;
  for (NodeId n : order)
    for (const auto& in : g.node(n).inputs) ++uses[in.node];
  for (const auto& v : r.results) ++uses[v.node];
  return uses;
}

}  // namespace rung::runtime
