#include "onnx/subgraph.h"

#include "base/check.h"
#include "base/utf8.h"
#include "onnx/handlers.h"
#include "onnx/onnx_import.h"
#include "onnx/place.h"

namespace rung::onnx_import {

std::int64_t node_opset(const Converter& c, const ::onnx::NodeProto& n) {
  auto it = c.opsets.find(std::string(handler_domain(n.domain())));
  return it == c.opsets.end() ? 0 : it->second;
}

const Handler* handler_for(Converter& c, const ::onnx::NodeProto& n, const std::string& place) {
  std::string_view domain = handler_domain(n.domain());
  if (!domain.empty() && !domain_has_handlers(domain)) {
    c.diags.error("I0004", place + ": domain " + quoted(n.domain()) + " has no handlers")
        .note(n.domain() == "ai.onnx.ml" ? "the ML domain is refused"
                                         : "rung imports the ai.onnx and ai.onnx.preview.training ops only (no custom domains or "
                                           "model-local functions)");
    return nullptr;
  }
  auto it = c.opsets.find(std::string(domain));
  if (it == c.opsets.end()) {
    c.diags.error("I0003", place + ": the model imports no opset of domain " + quoted(domain.empty() ? "ai.onnx" : domain));
    return nullptr;
  }
  std::string ranges;
  const Handler* h = find_handler(domain, n.op_type(), it->second, &ranges);
  if (!h) {
    auto& e = c.diags.error("I0004", place + ": no handler for " + quoted(n.op_type()) + " at opset " + std::to_string(it->second));
    if (!ranges.empty()) e.note("rung's handlers for it cover opsets " + ranges);
    else e.note("`rung import --list-ops` lists the ops rung imports; ops that need new registry ops (Conv, pooling, Resize, ...) come later");
  }
  return h;
}

bool import_node(Converter& c, const ::onnx::NodeProto& n, const std::string& place,
                 const std::function<void(const std::string&, Value)>& define) {
  const Handler* h = handler_for(c, n, place);
  if (!h) return false;
  for (int k = 0; k < n.input_size(); ++k)
    if (!n.input(k).empty() && !c.values.count(n.input(k))) {
      c.diags.error("I0013", place + ": input " + std::to_string(k) + " " + quoted(n.input(k)) + " is not defined in its scope");
      return false;
    }
  NodeCtx ctx(c, n, place, node_opset(c, n));
  std::size_t errors = c.diags.error_count();
  if (!h->fn(ctx)) {
    RUNG_CHECK(c.diags.error_count() > errors, ("an ONNX handler failed without a diagnostic: " + place).c_str());
    return false;
  }
  for (const auto& a : n.attribute())
    if (!ctx.read_attrs().count(a.name())) {
      c.diags.error("I0005", place + ": attribute " + quoted(a.name()) + " is not supported")
          .note("rung refuses what it would otherwise ignore: the result could differ from what the model means");
      return false;
    }
  for (int k = 0; k < n.output_size(); ++k) {
    if (n.output(k).empty()) continue;
    auto& r = ctx.results()[static_cast<std::size_t>(k)];
    if (!r) {
      c.diags.error("I0005", place + ": output " + std::to_string(k) + " " + quoted(n.output(k)) + " is not supported");
      return false;
    }
    define(n.output(k), std::move(*r));
  }
  return true;
}

namespace {

// The names a body defines, and what each hid: restored when the body is done.
class Scope {
 public:
  explicit Scope(Converter& c) : c_(c) {}
  ~Scope() {
    for (auto& [name, old] : saved_) {
      if (old) c_.values[name] = std::move(*old);
      else c_.values.erase(name);
    }
  }
  void define(const std::string& name, Value v) {
    if (!saved_.count(name)) {
      auto it = c_.values.find(name);
      saved_.emplace(name, it == c_.values.end() ? std::nullopt : std::optional<Value>(it->second));
    }
    c_.values[name] = std::move(v);
  }

 private:
  Converter& c_;
  std::map<std::string, std::optional<Value>> saved_;
};

}  // namespace

std::optional<std::vector<Value>> import_body(NodeCtx& c, const ::onnx::GraphProto& g, const std::vector<Value>& args,
                                              const std::string& what) {
  Converter& cv = c.converter();
  std::string where = c.place() + " " + what;
  if (static_cast<std::size_t>(g.input_size()) != args.size()) {
    c.fail("I0005", what + " declares " + std::to_string(g.input_size()) + " inputs; the op gives it " + std::to_string(args.size()));
    return std::nullopt;
  }
  // Each import counts one more than its nodes: nested loops over empty bodies stay bounded too.
  auto nodes = static_cast<std::uint64_t>(g.node_size()) + 1;
  if (nodes > kMaxUnrolledNodes - cv.unrolled_nodes) {
    c.fail("I0002", what + ": unrolling the subgraphs imports more than " + std::to_string(kMaxUnrolledNodes) + " nodes");
    return std::nullopt;
  }
  cv.unrolled_nodes += nodes;
  if (g.sparse_initializer_size() > 0) {
    c.fail("I0007", what + ": sparse initializers are not supported");
    return std::nullopt;
  }
  Scope scope(cv);
  for (int i = 0; i < g.initializer_size(); ++i) {
    const auto& t = g.initializer(i);
    auto v = cv.reader.read(t, where + ".initializer[" + std::to_string(i) + "] " + quoted(t.name()));
    if (!v) return std::nullopt;
    TensorType type = v->type();
    scope.define(t.name(), Value{std::move(type), std::nullopt, std::make_shared<const ops::HostTensor>(std::move(*v))});
  }
  for (int i = 0; i < g.input_size(); ++i) scope.define(g.input(i).name(), args[static_cast<std::size_t>(i)]);
  auto define = [&](const std::string& name, Value v) { scope.define(name, std::move(v)); };
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    std::string place = where + ": node[" + std::to_string(i) + "] " + quoted(n.name()) + " (" + utf8::scrub(std::string_view(n.op_type()).substr(0, 64)) +
                        ", opset " + std::to_string(node_opset(cv, n)) + ")";
    if (!import_node(cv, n, place, define)) return std::nullopt;
  }
  std::vector<Value> out;
  for (int k = 0; k < g.output_size(); ++k) {
    auto it = cv.values.find(g.output(k).name());
    if (it == cv.values.end()) {
      c.fail("I0013", what + ": output " + std::to_string(k) + " " + quoted(g.output(k).name()) + " is defined nowhere");
      return std::nullopt;
    }
    out.push_back(it->second);
  }
  return out;
}

}  // namespace rung::onnx_import
