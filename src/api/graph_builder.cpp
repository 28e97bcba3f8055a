// rung::graph::Builder and Function (include/rung/graph.h): values in a hash-consed scratch
// graph, each op typed by the registry the moment it is applied; a function is the part of
// the scratch graph its results use, copied into a graph of its own.
#include <algorithm>
#include <atomic>
#include <fstream>
#include <set>

#include "api/graph_impl.h"
#include "api/impl.h"
#include "ir/block/from_graph.h"
#include "ir/block/keg_program.h"
#include "ir/graph/builder.h"
#include "ir/graph/type_parse.h"
#include "ops/registry.h"
#include "ops/typing.h"

namespace rung::graph {
namespace {

std::atomic<std::uint64_t> next_builder_id{1};

bool valid_name(const std::string& s) {
  if (s.empty()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && ((c >= '0' && c <= '9') || c == '.'));
    if (!ok) return false;
  }
  return true;
}

ValueInfo info_of(const Graph& g, ValueRef v) {
  const Node& n = g.node(v.node);
  const TensorType& t = n.outputs.at(v.output);
  ValueInfo info;
  info.type = t.to_string();
  info.dtype = t.dtype;
  for (const auto& d : t.shape) {
    info.shape.push_back(d.is_static() ? static_cast<std::int64_t>(d.extent()) : -1);
    info.dims.push_back(d.to_string());
  }
  info.op = n.opcode;
  if (n.opcode == opcode::kParam) info.input_name = n.attrs.at("name").as<std::string>();
  return info;
}

}  // namespace

Builder::Builder() : impl_(std::make_shared<Impl>()) { impl_->id = next_builder_id++; }

std::uint64_t Builder::id() const { return impl_->id; }

Result<Value> Builder::input(std::string name, std::string_view type) {
  if (!valid_name(name))
    return Diagnostics::error("M0032", "`" + name + "` is not a parameter name",
                              {"names are letters, digits, '_' and '.', not starting with a digit or '.'"});
  std::string error;
  auto t = parse_type(type, error);
  if (!t)
    return Diagnostics::error("M0030", "the type `" + std::string(type) + "` of input `" + name + "` does not parse: " + error,
                              {"write types as in the language: f32[B, 10], i64, bf16[4]"});
  GraphBuilder b(impl_->g);
  ValueRef v = b.param(std::move(name), 0, std::move(*t));
  return Value{impl_->id, v.node, v.output};
}

Result<Value> Builder::constant(const Tensor& value) {
  const ops::HostTensor& h = api::host_of(value);
  auto bytes = h.bytes();
  GraphBuilder b(impl_->g);
  ValueRef v = b.constant(h.type(), Bytes(bytes.begin(), bytes.end()));
  return Value{impl_->id, v.node, v.output};
}

Result<std::vector<Value>> Builder::apply(std::string_view op_name, std::span<const Value> operands, const Attrs& attrs) {
  const ops::OpDef* op = ops::op_registry().find(op_name);
  if (!op) return detail::unknown_op(op_name);
  std::vector<ValueRef> inputs;
  std::vector<TensorType> types;
  for (std::size_t i = 0; i < operands.size(); ++i) {
    const Value& v = operands[i];
    if (v.builder != impl_->id || v.node >= impl_->g.node_count() || v.output >= impl_->g.node(v.node).outputs.size())
      return Diagnostics::error("M0031", "operand " + std::to_string(i) + " of `" + op->name + "` is not a value of this graph",
                                {v.builder == 0 ? "it is an empty value" : "values of two graphs cannot be combined"});
    inputs.push_back({v.node, v.output});
    types.push_back(impl_->g.node(v.node).outputs[v.output]);
  }
  std::vector<std::string> errors;
  auto map = detail::attr_map(*op, attrs, errors);
  std::optional<ops::Typed> typed;
  if (map) typed = ops::infer_types(*op, types, *map, errors);
  if (!typed) {
    std::string shown;
    for (const auto& t : types) shown += (shown.empty() ? "" : ", ") + t.to_string();
    errors.push_back("operand types: " + (shown.empty() ? std::string("none") : shown));
    errors.push_back("signature: " + op->signature());
    return Diagnostics::error("N0011", "`" + op->name + "`: the operands or attributes do not fit", std::move(errors));
  }
  GraphBuilder b(impl_->g);
  std::vector<Value> out;
  for (const ValueRef& r : b.op_multi(op->name, std::move(inputs), typed->results, typed->attrs.map()))
    out.push_back({impl_->id, r.node, r.output});
  return out;
}

Result<ValueInfo> Builder::info(Value v) const {
  if (v.builder != impl_->id || v.node >= impl_->g.node_count() || v.output >= impl_->g.node(v.node).outputs.size())
    return Diagnostics::error("M0031", "not a value of this graph");
  return info_of(impl_->g, {v.node, v.output});
}

Result<Function> Builder::function(std::string name, std::span<const Value> params,
                                   const std::vector<std::pair<std::string, Value>>& results) const {
  const Graph& g = impl_->g;
  auto fail = [&](std::string text, std::vector<std::string> notes = {}) {
    return Result<Function>(Diagnostics::error("M0032", "cannot form function `" + name + "`: " + text, std::move(notes)));
  };
  if (!valid_name(name)) return fail("not a function name", {"names are letters, digits, '_' and '.', not starting with a digit or '.'"});
  auto own = [&](const Value& v) {
    return v.builder == impl_->id && v.node < g.node_count() && v.output < g.node(v.node).outputs.size();
  };
  std::map<NodeId, std::size_t> param_index;
  std::set<std::string> param_names;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const Value& v = params[i];
    if (!own(v)) return Result<Function>(Diagnostics::error("M0031", "parameter " + std::to_string(i) + " is not a value of this graph"));
    const Node& n = g.node(v.node);
    if (n.opcode != opcode::kParam)
      return fail("parameter " + std::to_string(i) + " is a `" + n.opcode + "` value, not an input", {"parameters are made with input()"});
    const std::string& pname = n.attrs.at("name").as<std::string>();
    if (!param_names.insert(pname).second) return fail("two parameters are named `" + pname + "`");
    param_index.emplace(v.node, i);
  }
  if (results.empty()) return fail("it has no results");
  std::set<std::string> result_names;
  for (const auto& [rname, v] : results) {
    if (rname.empty()) return fail("a result has an empty name");
    if (!result_names.insert(rname).second) return fail("two results are named `" + rname + "`");
    if (!own(v)) return Result<Function>(Diagnostics::error("M0031", "result `" + rname + "` is not a value of this graph"));
  }

  // What the results use, in creation order (inputs always precede their users).
  std::vector<bool> used(g.node_count());
  std::vector<NodeId> stack;
  for (const auto& r : results) stack.push_back(r.second.node);
  while (!stack.empty()) {
    NodeId n = stack.back();
    stack.pop_back();
    if (used[n]) continue;
    used[n] = true;
    for (const auto& in : g.node(n).inputs) stack.push_back(in.node);
  }
  Graph out;
  GraphBuilder b(out);
  std::vector<NodeId> mapped(g.node_count());
  std::vector<ValueRef> new_params(params.size());
  for (const auto& [node, i] : param_index) {
    const Node& n = g.node(node);
    ValueRef p = b.param(n.attrs.at("name").as<std::string>(), static_cast<std::int64_t>(i), n.outputs[0]);
    mapped[node] = p.node;
    new_params[i] = p;
  }
  for (NodeId id = 0; id < g.node_count(); ++id) {
    if (!used[id]) continue;
    const Node& n = g.node(id);
    if (n.opcode == opcode::kParam) {
      if (!param_index.count(id))
        return fail("its results use input `" + n.attrs.at("name").as<std::string>() + "` (" + n.outputs[0].to_string() +
                        "), which is not one of its parameters",
                    {"add it to the parameter list"});
      continue;
    }
    Node copy = n;
    for (auto& in : copy.inputs) in.node = mapped[in.node];
    mapped[id] = out.add(std::move(copy));
  }
  std::vector<ValueRef> rs;
  std::vector<std::string> names;
  for (const auto& [rname, v] : results) {
    rs.push_back({mapped[v.node], v.output});
    names.push_back(rname);
  }
  b.export_region(name, new_params, rs);
  return detail::make_function(std::move(out), name, names);
}

namespace detail {

Function make_function(Graph g, const std::string& name, const std::vector<std::string>& results) {
  auto impl = std::make_shared<Function::Impl>();
  impl->name = name;
  // No determinism: a function is numeric work only; whoever compiles it gives the tier.
  impl->program = block::program_from_graph(std::move(g), name, {"", ""});
  block::Function& f = impl->program.functions.at(0);
  for (std::size_t i = 0; i < results.size() && i < f.results.size(); ++i) f.slots[f.results[i]].name = results[i];
  return Function(std::move(impl));
}

}  // namespace detail

Function::Function(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

const std::string& Function::name() const { return impl_->name; }

std::string Function::fingerprint() const { return impl_->program.graph.fingerprint().hex(); }

EntryInfo Function::entry() const { return api::entries_of(impl_->program, true).at(0); }

Result<std::vector<std::uint8_t>> Function::serialize() const {
  DiagnosticSink diags;
  auto bytes = block::write_program_keg(impl_->program, {}, diags);
  SourceMap none;
  if (!bytes) return api::diagnostics_of(diags, none);
  return std::move(*bytes);
}

Status Function::save(const std::string& path) const {
  auto bytes = serialize();
  if (!bytes) return bytes.diagnostics();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes->data()), static_cast<std::streamsize>(bytes->size()));
  out.close();
  if (!out) return Diagnostics::error("M0033", "cannot write `" + path + "`", {"check that its folder exists and is writable"});
  return Done{};
}

Result<Module> Function::module() const {
  auto bytes = serialize();
  if (!bytes) return bytes.diagnostics();
  auto span = std::as_bytes(std::span<const std::uint8_t>(*bytes));
  return Module::load(Source::bytes(impl_->name + ".keg", span, SourceKind::keg));
}

}  // namespace rung::graph
