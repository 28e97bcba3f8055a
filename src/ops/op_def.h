// One op, declared once: name, stable id, typed operands and results, attributes, shape
// rule, reference kernel (the oracle every backend is judged against), tolerance class per
// tier, and the slot for its gradient rule. Family files (family_*.cpp) build these with
// the fluent setters below and hand them to OpRegistry::add; docs/ops-registry.md shows how.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "ops/attrs.h"
#include "ops/dtype_set.h"
#include "ops/host_tensor.h"
#include "ops/tier.h"

namespace rung::ops {

// Stable numeric identity of an op: backends key their kernels on it and conformance
// receipts record it. Ranges per family are listed in docs/ops-registry.md; never reuse.
struct OpId {
  std::uint16_t value = 0;
  auto operator<=>(const OpId&) const = default;
};

// A type variable ranges over a set of dtypes; operands and results that name the same
// variable must have the same dtype.
struct TypeVar {
  std::string name;
  DTypeSet allowed;
};

enum class Arity : std::uint8_t {
  one,       // exactly one tensor
  optional,  // zero or one; only trailing operands may be optional
  variadic,  // one or more; only the last operand may be variadic
};

struct OperandSpec {
  std::string name;
  std::string type;  // a type variable's name, or a dtype name ("bool", "i64")
  Arity arity = Arity::one;
};

// Where a result's dtype comes from: a type variable, a fixed dtype, or a dtype attribute.
struct ResultSpec {
  std::string name;
  std::string type;  // "T" | "bool" | "attr:to"
};

// What shape rules see. `inputs` holds the operands present (absent optional operands are
// simply missing at the end); attributes are resolved (defaults filled in).
struct ShapeArgs {
  std::span<const TensorType> inputs;
  const Attrs& attrs;
};

// A shape rule returns one shape per result, or an error message that names the operand
// and dimension at fault. Dims may be symbolic: rules must propagate symbols, never guess.
struct ShapeResult {
  std::vector<Shape> shapes;
  std::string error;
  static ShapeResult ok(std::vector<Shape> s) { return {std::move(s), {}}; }
  static ShapeResult fail(std::string msg) { return {{}, std::move(msg)}; }
};
using ShapeRule = std::function<ShapeResult(const ShapeArgs&)>;

// What a reference kernel sees. Outputs arrive allocated (zero-filled) with the types the
// shape rule inferred. A kernel that meets data it cannot process (an index out of range,
// say) calls fail(); the evaluator turns that into a diagnostic.
struct KernelContext {
  std::span<const HostTensor> inputs;
  std::span<HostTensor> outputs;
  const Attrs& attrs;
  std::string error;

  bool has_input(std::size_t i) const { return i < inputs.size(); }
  void fail(std::string msg) { if (error.empty()) error = std::move(msg); }
};
using ReferenceKernel = std::function<void(KernelContext&)>;

// Filled by the autodiff layer; the registry only keeps the slot.
class GradientRule;

struct OpDef {
  std::string name;
  OpId id;
  std::string summary;  // one line, shown by `rung ops`
  std::string family;   // set by the registry from the family being registered
  std::vector<TypeVar> type_vars;
  std::vector<OperandSpec> operands;
  std::vector<ResultSpec> results;
  std::vector<AttrSpec> attrs;
  ShapeRule shape_rule;
  ReferenceKernel reference;
  TolerancePerTier tolerance;
  const GradientRule* gradient = nullptr;

  OpDef(std::string op_name, std::uint16_t op_id) : name(std::move(op_name)), id{op_id} {}

  OpDef& doc(std::string s) { summary = std::move(s); return *this; }
  OpDef& type_var(std::string var, DTypeSet allowed) { type_vars.push_back({std::move(var), allowed}); return *this; }
  OpDef& input(std::string n, std::string type, Arity a = Arity::one) {
    operands.push_back({std::move(n), std::move(type), a});
    return *this;
  }
  OpDef& output(std::string n, std::string type) { results.push_back({std::move(n), std::move(type)}); return *this; }
  OpDef& attr(std::string n, AttrKind kind, std::string attr_doc) {  // required
    attrs.push_back({std::move(n), kind, AttrPresence::required, std::nullopt, {}, std::move(attr_doc)});
    return *this;
  }
  OpDef& attr(std::string n, AttrValue dflt, std::string attr_doc) {  // with a default (its kind)
    AttrKind k = dflt.kind();
    attrs.push_back({std::move(n), k, AttrPresence::defaulted, std::move(dflt), {}, std::move(attr_doc)});
    return *this;
  }
  OpDef& optional_attr(std::string n, AttrKind kind, std::string attr_doc) {
    attrs.push_back({std::move(n), kind, AttrPresence::optional, std::nullopt, {}, std::move(attr_doc)});
    return *this;
  }
  OpDef& choice_attr(std::string n, std::vector<std::string> choices, std::string dflt, std::string attr_doc) {
    attrs.push_back({std::move(n), AttrKind::string, AttrPresence::defaulted, AttrValue(std::move(dflt)),
                     std::move(choices), std::move(attr_doc)});
    return *this;
  }
  OpDef& shape(ShapeRule r) { shape_rule = std::move(r); return *this; }
  OpDef& kernel(ReferenceKernel k) { reference = std::move(k); return *this; }
  OpDef& tolerance_classes(TolClass debug, TolClass prod, TolClass fast) { tolerance = {debug, prod, fast}; return *this; }

  // "add(a: T, b: T) -> (y: T) where T: f32|f16|bf16|f64|i8|..."
  std::string signature() const;
  const TypeVar* find_type_var(std::string_view var) const;
};

}  // namespace rung::ops
