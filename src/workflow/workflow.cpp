#include "workflow/workflow.h"

#include <limits>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <set>

#include "base/text.h"
#include "ir/block/from_graph.h"
#include "ir/graph/builder.h"
#include "ir/graph/type_parse.h"
#include "ops/registry.h"
#include "ops/typing.h"

namespace rung::workflow {
namespace {

using nlohmann::json;

struct Port {
  std::string node;  // empty: a workflow input
  std::string port;
};

constexpr int kMaxJsonDepth = 64;

// The byte offset of the bracket that opens level kMaxJsonDepth + 1, if any (strings skipped).
std::optional<std::uint32_t> too_deep(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) return static_cast<std::uint32_t>(i);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::nullopt;
}

class Lowering {
 public:
  Lowering(SourceId src, const SourceMap& sm, DiagnosticSink& d) : src_(src), text_(sm.get(src).text()), d_(d) {}

  std::optional<block::Program> run() {
    // Parsed values are copied, compared and printed recursively: a document nested deeper
    // than any workflow needs is refused before it is parsed.
    if (std::optional<std::uint32_t> at = too_deep(text_)) {
      d_.error("W0001", "the JSON nests deeper than " + std::to_string(kMaxJsonDepth) + " levels")
          .primary(Span{src_, *at, *at + 1})
          .note("a workflow's deepest value (an attribute's list of lists) needs a handful of levels");
      return std::nullopt;
    }
    json doc;
    try {
      doc = json::parse(text_);
    } catch (const json::parse_error& e) {
      std::uint32_t at = static_cast<std::uint32_t>(std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text_.size()));
      d_.error("W0001", std::string("not valid JSON: ") + e.what()).primary(Span{src_, at, std::min<std::uint32_t>(at + 1, static_cast<std::uint32_t>(text_.size()))});
      return std::nullopt;
    }
    if (!header(doc) || !inputs(doc) || !nodes(doc) || !edges(doc) || !outputs(doc)) return std::nullopt;
    auto order = topological_order();
    if (!order) return std::nullopt;
    return build(*order);
  }

 private:
  // ---- locating things in the source, for underlines ------------------------------------
  Span locate(const std::string& quoted_value) const {
    std::string needle = "\"" + quoted_value + "\"";
    std::size_t at = text_.find(needle);
    if (at == std::string_view::npos) return Span{src_, 0, 0};
    return Span{src_, static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(at + needle.size())};
  }
  Diagnostic& error(const char* code, std::string msg, const std::string& where = {}, const std::string& pointer = {}) {
    auto& d = d_.error(code, std::move(msg));
    if (!where.empty()) d.primary(locate(where));
    if (!pointer.empty()) d.note("at JSON pointer " + pointer);
    return d;
  }

  // ---- document shape -------------------------------------------------------------------
  bool want(const json& j, const char* key, json::value_t type, const std::string& ptr, bool required = true) {
    if (!j.is_object() || !j.contains(key)) {
      if (required) error("W0002", std::string("missing field \"") + key + "\"", {}, ptr);
      return false;
    }
    auto t = j.at(key).type();
    bool ok = t == type || (type == json::value_t::number_integer && t == json::value_t::number_unsigned);
    if (!ok) {
      error("W0002", std::string("field \"") + key + "\" has the wrong type (" + j.at(key).type_name() + ")", {}, ptr + "/" + key);
      return false;
    }
    return true;
  }

  bool header(const json& doc) {
    if (!doc.is_object()) {
      error("W0002", "a workflow document is a JSON object");
      return false;
    }
    if (!want(doc, "format", json::value_t::string, "") || doc["format"] != "rung-workflow") {
      if (doc.contains("format")) error("W0002", "\"format\" must be \"rung-workflow\"", {}, "/format");
      return false;
    }
    if (!want(doc, "version", json::value_t::number_integer, "")) return false;
    if (doc["version"] != 1) {
      error("W0002", "unsupported workflow version " + doc["version"].dump() + " (this rung reads version 1)", {}, "/version");
      return false;
    }
    if (!want(doc, "name", json::value_t::string, "")) return false;
    name_ = doc["name"];
    if (name_.empty()) {
      error("W0002", "\"name\" must not be empty", {}, "/name");
      return false;
    }
    if (!doc.contains("tier")) {
      error("W0009", "the workflow declares no determinism tier")
          .note("add \"tier\": \"debug\" (bit-exact), \"prod\" (deterministic within a tolerance class) or \"fast\"")
          .note("rung never picks a tier for you");
      return false;
    }
    if (!want(doc, "tier", json::value_t::string, "")) return false;
    tier_ = doc["tier"];
    if (tier_ != "debug" && tier_ != "prod" && tier_ != "fast") {
      error("W0009", "unknown tier \"" + tier_ + "\" (debug, prod or fast)", tier_, "/tier");
      return false;
    }
    tolerance_ = "default";
    if (want(doc, "tolerance", json::value_t::string, "", false)) tolerance_ = doc["tolerance"];
    if (tolerance_ != "exact" && tolerance_ != "tight" && tolerance_ != "default" && tolerance_ != "loose") {
      error("W0002", "unknown tolerance class \"" + tolerance_ + "\" (exact, tight, default or loose)", tolerance_, "/tolerance");
      return false;
    }
    return true;
  }

  bool inputs(const json& doc) {
    if (!want(doc, "inputs", json::value_t::array, "")) return false;
    bool ok = true;
    for (std::size_t i = 0; i < doc["inputs"].size(); ++i) {
      const json& in = doc["inputs"][i];
      std::string ptr = "/inputs/" + std::to_string(i);
      if (!want(in, "name", json::value_t::string, ptr) || !want(in, "type", json::value_t::string, ptr)) {
        ok = false;
        continue;
      }
      std::string name = in["name"], why;
      auto t = parse_type(in["type"].get<std::string>(), why);
      if (!t) {
        error("W0010", "input \"" + name + "\": " + why, in["type"], ptr + "/type");
        ok = false;
        continue;
      }
      if (!ids_.insert(name).second) {
        error("W0008", "the name \"" + name + "\" is used twice", name, ptr + "/name");
        ok = false;
      }
      input_names_.push_back(name);
      input_types_.push_back(*t);
    }
    return ok;
  }

  bool nodes(const json& doc) {
    if (!want(doc, "nodes", json::value_t::array, "")) return false;
    bool ok = true;
    for (std::size_t i = 0; i < doc["nodes"].size(); ++i) {
      const json& n = doc["nodes"][i];
      std::string ptr = "/nodes/" + std::to_string(i);
      if (!want(n, "id", json::value_t::string, ptr) || !want(n, "op", json::value_t::string, ptr)) {
        ok = false;
        continue;
      }
      std::string id = n["id"], op = n["op"];
      if (!ids_.insert(id).second) {
        error("W0008", "the id \"" + id + "\" is used twice", id, ptr + "/id");
        ok = false;
        continue;
      }
      const ops::OpDef* def = ops::op_registry().find(op);
      if (!def) {
        auto& d = error("W0003", "node \"" + id + "\": unknown op \"" + op + "\"", op, ptr + "/op");
        if (auto near = closest_op(op); !near.empty()) d.note("did you mean \"" + near + "\"?");
        ok = false;
        continue;
      }
      if (n.contains("attrs") && !n["attrs"].is_object()) {
        error("W0002", "node \"" + id + "\": \"attrs\" must be an object", id, ptr + "/attrs");
        ok = false;
        continue;
      }
      node_ids_.push_back(id);
      node_ops_[id] = def;
      node_attrs_json_[id] = n.value("attrs", json::object());
      node_ptr_[id] = ptr;
    }
    return ok;
  }

  static std::string closest_op(const std::string& name) {
    std::string best;
    std::size_t best_d = 3;
    for (const ops::OpDef* op : ops::op_registry().all()) {
      std::size_t dist = edit_distance(name, op->name, best_d);
      if (dist < best_d) best_d = dist, best = op->name;
    }
    return best;
  }

  // "x" (an input), "node" (its only result), or "node.port".
  std::optional<Port> parse_source(const std::string& s, const std::string& ptr) {
    auto dot = s.find('.');
    std::string node = s.substr(0, dot), port = dot == std::string::npos ? "" : s.substr(dot + 1);
    if (dot == std::string::npos && std::find(input_names_.begin(), input_names_.end(), s) != input_names_.end()) return Port{"", s};
    auto it = node_ops_.find(node);
    if (it == node_ops_.end()) {
      error("W0004", "edge from \"" + s + "\": there is no input or node \"" + node + "\"", s, ptr);
      return std::nullopt;
    }
    const auto& results = it->second->results;
    if (port.empty()) {
      if (results.size() != 1) {
        error("W0004", "edge from \"" + s + "\": node \"" + node + "\" has several results; name one as \"" + node + "." +
                           results[0].name + "\"", s, ptr);
        return std::nullopt;
      }
      port = results[0].name;
    }
    for (const auto& r : results)
      if (r.name == port) return Port{node, port};
    error("W0004", "edge from \"" + s + "\": op " + it->second->name + " has no result \"" + port + "\"", s, ptr)
        .note("results: " + port_list(results));
    return std::nullopt;
  }
  template <typename V>
  static std::string port_list(const V& v) {
    std::string s;
    for (const auto& p : v) s += (s.empty() ? "" : ", ") + p.name;
    return s;
  }

  bool edges(const json& doc) {
    if (!want(doc, "edges", json::value_t::array, "")) return false;
    bool ok = true;
    for (std::size_t i = 0; i < doc["edges"].size(); ++i) {
      const json& e = doc["edges"][i];
      std::string ptr = "/edges/" + std::to_string(i);
      if (!want(e, "from", json::value_t::string, ptr) || !want(e, "to", json::value_t::string, ptr)) {
        ok = false;
        continue;
      }
      std::string from = e["from"], to = e["to"];
      auto src = parse_source(from, ptr + "/from");
      auto dot = to.find('.');
      std::string node = to.substr(0, dot), port = dot == std::string::npos ? "" : to.substr(dot + 1);
      auto it = node_ops_.find(node);
      if (it == node_ops_.end() || port.empty()) {
        error("W0004", "edge to \"" + to + "\": expected NODE.OPERAND naming an existing node", to, ptr + "/to");
        ok = false;
        continue;
      }
      const auto& operands = it->second->operands;
      auto op_it = std::find_if(operands.begin(), operands.end(), [&](const auto& o) { return o.name == port; });
      if (op_it == operands.end()) {
        error("W0004", "edge to \"" + to + "\": op " + it->second->name + " has no operand \"" + port + "\"", to, ptr + "/to")
            .note("operands: " + port_list(operands));
        ok = false;
        continue;
      }
      if (!src) {
        ok = false;
        continue;
      }
      auto& slot = incoming_[node][port];
      if (!slot.empty() && op_it->arity != ops::Arity::variadic) {
        error("W0007", "operand \"" + to + "\" is connected twice", to, ptr + "/to");
        ok = false;
        continue;
      }
      slot.push_back(*src);
    }
    return ok;
  }

  bool outputs(const json& doc) {
    if (!want(doc, "outputs", json::value_t::array, "")) return false;
    bool ok = true;
    std::set<std::string> names;
    for (std::size_t i = 0; i < doc["outputs"].size(); ++i) {
      const json& o = doc["outputs"][i];
      std::string ptr = "/outputs/" + std::to_string(i);
      if (!want(o, "name", json::value_t::string, ptr) || !want(o, "from", json::value_t::string, ptr)) {
        ok = false;
        continue;
      }
      if (!names.insert(o["name"].get<std::string>()).second) {
        error("W0008", "the output name \"" + o["name"].get<std::string>() + "\" is used twice", o["name"], ptr + "/name");
        ok = false;
      }
      auto src = parse_source(o["from"], ptr + "/from");
      if (!src) {
        ok = false;
        continue;
      }
      output_names_.push_back(o["name"]);
      output_ports_.push_back(*src);
    }
    if (ok && output_ports_.empty()) {
      error("W0002", "a workflow needs at least one output", {}, "/outputs");
      ok = false;
    }
    return ok;
  }

  std::optional<std::vector<std::string>> topological_order() {
    std::map<std::string, std::size_t> pending;
    std::map<std::string, std::vector<std::string>> users;
    for (const auto& id : node_ids_) {
      pending[id] = 0;
      for (const auto& [port, srcs] : incoming_[id])
        for (const auto& s : srcs)
          if (!s.node.empty()) {
            ++pending[id];
            users[s.node].push_back(id);
          }
    }
    std::vector<std::string> order, ready;
    for (const auto& id : node_ids_)
      if (pending[id] == 0) ready.push_back(id);
    while (!ready.empty()) {
      std::string id = ready.front();
      ready.erase(ready.begin());
      order.push_back(id);
      for (const auto& u : users[id])
        if (--pending[u] == 0) ready.push_back(u);
    }
    if (order.size() != node_ids_.size()) {
      std::string cycle;
      for (const auto& id : node_ids_)
        if (pending[id] > 0) cycle += (cycle.empty() ? "" : ", ") + std::string("\"") + id + "\"";
      std::string first;
      for (const auto& id : node_ids_)
        if (pending[id] > 0) { first = id; break; }
      error("W0005", "the workflow has a cycle through nodes " + cycle, first)
          .note("a workflow is a directed acyclic graph; loops belong in rung source (for/while)");
      return std::nullopt;
    }
    return order;
  }

  // An integer the attribute (an i64) holds exactly: 2^63 and above would wrap in get<int64_t>.
  static bool fits_i64(const json& v) {
    return v.is_number_integer() &&
           (!v.is_number_unsigned() || v.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX));
  }

  // JSON attribute values, converted by the kind the op declares.
  std::optional<AttrValue> attr_value(const ops::AttrSpec* spec, const json& v) {
    AttrKind kind = spec ? spec->kind : AttrKind::string;
    switch (kind) {
      case AttrKind::boolean: if (v.is_boolean()) return AttrValue(v.get<bool>()); break;
      case AttrKind::integer: if (fits_i64(v)) return AttrValue(v.get<std::int64_t>()); break;
      case AttrKind::real: if (v.is_number()) return AttrValue(v.get<double>()); break;
      case AttrKind::string: if (v.is_string()) return AttrValue(v.get<std::string>()); break;
      case AttrKind::integers:
        if (v.is_array() && std::all_of(v.begin(), v.end(), [](const json& x) { return fits_i64(x); }))
          return AttrValue(v.get<std::vector<std::int64_t>>());
        break;
      case AttrKind::reals:
        if (v.is_array() && std::all_of(v.begin(), v.end(), [](const json& x) { return x.is_number(); }))
          return AttrValue(v.get<std::vector<double>>());
        break;
      case AttrKind::dtype:
        if (v.is_string())
          if (auto dt = dtype_from_name(v.get<std::string>())) return AttrValue(*dt);
        break;
      case AttrKind::shape:
        if (v.is_array()) {
          Shape s;
          for (const auto& x : v) {
            if (x.is_number_unsigned()) s.push_back(Dim::fixed(x.get<std::uint64_t>()));
            else if (x.is_string() && !x.get<std::string>().empty()) s.push_back(Dim::symbol(x.get<std::string>()));
            else return std::nullopt;
          }
          return AttrValue(std::move(s));
        }
        break;
      default: break;
    }
    return std::nullopt;
  }

  std::optional<block::Program> build(const std::vector<std::string>& order) {
    Graph g;
    GraphBuilder b(g);
    std::map<std::pair<std::string, std::string>, ValueRef> values;  // (node or "", port) -> value
    std::vector<ValueRef> params;
    for (std::size_t i = 0; i < input_names_.size(); ++i) {
      params.push_back(b.param(input_names_[i], static_cast<std::int64_t>(i), input_types_[i]));
      values[{"", input_names_[i]}] = params.back();
    }
    bool ok = true;
    for (const auto& id : order) {
      const ops::OpDef& op = *node_ops_[id];
      std::vector<ValueRef> inputs;
      std::vector<TensorType> types;
      bool connected = true;
      for (const auto& operand : op.operands) {
        auto it = incoming_[id].find(operand.name);
        if (it == incoming_[id].end() || it->second.empty()) {
          if (operand.arity == ops::Arity::optional) continue;
          error("W0007", "node \"" + id + "\": operand \"" + operand.name + "\" of " + op.name + " is not connected", id, node_ptr_[id])
              .note("add an edge {\"from\": ..., \"to\": \"" + id + "." + operand.name + "\"}");
          connected = false;
          continue;
        }
        for (const auto& src : it->second) {
          auto found = values.find({src.node, src.port});
          if (found == values.end()) {  // its producer failed, and said so
            connected = false;
            continue;
          }
          ValueRef v = found->second;
          inputs.push_back(v);
          types.push_back(b.type_of(v));
        }
      }
      if (!connected) {
        ok = false;
        continue;
      }
      AttrMap attrs;
      bool attrs_ok = true;
      for (const auto& [key, val] : node_attrs_json_[id].items()) {
        const ops::AttrSpec* spec = nullptr;
        for (const auto& a : op.attrs)
          if (a.name == key) spec = &a;
        if (!spec) {
          error("W0006", "node \"" + id + "\": op " + op.name + " has no attribute \"" + key + "\"", id, node_ptr_[id] + "/attrs/" + key)
              .note("attributes: " + port_list(op.attrs));
          attrs_ok = false;
          continue;
        }
        auto v = attr_value(spec, val);
        if (!v) {
          error("W0006", "node \"" + id + "\": attribute \"" + key + "\" must be " + spec->to_string() + ", got " + val.dump(), id,
                node_ptr_[id] + "/attrs/" + key);
          attrs_ok = false;
          continue;
        }
        attrs.emplace(key, std::move(*v));
      }
      if (!attrs_ok) {
        ok = false;
        continue;
      }
      std::vector<std::string> why;
      auto typed = ops::infer_types(op, types, attrs, why);
      if (!typed) {
        std::string shown;
        for (const auto& t : types) shown += (shown.empty() ? "" : ", ") + t.to_string();
        auto& d = error("W0006", "node \"" + id + "\" (" + op.name + "): the connected values do not fit", id, node_ptr_[id]);
        for (const auto& w : why) d.note(w);
        d.note("operand types: " + shown);
        ok = false;
        continue;
      }
      auto outs = b.op_multi(op.name, inputs, typed->results, typed->attrs.map());
      for (std::size_t r = 0; r < op.results.size(); ++r) values[{id, op.results[r].name}] = outs[r];
    }
    if (!ok) return std::nullopt;
    std::vector<ValueRef> results;
    for (const auto& port : output_ports_) results.push_back(values.at({port.node, port.port}));  // all nodes built
    b.export_region(name_, params, results);
    auto p = block::program_from_graph(std::move(g), name_, {tier_, tolerance_});
    // Name result slots after the workflow's outputs.
    for (std::size_t i = 0; i < output_names_.size(); ++i) p.functions[0].slots[p.functions[0].results[i]].name = output_names_[i];
    return p;
  }

  SourceId src_;
  std::string_view text_;
  DiagnosticSink& d_;
  std::string name_, tier_, tolerance_;
  std::set<std::string> ids_;
  std::vector<std::string> input_names_, node_ids_, output_names_;
  std::vector<TensorType> input_types_;
  std::map<std::string, const ops::OpDef*> node_ops_;
  std::map<std::string, json> node_attrs_json_;
  std::map<std::string, std::string> node_ptr_;
  std::map<std::string, std::map<std::string, std::vector<Port>>> incoming_;
  std::vector<Port> output_ports_;
};

}  // namespace

std::optional<block::Program> lower(SourceId source, const SourceMap& sources, DiagnosticSink& diags) {
  return Lowering(source, sources, diags).run();
}

}  // namespace rung::workflow
