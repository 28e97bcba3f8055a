// Type checking and inference for one op application: operand count and dtypes against the
// declaration (type variables bind consistently), attributes resolved, then the shape rule.
// The validator (signatures.h), the evaluator and the front end's type inference all go
// through this one function, so they cannot disagree.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ops/op_def.h"

namespace rung::ops {

struct Typed {
  Attrs attrs;                       // resolved, defaults filled in
  std::vector<TensorType> results;   // inferred result types
};

// On failure returns nullopt and appends messages (each names the operand or attribute).
std::optional<Typed> infer_types(const OpDef& op, std::span<const TensorType> inputs, const AttrMap& attrs,
                                 std::vector<std::string>& errors);

}  // namespace rung::ops
