#include "ops/op_def.h"

namespace rung::ops {

const TypeVar* OpDef::find_type_var(std::string_view var) const {
  for (const auto& tv : type_vars)
    if (tv.name == var) return &tv;
  return nullptr;
}

std::string OpDef::signature() const {
  std::string s = name + "(";
  for (std::size_t i = 0; i < operands.size(); ++i) {
    const auto& o = operands[i];
    s += (i ? ", " : "") + o.name + ": " + o.type;
    if (o.arity == Arity::optional) s += "?";
    if (o.arity == Arity::variadic) s += "...";
  }
  for (const auto& a : attrs) s += ", " + a.to_string();
  s += ") -> ";
  if (results.size() > 1) s += "(";
  for (std::size_t i = 0; i < results.size(); ++i) s += (i ? ", " : "") + results[i].name + ": " + results[i].type;
  if (results.size() > 1) s += ")";
  if (!type_vars.empty()) {
    s += " where ";
    for (std::size_t i = 0; i < type_vars.size(); ++i)
      s += (i ? "; " : "") + type_vars[i].name + ": " + type_vars[i].allowed.to_string();
  }
  return s;
}

}  // namespace rung::ops
