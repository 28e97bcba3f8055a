#include "backends/reference/interpreter.h"

#include <set>
#include <unordered_map>

#include "backends/reference/memory_meter.h"
#include "ir/graph/walk.h"
#include "ops/evaluate.h"

namespace rung::reference {

std::string fit_type(const TensorType& declared, const ops::HostTensor& value, DimBindings& bindings) {
  if (declared.dtype != value.dtype())
    return "has dtype " + std::string(dtype_name(value.dtype())) + ", expected " + std::string(dtype_name(declared.dtype));
  if (declared.rank() != value.rank())
    return "has shape " + ops::extents_to_string(value.shape()) + " (rank " + std::to_string(value.rank()) + "), expected " +
           declared.to_string() + " (rank " + std::to_string(declared.rank()) + ")";
  for (std::size_t i = 0; i < declared.rank(); ++i) {
    const Dim& d = declared.shape[i];
    std::uint64_t got = value.shape()[i];
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

class Interpreter {
 public:
  Interpreter(const Graph& g, DiagnosticSink& d, const RunOptions& o) : g_(g), diags_(d), opts_(o) {}

  std::optional<std::vector<ops::HostTensor>> run(RegionId rid, std::span<const ops::HostTensor> args, int depth) {
    const Region& r = g_.region(rid);
    if (depth > opts_.max_call_depth) {
      diags_.error("R0004", "calls nested more than " + std::to_string(opts_.max_call_depth) + " deep (in `" + r.name + "`)");
      return std::nullopt;
    }
    if (args.size() != r.params.size()) {
      diags_.error("R0001", "`" + r.name + "` takes " + std::to_string(r.params.size()) + " arguments, " +
                                std::to_string(args.size()) + " were given");
      return std::nullopt;
    }
    DimBindings bindings;
    std::unordered_map<NodeId, std::vector<ops::HostTensor>> values;
    for (std::size_t i = 0; i < args.size(); ++i) {
      const Node& p = g_.node(r.params[i]);
      std::string why = fit_type(p.outputs[0], args[i], bindings);
      if (!why.empty()) {
        diags_.error("R0002", "argument `" + p.attrs.at("name").as<std::string>() + "` of `" + r.name + "` " + why);
        return std::nullopt;
      }
      values[r.params[i]] = {args[i]};
    }

    std::set<NodeId> params(r.params.begin(), r.params.end());  // borrowed: not metered
    std::vector<NodeId> order = nodes_in_region(g_, r);
    // Remaining uses per node inside this region, so intermediates are freed early.
    std::unordered_map<NodeId, std::size_t> uses;
    for (NodeId n : order)
      for (const auto& in : g_.node(n).inputs) ++uses[in.node];
    for (const auto& v : r.results) ++uses[v.node];

    for (NodeId n : order) {
      if (values.count(n)) continue;  // a parameter
      const Node& node = g_.node(n);
      std::vector<ops::HostTensor> inputs;
      inputs.reserve(node.inputs.size());
      for (const auto& in : node.inputs) inputs.push_back(values.at(in.node).at(in.output));

      std::optional<std::vector<ops::HostTensor>> out;
      if (node.opcode == opcode::kConst) {
        const TensorType& t = node.outputs[0];
        std::vector<std::uint64_t> ext;
        for (const auto& d : t.shape) ext.push_back(d.extent());
        const Bytes& b = node.attrs.at("value").as<Bytes>();
        out.emplace();
        out->emplace_back(t.dtype, std::move(ext), std::vector<std::uint8_t>(b.begin(), b.end()));
      } else if (node.opcode == opcode::kCall) {
        if (!(opts_.call && opts_.call(g_, node, inputs, diags_, out))) {
          RegionId callee = *g_.find_region(node.attrs.at("callee").as<Hash256>());
          out = run(callee, inputs, depth + 1);
        }
        if (!out) return std::nullopt;
      } else {
        std::size_t before = diags_.all().size();
        if (opts_.evaluate) {
          const ops::OpDef* def = ops::op_registry().find(node.opcode);
          if (!def) {
            diags_.error("N0010", "unknown op `" + node.opcode + "`");
            return std::nullopt;
          }
          out = opts_.evaluate(*def, inputs, node.attrs, diags_);
        } else {
          ops::EvalOptions eo;
          eo.tier = opts_.tier;
          out = ops::evaluate(node.opcode, inputs, node.attrs, diags_, eo);
        }
        if (!out) {
          if (diags_.all().size() > before)
            diags_.last().note("while evaluating " + describe_node(g_, n) + " in `" + r.name + "`");
          return std::nullopt;
        }
      }
      if (out->size() != node.outputs.size()) {
        diags_.error("R0003", describe_node(g_, n) + " produced " + std::to_string(out->size()) + " results, its type declares " +
                                  std::to_string(node.outputs.size()));
        return std::nullopt;
      }
      for (std::size_t i = 0; i < out->size(); ++i) {
        std::string why = fit_type(node.outputs[i], (*out)[i], bindings);
        if (!why.empty()) {
          diags_.error("R0003", describe_node(g_, n) + " result " + std::to_string(i) + " " + why)
              .note("the graph's declared types and the op's shape rule disagree; the graph is inconsistent");
          return std::nullopt;
        }
      }
      for (const auto& t : *out) meter_allocate(t);
      values[n] = std::move(*out);
      for (const auto& in : node.inputs)
        if (--uses[in.node] == 0) {
          if (!params.count(in.node))
            for (const auto& t : values.at(in.node)) meter_release(t);
          values.erase(in.node);
        }
    }
    std::vector<ops::HostTensor> results;
    for (const auto& v : r.results) results.push_back(values.at(v.node).at(v.output));
    // What the region still holds goes with it (parameters are the caller's).
    for (const auto& [n, vs] : values)
      if (!params.count(n))
        for (const auto& t : vs) meter_release(t);
    return results;
  }

 private:
  const Graph& g_;
  DiagnosticSink& diags_;
  const RunOptions& opts_;
};

}  // namespace

std::optional<std::vector<ops::HostTensor>> run_region(const Graph& g, RegionId region,
                                                       std::span<const ops::HostTensor> args, DiagnosticSink& diags,
                                                       const RunOptions& options) {
  return Interpreter(g, diags, options).run(region, args, 0);
}

}  // namespace rung::reference
