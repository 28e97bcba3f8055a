#include "conformance/case_gen.h"

#include "base/diagnostic.h"
#include "conformance/op_constraints.h"
#include "ops/evaluate.h"
#include "ops/typing.h"

namespace rung::conformance {
namespace {

// Value styles cycle with the case index: plain values first, then sparse specials, dense
// specials, and a wide exponent range (overflow, underflow, subnormal results).
ValueStyle style_for(std::size_t index) {
  switch (index % 4) {
    case 0: return {0, -3, 3};
    case 1: return {50, -6, 6};
    case 2: return {300, -3, 3};
    default: return {20, -40, 40};
  }
}

std::optional<DType> operand_dtype(const ops::OperandSpec& spec, const std::map<std::string, DType>& bindings) {
  auto it = bindings.find(spec.type);
  if (it != bindings.end()) return it->second;
  return dtype_from_name(spec.type);
}

// All dtypes in `set` in code order.
std::vector<DType> members(ops::DTypeSet set) {
  std::vector<DType> out;
  for (std::uint8_t code = 1; code <= kDTypeMaxCode; ++code)
    if (auto t = dtype_from_code(code); t && set.contains(*t)) out.push_back(*t);
  return out;
}

}  // namespace

std::string Case::describe() const {
  std::string s;
  for (const auto& t : inputs) s += (s.empty() ? "" : ", ") + t.type().to_string();
  if (!attrs.empty()) s += (s.empty() ? "{" : " {") + attrs_to_string(attrs) + "}";
  return s.empty() ? "()" : s;
}

std::optional<Case> generate_case(const ops::OpDef& op, const CaseRequest& req, std::string& why) {
  std::string label = op.name + "/" + (req.dtype ? std::string(dtype_name(*req.dtype)) : "-");
  Rng rng = Rng::derive(req.seed, label, req.index);
  why = "no draw was attempted";
  for (int attempt = 0; attempt < req.attempts; ++attempt) {
    DrawContext c{op, rng, {}, req.max_elems};
    for (std::size_t v = 0; v < op.type_vars.size(); ++v) {
      if (v == 0 && req.dtype) {
        c.bindings[op.type_vars[0].name] = *req.dtype;
        continue;
      }
      c.bindings[op.type_vars[v].name] = rng.pick(members(op.type_vars[v].allowed));
    }
    const OpConstraint* entry = find_constraint(op.name);
    std::optional<Draw> draw = entry ? entry->draw(c) : generic_draw(c);
    if (!draw) {
      why = "the op's drawer found no shapes within the size budget";
      continue;
    }
    // Operand types, then the op's own type check (the shape rule decides).
    std::vector<TensorType> types;
    std::vector<DType> dtypes;
    bool fits = true;
    for (std::size_t i = 0; i < draw->shapes.size() && fits; ++i) {
      if (op.operands.empty()) { fits = false; break; }
      const auto& spec = op.operands[std::min(i, op.operands.size() - 1)];
      auto dt = operand_dtype(spec, c.bindings);
      if (!dt || !ops::HostTensor::checked_bytes(*dt, draw->shapes[i])) { fits = false; break; }
      dtypes.push_back(*dt);
      Shape s;
      for (auto d : draw->shapes[i]) s.push_back(Dim::fixed(d));
      types.push_back({*dt, s});
    }
    if (!fits) {
      why = "operand shapes do not suit their dtypes (block formats need multiples of 32)";
      continue;
    }
    std::vector<std::string> errors;
    if (!ops::infer_types(op, types, draw->attrs, errors)) {
      why = "the shape rule rejected every draw; last: " + (errors.empty() ? std::string("?") : errors.front());
      continue;
    }
    Case k;
    k.index = req.index;
    k.attrs = draw->attrs;
    ValueStyle style = style_for(req.index);
    for (std::size_t i = 0; i < types.size(); ++i) {
      auto fixed = draw->fixed.find(i);
      if (fixed != draw->fixed.end()) {
        k.inputs.push_back(fixed->second);
        continue;
      }
      ops::HostTensor t(dtypes[i], draw->shapes[i]);
      auto rule = draw->values.count(i) ? draw->values.at(i) : ValueRule{};
      switch (rule.kind) {
        case ValueRule::Kind::indices: fill_indices(t, rng, rule.bound); break;
        case ValueRule::Kind::qblocks: fill_qblocks(t, rng); break;
        case ValueRule::Kind::finite: {
          ValueStyle s = style;
          s.finite_only = true;
          s.exp_lo = std::max(s.exp_lo, -10);
          s.exp_hi = std::min(s.exp_hi, 10);
          fill_general(t, rng, s);
          break;
        }
        case ValueRule::Kind::non_negative: {
          ValueStyle s = style;
          s.non_negative = true;
          fill_general(t, rng, s);
          break;
        }
        default:
          if (dtype_info(t.dtype()).is_quantized) fill_qblocks(t, rng);
          else fill_general(t, rng, style);
      }
      k.inputs.push_back(std::move(t));
    }
    DiagnosticSink diags;
    ops::EvalOptions eo;
    eo.tier = req.tier;
    auto ref = ops::evaluate(op, k.inputs, k.attrs, diags, eo);
    if (!ref) {
      why = "the reference refused every draw; last: " + (diags.all().empty() ? std::string("?") : diags.all().back().message);
      if (!diags.all().empty() && diags.all().back().code == "N0001") return std::nullopt;  // FP environment: retrying cannot help
      continue;
    }
    k.expected = std::move(*ref);
    return k;
  }
  return std::nullopt;
}

}  // namespace rung::conformance
