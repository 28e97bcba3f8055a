#include "ir/graph/validator.h"

#include <unordered_set>

#include "base/utf8.h"

namespace rung {
namespace {

class Validator {
 public:
  Validator(const Graph& g, DiagnosticSink& d, const ValidateOptions& o) : g_(g), diags_(d), opts_(o) {}

  void run() {
    for (NodeId id = 0; id < g_.node_count(); ++id) check_node(id);
    for (RegionId r = 0; r < g_.region_count(); ++r) check_region(r);
    check_exports();
  }

 private:
  Diagnostic& node_error(NodeId id, const char* code, std::string msg) {
    auto& d = diags_.error(code, describe_node(g_, id) + ": " + std::move(msg));
    if (opts_.node_spans && id < opts_.node_spans->size()) d.primary((*opts_.node_spans)[id]);
    return d;
  }
  Diagnostic& region_error(RegionId r, const char* code, std::string msg) {
    const Region& reg = g_.region(r);
    auto& d = diags_.error(code, "region #" + std::to_string(r) + " `" + reg.name + "`: " + std::move(msg));
    if (opts_.region_spans && r < opts_.region_spans->size()) d.primary((*opts_.region_spans)[r]);
    return d;
  }

  bool value_exists(ValueRef v) const {
    return v.node < g_.node_count() && v.output < g_.node(v.node).outputs.size();
  }

  void check_type(NodeId id, const TensorType& t, std::size_t index) {
    for (const auto& d : t.shape)
      if (!d.is_static() && (d.name().empty() || !utf8::is_valid(d.name())))
        node_error(id, "G0007", "output " + std::to_string(index) + " has an unnamed symbolic dimension");
    if (dtype_info(t.dtype).is_quantized)
      if (auto n = t.element_count(); n && *n % dtype_info(t.dtype).block_elems != 0)
        node_error(id, "G0007", "output " + std::to_string(index) + " of type " + t.to_string() +
                                    " does not fill whole 32-element quantization blocks");
  }

  void check_node(NodeId id) {
    const Node& n = g_.node(id);
    if (n.schema != kSchemaVersion)
      node_error(id, "G0006", "schema version " + std::to_string(n.schema) + " is not supported (this rung reads " +
                                  std::to_string(kSchemaVersion) + ")");
    bool inputs_ok = true;
    for (std::size_t i = 0; i < n.inputs.size(); ++i) {
      const ValueRef& in = n.inputs[i];
      std::string which = "input " + std::to_string(i);
      if (in.node >= g_.node_count()) {
        node_error(id, "G0002", which + " names node #" + std::to_string(in.node) + ", which does not exist (" +
                                    std::to_string(g_.node_count()) + " nodes)");
        inputs_ok = false;
        continue;
      }
      if (in.node >= id) {
        node_error(id, "G0003", which + " names node #" + std::to_string(in.node) +
                                    ", which does not precede its user (a cycle or a forward reference)");
        inputs_ok = false;
      }
      if (in.output >= g_.node(in.node).outputs.size()) {
        node_error(id, "G0004", which + " names output " + std::to_string(in.output) + " of " +
                                    describe_node(g_, in.node) + ", which has " +
                                    std::to_string(g_.node(in.node).outputs.size()) + " outputs");
        inputs_ok = false;
      }
    }
    for (std::size_t i = 0; i < n.outputs.size(); ++i) check_type(id, n.outputs[i], i);
    if (inputs_ok) {
      Hash256 h = g_.compute_node_hash(n);
      if (h != n.hash)
        node_error(id, "G0001", "stored hash does not match its content").note("recomputed " + h.hex());
    }
    if (auto first = g_.find_node(n.hash); first && *first != id)
      node_error(id, "G0005", "is stored twice (first as node #" + std::to_string(*first) + ")");
    if (!inputs_ok) return;

    if (n.opcode == opcode::kParam) check_param(id);
    else if (n.opcode == opcode::kConst) check_const(id);
    else if (n.opcode == opcode::kCall) check_call(id);
    else if (opts_.signatures && !opts_.signatures->check(g_, id, diags_))
      node_error(id, "G0014", "unknown opcode `" + n.opcode + "`");
  }

  void check_param(NodeId id) {
    const Node& n = g_.node(id);
    auto idx = n.attrs.find("index");
    auto name = n.attrs.find("name");
    if (!n.inputs.empty() || n.outputs.size() != 1 || idx == n.attrs.end() || !idx->second.is<std::int64_t>() ||
        idx->second.as<std::int64_t>() < 0 || name == n.attrs.end() || !name->second.is<std::string>() ||
        n.attrs.size() != 2)
      node_error(id, "G0010", "a param node has no inputs, one output and exactly the attributes index:int (>= 0) and name:string");
  }

  void check_const(NodeId id) {
    const Node& n = g_.node(id);
    auto v = n.attrs.find("value");
    if (!n.inputs.empty() || n.outputs.size() != 1 || v == n.attrs.end() || !v->second.is<Bytes>()) {
      node_error(id, "G0011", "a const node has no inputs, one output and a value:bytes attribute");
      return;
    }
    auto want = n.outputs[0].byte_size();
    if (!want) {
      node_error(id, "G0011", "a constant must have a static type, not " + n.outputs[0].to_string());
      return;
    }
    if (*want != v->second.as<Bytes>().size())
      node_error(id, "G0011", "value holds " + std::to_string(v->second.as<Bytes>().size()) + " bytes but type " +
                                  n.outputs[0].to_string() + " needs " + std::to_string(*want));
  }

  void check_call(NodeId id) {
    const Node& n = g_.node(id);
    auto c = n.attrs.find("callee");
    if (c == n.attrs.end() || !c->second.is<Hash256>()) {
      node_error(id, "G0012", "a call node needs a callee:hash attribute");
      return;
    }
    auto callee = g_.find_region(c->second.as<Hash256>());
    if (!callee) {
      node_error(id, "G0012", "callee region " + c->second.as<Hash256>().short_hex() + " does not exist");
      return;
    }
    const Region& r = g_.region(*callee);
    if (r.params.size() != n.inputs.size()) {
      node_error(id, "G0012", "passes " + std::to_string(n.inputs.size()) + " arguments to `" + r.name + "`, which takes " +
                                  std::to_string(r.params.size()));
    } else {
      for (std::size_t i = 0; i < r.params.size(); ++i) {
        if (r.params[i] >= g_.node_count() || g_.node(r.params[i]).outputs.empty()) continue;  // region check reports it
        const TensorType& want = g_.node(r.params[i]).outputs[0];
        const TensorType& got = g_.node(n.inputs[i].node).outputs[n.inputs[i].output];
        if (want.type_id() != got.type_id())
          node_error(id, "G0012", "argument " + std::to_string(i) + " has type " + got.to_string() + " but `" + r.name +
                                      "` expects " + want.to_string());
      }
    }
    if (r.results.size() != n.outputs.size()) {
      node_error(id, "G0012", "declares " + std::to_string(n.outputs.size()) + " results but `" + r.name + "` returns " +
                                  std::to_string(r.results.size()));
      return;
    }
    for (std::size_t i = 0; i < r.results.size(); ++i) {
      if (!value_exists(r.results[i])) continue;
      const TensorType& want = g_.node(r.results[i].node).outputs[r.results[i].output];
      if (want.type_id() != n.outputs[i].type_id())
        node_error(id, "G0012", "result " + std::to_string(i) + " declared as " + n.outputs[i].to_string() + " but `" +
                                    r.name + "` returns " + want.to_string());
    }
  }

  void check_region(RegionId rid) {
    const Region& r = g_.region(rid);
    bool refs_ok = true;
    std::unordered_set<NodeId> params;
    for (std::size_t i = 0; i < r.params.size(); ++i) {
      NodeId p = r.params[i];
      if (p >= g_.node_count() || g_.node(p).opcode != opcode::kParam) {
        region_error(rid, "G0021", "parameter " + std::to_string(i) + " is not a param node");
        refs_ok = false;
        continue;
      }
      if (!params.insert(p).second) region_error(rid, "G0026", "parameter " + std::to_string(i) + " repeats " + describe_node(g_, p));
      auto idx = g_.node(p).attrs.find("index");
      if (idx != g_.node(p).attrs.end() && idx->second.is<std::int64_t>() &&
          idx->second.as<std::int64_t>() != static_cast<std::int64_t>(i))
        region_error(rid, "G0022", "parameter " + std::to_string(i) + " is " + describe_node(g_, p) + " with index " +
                                       std::to_string(idx->second.as<std::int64_t>()));
    }
    for (std::size_t i = 0; i < r.results.size(); ++i)
      if (!value_exists(r.results[i])) {
        region_error(rid, "G0023", "result " + std::to_string(i) + " names a value that does not exist");
        refs_ok = false;
      }
    if (!refs_ok) return;

    Hash256 h = g_.compute_region_hash(r);
    if (h != r.hash) region_error(rid, "G0020", "stored hash does not match its content").note("recomputed " + h.hex());
    if (auto first = g_.find_region(r.hash); first && *first != rid)
      region_error(rid, "G0025", "is stored twice (first as region #" + std::to_string(*first) + ")");

    // Every param the results depend on must be one of this region's own parameters.
    // Iterative: depth may come from an untrusted file.
    std::vector<bool> seen(g_.node_count());
    std::vector<NodeId> stack;
    for (const auto& v : r.results) stack.push_back(v.node);
    while (!stack.empty()) {
      NodeId n = stack.back();
      stack.pop_back();
      if (seen[n]) continue;
      seen[n] = true;
      const Node& node = g_.node(n);
      if (node.opcode == opcode::kParam && !params.count(n))
        region_error(rid, "G0024", "uses " + describe_node(g_, n) + ", which is not one of its parameters");
      for (const auto& in : node.inputs)
        if (in.node < g_.node_count() && !seen[in.node]) stack.push_back(in.node);
    }
  }

  void check_exports() {
    for (const auto& [name, r] : g_.exports()) {
      if (name.empty() || !utf8::is_valid(name)) diags_.error("G0031", "an export has an empty or non-UTF-8 name");
      if (r >= g_.region_count())
        diags_.error("G0030", "export `" + name + "` names region #" + std::to_string(r) + ", which does not exist");
    }
  }

  const Graph& g_;
  DiagnosticSink& diags_;
  const ValidateOptions& opts_;
};

}  // namespace

bool validate(const Graph& g, DiagnosticSink& diags, const ValidateOptions& opts) {
  std::size_t before = diags.error_count();
  Validator(g, diags, opts).run();
  return diags.error_count() == before;
}

}  // namespace rung
