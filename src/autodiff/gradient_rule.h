// The gradient rule of one op, kept in the registry's slot (OpDef::gradient). A rule gets
// the forward node's inputs and outputs and the cotangents of its outputs, and returns one
// cotangent per input (nullopt for inputs that are not differentiable, such as integer
// indices). Rules are written with the Emitter, in terms of other registry ops, so the
// backward graph obeys the same numeric contract as the forward one.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "autodiff/emitter.h"
#include "ops/attrs.h"

namespace rung::autodiff {

struct GradArgs {
  const Node& node;
  const ops::Attrs& attrs;              // resolved (defaults filled in)
  std::span<const ValueRef> inputs;
  std::span<const ValueRef> outputs;
  std::span<const ValueRef> output_grads;  // one per output (zeros where nothing flowed)
};

using GradFn = std::function<std::vector<std::optional<ValueRef>>(Emitter&, const GradArgs&)>;

void register_elementwise_rules();
void register_linalg_rules();
void register_reduce_rules();
void register_nn_rules();
// All of the above, once (thread-safe).
void ensure_gradient_rules();

}  // namespace rung::autodiff

namespace rung::ops {
class GradientRule {
 public:
  explicit GradientRule(autodiff::GradFn f) : fn(std::move(f)) {}
  autodiff::GradFn fn;
};
}  // namespace rung::ops
