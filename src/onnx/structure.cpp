#include "onnx/structure.h"

#include <set>

#include "onnx/dtypes.h"
#include "onnx/handlers.h"
#include "onnx/place.h"

namespace rung::onnx_import {
namespace {

constexpr std::int64_t kMaxIrVersion = 8;  // onnx 1.12

bool is_default_domain(const std::string& d) { return d.empty() || d == "ai.onnx"; }

bool check_value(const ::onnx::ValueInfoProto& v, const std::string& place, const Limits& limits, DiagnosticSink& diags) {
  if (v.name().size() > limits.max_name_bytes) {
    diags.error("I0002", place + ": the name is longer than " + std::to_string(limits.max_name_bytes) + " bytes");
    return false;
  }
  if (!v.has_type() || !v.type().has_tensor_type()) {
    const char* kind = !v.has_type() ? "no type" : v.type().has_sequence_type() ? "a sequence" : v.type().has_map_type() ? "a map"
                       : v.type().has_optional_type() ? "an optional" : v.type().has_sparse_tensor_type() ? "a sparse tensor" : "an unknown kind";
    diags.error("I0007", place + ": the value is " + std::string(kind) + "; rung imports dense tensors only");
    return false;
  }
  const auto& t = v.type().tensor_type();
  if (!dtype_of(t.elem_type())) {
    diags.error("I0007", place + ": element type " + onnx_type_name(t.elem_type()) + " is not supported");
    return false;
  }
  if (!t.has_shape()) {
    diags.error("I0012", place + ": the value has no shape (not even a rank)")
        .note("rung needs every graph input's and output's rank; export with shapes");
    return false;
  }
  if (static_cast<std::uint64_t>(t.shape().dim_size()) > limits.max_rank) {
    diags.error("I0002", place + ": rank " + std::to_string(t.shape().dim_size()) + " is over the limit of " + std::to_string(limits.max_rank));
    return false;
  }
  std::uint64_t count = 1;  // of the static dims, by checked multiplication
  for (int i = 0; i < t.shape().dim_size(); ++i) {
    const auto& d = t.shape().dim(i);
    if (d.has_dim_value() && d.dim_value() > 0) {
      auto e = static_cast<std::uint64_t>(d.dim_value());
      if (count > UINT64_MAX / e) {
        diags.error("I0006", place + ": the dims' element count overflows 64 bits");
        return false;
      }
      count *= e;
    }
    if (d.has_dim_value() && d.dim_value() < 0) {
      diags.error("I0006", place + ": dim " + std::to_string(i) + " is " + std::to_string(d.dim_value()) + " (negative)");
      return false;
    }
    if (d.has_dim_param() && d.dim_param().size() > 256) {
      diags.error("I0002", place + ": dim " + std::to_string(i) + "'s name is longer than 256 bytes");
      return false;
    }
  }
  return true;
}

bool check_names(const ::onnx::GraphProto& g, const Limits& limits, DiagnosticSink& diags, std::int64_t opset) {
  std::set<std::string> defined;
  auto define = [&](const std::string& name, const std::string& place) {
    if (name.empty()) {
      diags.error("I0013", place + ": an empty name");
      return false;
    }
    if (name.size() > limits.max_name_bytes) {
      diags.error("I0002", place + ": a name longer than " + std::to_string(limits.max_name_bytes) + " bytes");
      return false;
    }
    if (!defined.insert(name).second) {
      diags.error("I0013", place + ": the name " + quoted(name) + " is defined twice");
      return false;
    }
    return true;
  };
  std::set<std::string> initializers;
  for (int i = 0; i < g.initializer_size(); ++i) {
    std::string place = "graph.initializer[" + std::to_string(i) + "] " + quoted(g.initializer(i).name());
    if (!define(g.initializer(i).name(), place)) return false;
    initializers.insert(g.initializer(i).name());
  }
  for (int i = 0; i < g.input_size(); ++i) {
    std::string place = "graph.input[" + std::to_string(i) + "] " + quoted(g.input(i).name());
    if (!check_value(g.input(i), place, limits, diags)) return false;
    // An input may repeat an initializer's name (its default value); two inputs may not share one.
    if (initializers.count(g.input(i).name())) {
      initializers.erase(g.input(i).name());
      continue;
    }
    if (!define(g.input(i).name(), place)) return false;
  }
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    std::string place = node_place(static_cast<std::size_t>(i), n.name(), n.op_type(), opset);
    if (static_cast<std::uint64_t>(n.attribute_size()) > limits.max_attributes) {
      diags.error("I0002", place + ": " + std::to_string(n.attribute_size()) + " attributes, over the limit of " +
                               std::to_string(limits.max_attributes));
      return false;
    }
    if (n.input_size() > 4096 || n.output_size() > 4096) {
      diags.error("I0002", place + ": more than 4096 inputs or outputs");
      return false;
    }
    std::set<std::string> attrs;
    for (const auto& a : n.attribute())
      if (!attrs.insert(a.name()).second) {
        diags.error("I0013", place + ": attribute " + quoted(a.name()) + " appears twice");
        return false;
      }
    for (int k = 0; k < n.input_size(); ++k) {
      const std::string& in = n.input(k);
      if (!in.empty() && !defined.count(in)) {
        diags.error("I0013", place + ": input " + std::to_string(k) + " " + quoted(in) + " is used before it is defined (or never defined)")
            .note("ONNX nodes are listed in topological order: a value's producer comes before its users");
        return false;
      }
    }
    for (int k = 0; k < n.output_size(); ++k)
      if (!n.output(k).empty() && !define(n.output(k), place + ".output[" + std::to_string(k) + "]")) return false;
  }
  std::set<std::string> outputs;
  for (int i = 0; i < g.output_size(); ++i) {
    std::string place = "graph.output[" + std::to_string(i) + "] " + quoted(g.output(i).name());
    if (!check_value(g.output(i), place, limits, diags)) return false;
    if (!defined.count(g.output(i).name())) {
      diags.error("I0013", place + ": no input, initializer or node defines it");
      return false;
    }
    if (!outputs.insert(g.output(i).name()).second) {
      diags.error("I0013", place + ": the output is listed twice");
      return false;
    }
  }
  if (g.output_size() == 0) {
    diags.error("I0013", "the graph has no outputs");
    return false;
  }
  return true;
}

}  // namespace

std::optional<std::int64_t> check_structure(const ::onnx::ModelProto& m, const Limits& limits, DiagnosticSink& diags) {
  if (!m.has_ir_version() || m.ir_version() < 3) {
    diags.error("I0003", "IR version " + std::to_string(m.ir_version()) + ": rung imports IR versions 3 to " + std::to_string(kMaxIrVersion))
        .note(m.has_ir_version() ? "IR versions before 3 have no opset imports" : "the model states no IR version (is this an ONNX file?)");
    return std::nullopt;
  }
  if (m.ir_version() > kMaxIrVersion) {
    diags.error("I0003", "IR version " + std::to_string(m.ir_version()) + " is newer than this rung reads (up to " +
                             std::to_string(kMaxIrVersion) + ", onnx 1.12)");
    return std::nullopt;
  }
  std::int64_t opset = 0;
  std::set<std::string> domains;
  for (int i = 0; i < m.opset_import_size(); ++i) {
    const auto& o = m.opset_import(i);
    std::string domain = is_default_domain(o.domain()) ? "ai.onnx" : o.domain();
    if (!domains.insert(domain).second) {
      diags.error("I0003", "opset_import[" + std::to_string(i) + "]: domain " + quoted(domain) + " is imported twice");
      return std::nullopt;
    }
    if (domain != "ai.onnx") continue;  // other domains matter only where a node uses them (I0004)
    if (o.version() < kMinOpset || o.version() > kMaxOpset) {
      diags.error("I0003", "opset_import[" + std::to_string(i) + "]: ai.onnx opset " + std::to_string(o.version()) +
                               " is outside the supported range " + std::to_string(kMinOpset) + "-" + std::to_string(kMaxOpset))
          .note("rung's handlers follow onnx 1.12, whose newest ai.onnx opset is 17; re-export at opset 17 or older");
      return std::nullopt;
    }
    opset = o.version();
  }
  if (!m.has_graph()) {
    diags.error("I0001", "the model has no graph");
    return std::nullopt;
  }
  const auto& g = m.graph();
  auto over = [&](const char* what, std::uint64_t n, std::uint64_t limit) {
    if (n <= limit) return false;
    diags.error("I0002", "the graph has " + std::to_string(n) + " " + what + ", over the limit of " + std::to_string(limit));
    return true;
  };
  if (over("nodes", static_cast<std::uint64_t>(g.node_size()), limits.max_nodes) ||
      over("initializers", static_cast<std::uint64_t>(g.initializer_size()), limits.max_initializers) ||
      over("inputs, outputs and value infos", static_cast<std::uint64_t>(g.input_size() + g.output_size() + g.value_info_size()),
           limits.max_values))
    return std::nullopt;
  if (g.sparse_initializer_size() > 0) {
    diags.error("I0007", "graph.sparse_initializer[0] " + quoted(g.sparse_initializer(0).values().name()) + ": sparse initializers are not supported");
    return std::nullopt;
  }
  bool uses_default = false;
  for (const auto& n : g.node()) uses_default = uses_default || is_default_domain(n.domain());
  if (uses_default && opset == 0) {
    diags.error("I0003", "the graph uses ai.onnx ops but the model imports no ai.onnx opset");
    return std::nullopt;
  }
  if (!check_names(g, limits, diags, opset)) return std::nullopt;
  return opset;
}

}  // namespace rung::onnx_import
