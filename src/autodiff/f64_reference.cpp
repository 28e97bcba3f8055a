#include "autodiff/f64_reference.h"

#include <cmath>
#include <unordered_map>

#include "autodiff/decompose.h"
#include "autodiff/gradient_rule.h"
#include "ir/graph/walk.h"
#include "ops/evaluate.h"
#include "ops/registry.h"
#include "ops/typing.h"

namespace rung::autodiff {
namespace {

using Tensors = std::vector<ops::HostTensor>;

bool is_float(DType d) { return dtype_info(d).is_float; }

ops::HostTensor narrow_to(const ops::HostTensor& t, DType to) {
  if (t.dtype() == to || !is_float(t.dtype())) return t;
  ops::HostTensor out(to, t.shape());
  for (std::uint64_t i = 0; i < t.numel(); ++i) out.store_f64(i, t.load_f64(i));
  return out;
}

// Every type variable that admits f32 also admits f64.
bool admits_f64(const ops::OpDef& def) {
  for (const auto& tv : def.type_vars)
    if (tv.allowed.contains(DType::f32) && !tv.allowed.contains(DType::f64)) return false;
  for (const auto& r : def.results)
    if (r.type == "f32") return false;
  return true;
}

// Float dtype attributes (cast's `to`, one_hot's `dtype`) become f64.
AttrMap widen_attrs(const AttrMap& attrs) {
  AttrMap out = attrs;
  for (auto& [name, v] : out)
    if (v.is<DType>() && is_float(v.as<DType>())) v = AttrValue(DType::f64);
  return out;
}

double gelu(double x, bool tanh_form) {
  if (tanh_form) return 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
  return 0.5 * x * (1.0 + std::erf(x * 0.7071067811865476));
}

std::optional<double (*)(double)> unary_f64(std::string_view op) {
  static const std::unordered_map<std::string_view, double (*)(double)> t = {
      {"exp", [](double x) { return std::exp(x); }},
      {"log", [](double x) { return std::log(x); }},
      {"sin", [](double x) { return std::sin(x); }},
      {"cos", [](double x) { return std::cos(x); }},
      {"asin", [](double x) { return std::asin(x); }},
      {"acos", [](double x) { return std::acos(x); }},
      {"atan", [](double x) { return std::atan(x); }},
      {"tanh", [](double x) { return std::tanh(x); }},
      {"sigmoid", [](double x) { return 1.0 / (1.0 + std::exp(-x)); }},
      {"silu", [](double x) { return x / (1.0 + std::exp(-x)); }},
      {"erf", [](double x) { return std::erf(x); }},
  };
  auto it = t.find(op);
  if (it == t.end()) return std::nullopt;
  return it->second;
}

ops::Extents broadcast_extents(const ops::Extents& a, const ops::Extents& b) {
  ops::Extents out(std::max(a.size(), b.size()), 1);
  for (std::size_t k = 0; k < out.size(); ++k) {
    std::uint64_t x = k < a.size() ? a[a.size() - 1 - k] : 1, y = k < b.size() ? b[b.size() - 1 - k] : 1;
    out[out.size() - 1 - k] = x == 1 ? y : x;
  }
  return out;
}

class F64Evaluator {
 public:
  explicit F64Evaluator(DiagnosticSink& d) : diags_(d) {}

  std::optional<Tensors> run(const Graph& g, RegionId rid, std::span<const ops::HostTensor> args, int depth) {
    const Region& r = g.region(rid);
    if (depth > 64 || args.size() != r.params.size()) {
      diags_.error("D0010", "binary64 evaluation of `" + r.name + "`: " +
                                (depth > 64 ? std::string("calls nested too deeply") : "wrong number of arguments"));
      return std::nullopt;
    }
    std::unordered_map<NodeId, Tensors> values;
    for (std::size_t i = 0; i < args.size(); ++i) values[r.params[i]] = {widen(args[i])};
    for (NodeId n : nodes_in_region(g, r)) {
      if (values.count(n)) continue;
      const Node& node = g.node(n);
      Tensors inputs;
      for (const auto& in : node.inputs) inputs.push_back(values.at(in.node).at(in.output));
      std::optional<Tensors> out;
      if (node.opcode == opcode::kConst) {
        const TensorType& t = node.outputs[0];
        ops::Extents ext;
        for (const auto& d : t.shape) ext.push_back(d.extent());
        const Bytes& b = node.attrs.at("value").as<Bytes>();
        out = Tensors{widen(ops::HostTensor(t.dtype, std::move(ext), std::vector<std::uint8_t>(b.begin(), b.end())))};
      } else if (node.opcode == opcode::kCall) {
        out = run(g, *g.find_region(node.attrs.at("callee").as<Hash256>()), inputs, depth + 1);
      } else {
        std::vector<TensorType> declared;
        for (const auto& in : node.inputs) declared.push_back(g.node(in.node).outputs[in.output]);
        out = node_f64(node, declared, inputs, depth);
      }
      if (!out) {
        if (!diags_.all().empty()) diags_.last().note("while evaluating " + describe_node(g, n) + " in binary64");
        return std::nullopt;
      }
      values[n] = std::move(*out);
    }
    Tensors results;
    for (const auto& v : r.results) results.push_back(values.at(v.node).at(v.output));
    return results;
  }

 private:
  std::optional<Tensors> node_f64(const Node& node, const std::vector<TensorType>& declared, const Tensors& inputs, int depth) {
    const ops::OpDef* def = ops::op_registry().find(node.opcode);
    if (!def) {
      diags_.error("D0010", "unknown op `" + node.opcode + "`");
      return std::nullopt;
    }
    ops::EvalOptions eo;
    eo.tier = ops::Tier::prod;  // binary64 reference values: no bit-exactness demanded of the FP environment
    bool float_operand = false;
    for (const auto& t : declared) float_operand = float_operand || is_float(t.dtype);
    if (!float_operand && def->gradient && !def->gradient->differentiable()) {
      Tensors narrowed;
      for (std::size_t i = 0; i < inputs.size(); ++i) narrowed.push_back(narrow_to(inputs[i], declared[i].dtype));
      auto out = ops::evaluate(*def, narrowed, node.attrs, diags_, eo);
      if (out)
        for (auto& t : *out) t = widen(t);
      return out;
    }
    if (admits_f64(*def)) return ops::evaluate(*def, inputs, widen_attrs(node.attrs), diags_, eo);
    if (auto f = unary_f64(node.opcode)) {
      ops::HostTensor y = inputs[0];
      for (std::uint64_t i = 0; i < y.numel(); ++i) y.store_f64(i, (*f)(inputs[0].load_f64(i)));
      return Tensors{y};
    }
    if (node.opcode == "gelu") {
      bool tanh_form = node.attrs.count("approximate") && node.attrs.at("approximate").as<std::string>() == "tanh";
      ops::HostTensor y = inputs[0];
      for (std::uint64_t i = 0; i < y.numel(); ++i) y.store_f64(i, gelu(inputs[0].load_f64(i), tanh_form));
      return Tensors{y};
    }
    if (node.opcode == "pow") {
      ops::Extents out = broadcast_extents(inputs[0].shape(), inputs[1].shape());
      Shape shape;
      for (auto x : out) shape.push_back(Dim::fixed(x));
      Tensors b;
      for (const auto& in : inputs) {
        auto r = ops::evaluate("broadcast_to", std::span<const ops::HostTensor>(&in, 1), {{"shape", shape}}, diags_, eo);
        if (!r) return std::nullopt;
        b.push_back((*r)[0]);
      }
      for (std::uint64_t i = 0; i < b[0].numel(); ++i) b[0].store_f64(i, std::pow(b[0].load_f64(i), b[1].load_f64(i)));
      return Tensors{b[0]};
    }
    if (has_decomposition(node.opcode)) return decomposed(*def, node, declared, inputs, depth);
    diags_.error("D0010", "op `" + node.opcode + "` has no binary64 reference path");
    return std::nullopt;
  }

  std::optional<Tensors> decomposed(const ops::OpDef& def, const Node& node, const std::vector<TensorType>& declared,
                                    const Tensors& inputs, int depth) {
    std::vector<std::string> errors;
    auto typed = ops::infer_types(def, declared, node.attrs, errors);
    if (!typed) {
      diags_.error("D0010", "`" + node.opcode + "` does not type-check: " + (errors.empty() ? "" : errors[0]));
      return std::nullopt;
    }
    Graph tg;
    Emitter e(tg);
    std::vector<ValueRef> params;
    for (std::size_t i = 0; i < declared.size(); ++i)
      params.push_back(e.builder().param("x" + std::to_string(i), static_cast<std::int64_t>(i), declared[i]));
    auto outs = decompose(e, node.opcode, params, typed->attrs, DecomposeFor::f64_reference);
    if (!outs) {
      diags_.error("D0010", "`" + node.opcode + "` " + e.error() + " (no binary64 reference path)");
      return std::nullopt;
    }
    RegionId r = e.builder().region(node.opcode + ".f64", params, *outs);
    return run(tg, r, inputs, depth + 1);
  }

  DiagnosticSink& diags_;
};

}  // namespace

ops::HostTensor widen(const ops::HostTensor& t) {
  if (!is_float(t.dtype()) || t.dtype() == DType::f64) return t;
  ops::HostTensor out(DType::f64, t.shape());
  for (std::uint64_t i = 0; i < t.numel(); ++i) out.store_f64(i, t.load_f64(i));
  return out;
}

std::optional<std::vector<ops::HostTensor>> run_region_f64(const Graph& g, RegionId region,
                                                           std::span<const ops::HostTensor> args, DiagnosticSink& diags) {
  ensure_gradient_rules();
  return F64Evaluator(diags).run(g, region, args, 0);
}

}  // namespace rung::autodiff
