#include "ops/typing.h"

#include <map>

namespace rung::ops {

namespace {

// The operand spec that input `i` binds to (variadic operands absorb the tail).
const OperandSpec* spec_for(const OpDef& op, std::size_t i) {
  if (i < op.operands.size()) return &op.operands[i];
  if (!op.operands.empty() && op.operands.back().arity == Arity::variadic) return &op.operands.back();
  return nullptr;
}

bool check_count(const OpDef& op, std::size_t n, std::vector<std::string>& errors) {
  std::size_t min = 0, max = op.operands.size();
  bool variadic = false;
  for (const auto& o : op.operands) {
    if (o.arity != Arity::optional) ++min;
    variadic = variadic || o.arity == Arity::variadic;
  }
  if (n >= min && (variadic || n <= max)) return true;
  std::string want = variadic ? "at least " + std::to_string(min)
                     : min == max ? std::to_string(min)
                                  : std::to_string(min) + " to " + std::to_string(max);
  errors.push_back("`" + op.name + "` takes " + want + " operand" + (want == "1" ? "" : "s") + ", got " +
                   std::to_string(n) + " (signature " + op.signature() + ")");
  return false;
}

}  // namespace

std::optional<Typed> infer_types(const OpDef& op, std::span<const TensorType> inputs, const AttrMap& attrs,
                                 std::vector<std::string>& errors) {
  std::size_t before = errors.size();
  if (!check_count(op, inputs.size(), errors)) return std::nullopt;

  std::map<std::string, DType> bound;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const OperandSpec& s = *spec_for(op, i);
    DType got = inputs[i].dtype;
    std::string who = "operand " + std::to_string(i) + " `" + s.name + "`";
    if (const TypeVar* tv = op.find_type_var(s.type)) {
      if (!tv->allowed.contains(got)) {
        errors.push_back(who + " has dtype " + std::string(dtype_name(got)) + "; `" + op.name + "` accepts " +
                         tv->allowed.to_string());
        continue;
      }
      auto [it, fresh] = bound.emplace(s.type, got);
      if (!fresh && it->second != got)
        errors.push_back(who + " has dtype " + std::string(dtype_name(got)) + " but " + s.type + " is already " +
                         std::string(dtype_name(it->second)) + " from an earlier operand");
    } else if (dtype_from_name(s.type) != got) {
      errors.push_back(who + " must be " + s.type + ", not " + std::string(dtype_name(got)));
    }
  }
  auto resolved = resolve_attrs(op.attrs, attrs, errors);
  if (errors.size() != before || !resolved) return std::nullopt;

  Typed t{Attrs(std::move(*resolved)), {}};
  ShapeResult sr = op.shape_rule(ShapeArgs{inputs, t.attrs});
  if (!sr.error.empty()) {
    errors.push_back(sr.error);
    return std::nullopt;
  }
  if (sr.shapes.size() != op.results.size()) {
    errors.push_back("internal: the shape rule of `" + op.name + "` returned the wrong number of shapes");
    return std::nullopt;
  }
  MemSpace space = inputs.empty() ? MemSpace::host : inputs[0].space;
  for (std::size_t r = 0; r < op.results.size(); ++r) {
    const std::string& ty = op.results[r].type;
    DType dt;
    if (ty.rfind("attr:", 0) == 0) dt = t.attrs.dtype(ty.substr(5));
    else if (auto it = bound.find(ty); it != bound.end()) dt = it->second;
    else if (auto fixed = dtype_from_name(ty)) dt = *fixed;
    else {
      // A type variable bound by no operand (all operands absent): the op must say how.
      errors.push_back("cannot infer the dtype of result `" + op.results[r].name + "`");
      return std::nullopt;
    }
    t.results.push_back(TensorType{dt, std::move(sr.shapes[r]), space});
  }
  return t;
}

}  // namespace rung::ops
