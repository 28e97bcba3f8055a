// The importer top to bottom: bytes -> ModelProto (parse.h) -> rung's structural checks
// (structure.h) -> initializers read and checked (tensor_data.h) -> the ONNX checker and
// shape inference, advisory (advisory.h) -> one handler per node (handlers.h) -> the graph's
// outputs checked against their declared types -> one exported region `main`.
#include <map>
#include <set>

#include "base/check.h"
#include "ir/block/from_graph.h"
#include "onnx/advisory.h"
#include "onnx/dtypes.h"
#include "onnx/handlers.h"
#include "onnx/onnx_import.h"
#include "onnx/parse.h"
#include "onnx/place.h"
#include "onnx/structure.h"
#include "onnx/subgraph.h"

namespace rung::onnx_import {
namespace {

// A dim_param as a rung symbol: letters, digits and _ kept, anything else becomes _.
std::string symbol_name(const std::string& p) {
  std::string s;
  for (char ch : p) s += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') ? ch : '_';
  if (std::isdigit(static_cast<unsigned char>(s[0]))) s = "d_" + s;
  return s;
}

class Import {
 public:
  Import(const ::onnx::ModelProto& m, const Options& o, DiagnosticSink& d)
      : m_(m), g_(m.graph()), c_(o, d), d_(d) {
    // check_structure refused an ai.onnx import outside kMinOpset..kMaxOpset and repeats.
    for (const auto& imp : m.opset_import()) c_.opsets[std::string(handler_domain(imp.domain()))] = imp.version();
  }

  std::optional<block::Program> run(const std::string& module_name) {
    if (!handled() || !initializers() || !run_checker(m_, d_)) return std::nullopt;
    std::vector<ValueRef> params;
    if (!inputs(params) || !nodes()) return std::nullopt;
    // Only now, on a model every handler accepted: onnx 1.12's shape inference crashes on
    // attributes rung refuses (SIGFPE on DepthToSpace blocksize 2^40, SIGSEGV on
    // LayerNormalization axis -2^31; found by fuzzing), so it never sees them.
    if (!cross_check()) return std::nullopt;
    std::vector<ValueRef> results;
    if (!outputs(results)) return std::nullopt;
    c_.b.export_region("main", params, results);
    auto p = block::program_from_graph(std::move(c_.graph), module_name, {"", ""});
    auto& f = p.functions.at(0);
    for (int i = 0; i < g_.output_size(); ++i) f.slots[f.results[static_cast<std::size_t>(i)]].name = g_.output(i).name();
    return p;
  }

 private:
  // Every node has a handler (I0004), known before the checker runs: a missing one is the
  // finding that matters, whatever else the checker would say.
  bool handled() {
    for (int i = 0; i < g_.node_size(); ++i) {
      const auto& n = g_.node(i);
      if (!handler_for(c_, n, place_of(i))) return false;
    }
    return true;
  }

  // A node's place names the opset of its own domain (Adam: ai.onnx.preview.training 1).
  std::string place_of(int i) {
    const auto& n = g_.node(i);
    return node_place(static_cast<std::size_t>(i), n.name(), n.op_type(), node_opset(c_, n));
  }

  bool initializers() {
    for (int i = 0; i < g_.initializer_size(); ++i) {
      const auto& t = g_.initializer(i);
      auto v = c_.reader.read(t, "graph.initializer[" + std::to_string(i) + "] " + quoted(t.name()));
      if (!v) return false;
      TensorType type = v->type();
      c_.values[t.name()] = Value{std::move(type), std::nullopt, std::make_shared<const ops::HostTensor>(std::move(*v))};
    }
    return true;
  }

  TensorType type_of(const ::onnx::ValueInfoProto& v) {  // checked by check_structure
    const auto& t = v.type().tensor_type();
    TensorType out{*dtype_of(t.elem_type()), {}, MemSpace::host};
    for (const auto& d : t.shape().dim()) {
      if (d.has_dim_value()) out.shape.push_back(Dim::fixed(static_cast<std::uint64_t>(d.dim_value())));
      else if (d.has_dim_param() && !d.dim_param().empty()) out.shape.push_back(bound(symbol_name(d.dim_param())));
      else out.shape.push_back(bound("onnx_d" + std::to_string(fresh_++)));
    }
    return out;
  }

  Dim bound(const std::string& symbol) {
    auto it = c_.options.bound_dims.find(symbol);
    if (it != c_.options.bound_dims.end()) {
      used_.insert(symbol);
      return Dim::fixed(it->second);
    }
    if (auto l = learned_.find(symbol); l != learned_.end()) return Dim::fixed(l->second);
    return Dim::symbol(symbol);
  }

  bool inputs(std::vector<ValueRef>& params) {
    if (!bound_inputs()) return false;
    for (int i = 0; i < g_.input_size(); ++i) {
      const auto& v = g_.input(i);
      // An input that repeats an initializer's name keeps the initializer's value (see docs/onnx.md).
      if (c_.values.count(v.name())) continue;
      TensorType t = type_of(v);
      ValueRef r = c_.b.param(v.name(), static_cast<std::int64_t>(params.size()), t);
      params.push_back(r);
      c_.values[v.name()] = Value{std::move(t), r, nullptr, {v.name()}};
    }
    for (const auto& [name, extent] : c_.options.bound_dims)
      if (!used_.count(name)) d_.warning("I0012", "--dim " + name + "=" + std::to_string(extent) + " names no symbolic dim of the graph's inputs");
    return true;
  }

  // `--bind NAME=FILE.npy`: each bound graph input becomes a known value (a constant) before
  // the other inputs are made parameters; the symbols its declared dims use take the bound
  // tensor's extents, for every input that uses them.
  bool bound_inputs() {
    std::set<std::string> seen;
    for (const auto& [name, tensor] : c_.options.bound_inputs) {
      std::string what = "--bind " + quoted(name);
      if (!seen.insert(name).second) {
        d_.error("I0013", what + ": the input is bound twice").note("bind each graph input once");
        return false;
      }
      int index = -1;
      for (int i = 0; i < g_.input_size() && index < 0; ++i)
        if (g_.input(i).name() == name) index = i;
      if (index < 0) {
        std::string names;
        for (int i = 0; i < g_.input_size(); ++i)
          if (!c_.values.count(g_.input(i).name())) names += (names.empty() ? "" : ", ") + quoted(g_.input(i).name());
        d_.error("I0013", what + ": the graph has no input of that name")
            .note("its inputs: " + (names.empty() ? std::string("none") : names));
        return false;
      }
      std::string place = "graph.input[" + std::to_string(index) + "] " + quoted(name);
      if (c_.values.count(name)) {
        d_.error("I0013", what + ": " + place + " is also an initializer (its default value)")
            .note("rung refuses to replace a model's own initializer; only inputs without one can be bound");
        return false;
      }
      if (!agrees(g_.input(index), *tensor, what + " for " + place)) return false;
      TensorType type = tensor->type();
      c_.values[name] = Value{std::move(type), std::nullopt, tensor, {}};
    }
    return true;
  }

  // A bound tensor against its input's declared type: the dtype, the rank, each fixed extent,
  // and one extent per symbol (recorded in learned_ for the other inputs).
  bool agrees(const ::onnx::ValueInfoProto& v, const ops::HostTensor& t, const std::string& what) {
    const auto& tt = v.type().tensor_type();
    auto declared = dtype_of(tt.elem_type());
    std::string want = declared ? std::string(dtype_info(*declared).name) : onnx_type_name(tt.elem_type());
    if (!declared || *declared != t.dtype()) {
      d_.error("I0011", what + ": the value is " + t.type().to_string() + ", the input is declared " + want);
      return false;
    }
    if (!tt.has_shape()) return true;  // no shape declared: any extents
    const auto& dims = tt.shape().dim();
    auto shown = [&] {
      std::string s = want + "[";
      for (int i = 0; i < dims.size(); ++i)
        s += (i ? ", " : "") + (dims[i].has_dim_value() ? std::to_string(dims[i].dim_value())
                                                         : dims[i].dim_param().empty() ? std::string("?") : symbol_name(dims[i].dim_param()));
      return s + "]";
    };
    if (static_cast<std::size_t>(dims.size()) != t.rank()) {
      d_.error("I0011", what + ": the value is " + t.type().to_string() + ", the input is declared " + shown());
      return false;
    }
    std::map<std::string, std::uint64_t> here;
    for (int i = 0; i < dims.size(); ++i) {
      std::uint64_t got = t.shape()[static_cast<std::size_t>(i)];
      const auto& d = dims[i];
      std::optional<std::uint64_t> expect;
      std::string symbol = d.has_dim_param() && !d.dim_param().empty() ? symbol_name(d.dim_param()) : "";
      if (d.has_dim_value()) expect = static_cast<std::uint64_t>(d.dim_value());
      else if (!symbol.empty()) {
        if (auto b = c_.options.bound_dims.find(symbol); b != c_.options.bound_dims.end()) {
          expect = b->second;
          used_.insert(symbol);
        } else if (auto l = learned_.find(symbol); l != learned_.end()) expect = l->second;
        else if (auto h = here.find(symbol); h != here.end()) expect = h->second;
      }
      if (expect && *expect != got) {
        d_.error("I0011", what + ": the value is " + t.type().to_string() + ", the input is declared " + shown() +
                              (d.has_dim_value() ? "" : " with " + symbol + " = " + std::to_string(*expect)));
        return false;
      }
      if (!symbol.empty()) here[symbol] = got;
    }
    learned_.insert(here.begin(), here.end());
    return true;
  }

  bool nodes() {
    for (int i = 0; i < g_.node_size(); ++i) {
      std::string place = place_of(i);
      auto define = [&](const std::string& name, Value v) {
        c_.values[name] = std::move(v);
        produced_.emplace_back(name, place);
      };
      if (!import_node(c_, g_.node(i), place, define)) return false;
    }
    return true;
  }

  // Shape inference's type of each node output against rung's (where both state extents).
  bool cross_check() {
    auto inferred = infer_shapes(m_, d_);
    for (const auto& [name, place] : produced_) {
      auto it = inferred.find(name);
      if (it == inferred.end()) continue;
      if (!agrees_with(it->second.elem_type, it->second.dims, c_.values.at(name).type, place + ": output " + quoted(name),
                       "ONNX shape inference"))
        return false;
    }
    return true;
  }

  bool agrees_with(std::int32_t elem, const std::vector<std::optional<std::int64_t>>& dims, const TensorType& t,
                   const std::string& place, const char* who) {
    auto dt = dtype_of(elem);
    bool same = (elem == 0 || (dt && *dt == t.dtype)) && dims.size() == t.rank();
    for (std::size_t i = 0; same && i < dims.size(); ++i)
      if (dims[i] && t.shape[i].is_static() && static_cast<std::uint64_t>(*dims[i]) != t.shape[i].extent()) same = false;
    if (same) return true;
    std::string want = onnx_type_name(elem) + "[";
    for (std::size_t i = 0; i < dims.size(); ++i) want += (i ? ", " : "") + (dims[i] ? std::to_string(*dims[i]) : std::string("?"));
    d_.error("I0011", place + ": " + who + " says " + want + "], rung's shape rules give " + t.to_string());
    return false;
  }

  bool outputs(std::vector<ValueRef>& results) {
    for (int i = 0; i < g_.output_size(); ++i) {
      const auto& o = g_.output(i);
      const Value& v = c_.values.at(o.name());  // defined: check_structure
      std::vector<std::optional<std::int64_t>> dims;
      for (const auto& d : o.type().tensor_type().shape().dim())
        dims.push_back(d.has_dim_value() ? std::optional<std::int64_t>(d.dim_value()) : std::nullopt);
      if (!agrees_with(o.type().tensor_type().elem_type(), dims, v.type, "graph.output[" + std::to_string(i) + "] " + quoted(o.name()),
                       "the declared type"))
        return false;
      results.push_back(c_.ref_of(v));
    }
    return true;
  }

  const ::onnx::ModelProto& m_;
  const ::onnx::GraphProto& g_;
  Converter c_;
  DiagnosticSink& d_;
  std::vector<std::pair<std::string, std::string>> produced_;  // node outputs and their nodes' places
  int fresh_ = 0;
  std::set<std::string> used_;  // the bound dims an input uses
  std::map<std::string, std::uint64_t> learned_;  // symbols given extents by bound inputs
};

}  // namespace

std::optional<Imported> import_model(std::string_view bytes, const std::string& module_name, const Options& options,
                                     DiagnosticSink& diags) {
  auto m = parse_model(bytes, options.limits, diags);
  if (!m) return std::nullopt;
  auto opset = check_structure(*m, options.limits, diags);
  if (!opset) return std::nullopt;
  Imported out;
  auto& p = out.provenance;
  p.ir_version = m->ir_version();
  p.producer_name = m->producer_name().substr(0, 256);
  p.producer_version = m->producer_version().substr(0, 256);
  p.graph_name = m->graph().name().substr(0, 256);
  for (const auto& o : m->opset_import()) p.opsets.emplace_back((o.domain().empty() ? "ai.onnx" : o.domain()).substr(0, 256), o.version());
  auto program = Import(*m, options, diags).run(module_name);
  if (!program || diags.has_errors()) return std::nullopt;
  out.program = std::move(*program);
  return out;
}

}  // namespace rung::onnx_import
