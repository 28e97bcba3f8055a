// The op registry as the public API shows it (rung::graph::ops), the caller's attribute
// values checked kind by kind against a declaration, and one op on concrete tensors.
#include <algorithm>
#include <cmath>

#include "api/graph_impl.h"
#include "api/impl.h"
#include "base/text.h"
#include "ops/evaluate.h"
#include "ops/registry.h"

namespace rung::graph {
namespace detail {
namespace {

AttrKind public_kind(rung::AttrKind k) {
  switch (k) {
    case rung::AttrKind::boolean: return AttrKind::boolean;
    case rung::AttrKind::integer: return AttrKind::integer;
    case rung::AttrKind::real: return AttrKind::real;
    case rung::AttrKind::string: return AttrKind::string;
    case rung::AttrKind::integers: return AttrKind::integers;
    case rung::AttrKind::reals: return AttrKind::reals;
    case rung::AttrKind::dtype: return AttrKind::dtype;
    case rung::AttrKind::shape: return AttrKind::shape;
    default: return AttrKind::other;
  }
}

// What a given value is, for messages: "a float", "a list of ints".
std::string what(const Attr& a) {
  switch (a.index()) {
    case 0: return "a bool";
    case 1: return "an int";
    case 2: return "a float";
    case 3: return "a string";
    case 4: return "a list of ints";
    case 5: return "a list of floats";
    case 6: return "a dtype";
    default: return "a shape";
  }
}

// The dim text of a shape attribute: an extent or a symbol.
std::optional<Dim> parse_dim(const std::string& d) {
  if (d.empty()) return std::nullopt;
  if (std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    if (d.size() > 18) return std::nullopt;
    return Dim::fixed(std::stoull(d));
  }
  auto ident = [](char c, bool first) {
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (!first && c >= '0' && c <= '9');
  };
  for (std::size_t i = 0; i < d.size(); ++i)
    if (!ident(d[i], i == 0)) return std::nullopt;
  return Dim::symbol(d);
}

// One value against its declared kind; nullopt when the kinds differ (beyond the exact
// widenings: int -> real, ints -> reals, ints -> shape, a dtype's name -> dtype).
std::optional<AttrValue> convert(rung::AttrKind kind, const Attr& a) {
  switch (kind) {
    case rung::AttrKind::boolean:
      if (auto* b = std::get_if<bool>(&a)) return AttrValue(*b);
      return std::nullopt;
    case rung::AttrKind::integer:
      if (auto* i = std::get_if<std::int64_t>(&a)) return AttrValue(*i);
      return std::nullopt;
    case rung::AttrKind::real:
      if (auto* d = std::get_if<double>(&a)) return AttrValue(*d);
      if (auto* i = std::get_if<std::int64_t>(&a)) return AttrValue(static_cast<double>(*i));  // nearest, as the language
      return std::nullopt;
    case rung::AttrKind::string:
      if (auto* s = std::get_if<std::string>(&a)) return AttrValue(*s);
      return std::nullopt;
    case rung::AttrKind::integers:
      if (auto* v = std::get_if<std::vector<std::int64_t>>(&a)) return AttrValue(*v);
      return std::nullopt;
    case rung::AttrKind::reals:
      if (auto* v = std::get_if<std::vector<double>>(&a)) return AttrValue(*v);
      if (auto* v = std::get_if<std::vector<std::int64_t>>(&a)) return AttrValue(std::vector<double>(v->begin(), v->end()));
      return std::nullopt;
    case rung::AttrKind::dtype:
      if (auto* t = std::get_if<DType>(&a)) return AttrValue(*t);
      if (auto* s = std::get_if<std::string>(&a))
        if (auto t = dtype_from_name(*s)) return AttrValue(*t);
      return std::nullopt;
    case rung::AttrKind::shape: {
      Shape shape;
      if (auto* v = std::get_if<std::vector<std::int64_t>>(&a)) {
        for (auto x : *v) {
          if (x < 0) return std::nullopt;
          shape.push_back(Dim::fixed(static_cast<std::uint64_t>(x)));
        }
        return AttrValue(std::move(shape));
      }
      if (auto* v = std::get_if<Dims>(&a)) {
        for (const auto& d : *v) {
          auto dim = parse_dim(d);
          if (!dim) return std::nullopt;
          shape.push_back(*dim);
        }
        return AttrValue(std::move(shape));
      }
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

std::vector<OpInfo> build_catalog() {
  std::vector<OpInfo> out;
  for (const ops::OpDef* op : ops::op_registry().all()) {
    OpInfo info;
    info.name = op->name;
    info.family = op->family;
    info.summary = op->summary;
    info.signature = op->signature();
    for (const auto& o : op->operands)
      info.operands.push_back({o.name, o.type,
                               o.arity == ops::Arity::one        ? Arity::one
                               : o.arity == ops::Arity::optional ? Arity::optional
                                                                 : Arity::variadic});
    for (const auto& r : op->results) info.results.push_back(r.name);
    for (const auto& a : op->attrs) {
      AttrInfo ai;
      ai.name = a.name;
      ai.kind = public_kind(a.kind);
      ai.kind_name = std::string(attr_kind_name(a.kind));
      ai.required = a.presence == ops::AttrPresence::required;
      if (a.default_value) ai.default_value = public_attr(*a.default_value);
      ai.choices = a.choices;
      ai.doc = a.doc;
      ai.text = a.to_string();
      info.attrs.push_back(std::move(ai));
    }
    info.tolerance_debug = std::string(ops::tol_class_name(op->tolerance.debug));
    info.tolerance_prod = std::string(ops::tol_class_name(op->tolerance.prod));
    info.tolerance_fast = std::string(ops::tol_class_name(op->tolerance.fast));
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace

std::optional<Attr> public_attr(const AttrValue& v) {
  switch (v.kind()) {
    case rung::AttrKind::boolean: return v.as<bool>();
    case rung::AttrKind::integer: return v.as<std::int64_t>();
    case rung::AttrKind::real: return v.as<double>();
    case rung::AttrKind::string: return v.as<std::string>();
    case rung::AttrKind::integers: return v.as<std::vector<std::int64_t>>();
    case rung::AttrKind::reals: return v.as<std::vector<double>>();
    case rung::AttrKind::dtype: return v.as<DType>();
    case rung::AttrKind::shape: {
      Dims dims;
      for (const auto& d : v.as<Shape>()) dims.push_back(d.to_string());
      return dims;
    }
    default: return std::nullopt;
  }
}

std::optional<AttrMap> attr_map(const ops::OpDef& op, const Attrs& given, std::vector<std::string>& errors) {
  AttrMap out;
  std::size_t before = errors.size();
  for (const auto& [name, value] : given) {
    const ops::AttrSpec* spec = nullptr;
    for (const auto& a : op.attrs)
      if (a.name == name) spec = &a;
    if (!spec) {
      std::string msg = "`" + op.name + "` has no attribute `" + name + "`";
      std::string near;
      std::size_t best = 3;
      for (const auto& a : op.attrs)
        if (auto d = edit_distance(name, a.name, 2); d < best) best = d, near = a.name;
      if (!near.empty()) msg += " (did you mean `" + near + "`?)";
      std::string known;
      for (const auto& a : op.attrs) known += (known.empty() ? "" : ", ") + a.to_string();
      errors.push_back(msg + "; " + (known.empty() ? "it takes no attributes" : "its attributes: " + known));
      continue;
    }
    auto v = convert(spec->kind, value);
    if (!v) {
      errors.push_back("attribute `" + name + "` of `" + op.name + "` is declared `" + spec->to_string() + "`, given " +
                       what(value) + (spec->kind == rung::AttrKind::integer && value.index() == 2
                                          ? " (kinds are strict: write an int)"
                                          : ""));
      continue;
    }
    out.insert_or_assign(name, std::move(*v));
  }
  if (errors.size() != before) return std::nullopt;
  return out;
}

Diagnostics unknown_op(std::string_view name) {
  std::vector<std::pair<std::size_t, std::string>> near;
  for (const ops::OpDef* op : ops::op_registry().all())
    if (auto d = edit_distance(name, op->name, 3); d <= 3) near.push_back({d, op->name});
  std::sort(near.begin(), near.end());
  std::vector<std::string> notes;
  if (!near.empty()) {
    std::string list;
    for (std::size_t i = 0; i < near.size() && i < 3; ++i) list += (i ? ", " : "") + ("`" + near[i].second + "`");
    notes.push_back("did you mean " + list + "?");
  }
  notes.push_back("rung.ops lists the registry's " + std::to_string(ops::op_registry().size()) + " ops (`rung ops` too)");
  return Diagnostics::error("N0010", "unknown op `" + std::string(name) + "`", std::move(notes));
}

}  // namespace detail

const std::vector<OpInfo>& ops() {
  static const std::vector<OpInfo> catalog = detail::build_catalog();
  return catalog;
}

const OpInfo* find_op(std::string_view name) {
  const auto& all = ops();
  auto it = std::lower_bound(all.begin(), all.end(), name, [](const OpInfo& o, std::string_view n) { return o.name < n; });
  return it != all.end() && it->name == name ? &*it : nullptr;
}

Result<std::vector<Tensor>> evaluate(std::string_view op_name, std::span<const Tensor> operands, const Attrs& attrs) {
  const ops::OpDef* op = ops::op_registry().find(op_name);
  if (!op) return detail::unknown_op(op_name);
  std::vector<std::string> errors;
  auto map = detail::attr_map(*op, attrs, errors);
  if (!map) return Diagnostics::error("N0011", "the attributes do not fit `" + op->name + "`", std::move(errors));
  std::vector<ops::HostTensor> inputs;
  inputs.reserve(operands.size());
  for (const Tensor& t : operands) inputs.push_back(api::host_of(t).share());
  DiagnosticSink diags;
  auto outs = ops::evaluate(*op, inputs, *map, diags);
  SourceMap none;
  if (!outs) return api::diagnostics_of(diags, none);
  std::vector<Tensor> result;
  for (auto& t : *outs) result.push_back(api::wrap(std::move(t)));
  return Result<std::vector<Tensor>>(std::move(result), api::diagnostics_of(diags, none));
}

}  // namespace rung::graph
