// The gradient rule of one op, kept in the registry's slot (OpDef::gradient). A rule gets
// the forward node's inputs and outputs and the cotangents of its outputs, and returns one
// cotangent per input (nullopt for inputs that are not differentiable, such as integer
// indices). Rules are written with the Emitter, in terms of other registry ops, so the
// backward graph obeys the same numeric contract as the forward one.
//
// An op that has no derivative (comparisons, integer and random sources, optimizer steps)
// is declared so explicitly with declare_not_differentiable: the slot then holds a rule
// whose `not_differentiable` reason is set, and ops_without_gradient() stays honest.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
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
  const std::vector<bool>& wanted;         // per input: does a requested parameter reach it?
};

using GradFn = std::function<std::vector<std::optional<ValueRef>>(Emitter&, const GradArgs&)>;

void register_elementwise_rules();
void register_linalg_rules();
void register_reduce_rules();
void register_nn_rules();
void register_conv_rules();
void register_shape_rules();
void register_non_differentiable();
// All of the above, once (thread-safe).
void ensure_gradient_rules();

}  // namespace rung::autodiff

namespace rung::ops {
class GradientRule {
 public:
  explicit GradientRule(autodiff::GradFn f) : fn(std::move(f)) {}
  GradientRule(std::string reason, bool) : not_differentiable(std::move(reason)) {}
  autodiff::GradFn fn;
  std::string not_differentiable;  // non-empty: the op is declared to have no derivative
  bool differentiable() const { return not_differentiable.empty(); }
};
}  // namespace rung::ops
