// Shared by the rule files: registering a rule (or a declaration that an op has no
// derivative) against an op name, and rules that differentiate a decomposition.
#pragma once

#include "autodiff/gradient_rule.h"

namespace rung::autodiff {
// Registers `fn` as the gradient of `op`. The op must exist (RUNG_CHECK).
void define_rule(std::string_view op, GradFn fn);
// Declares that `op` has no derivative, with the reason shown by `rung ops`-style reports.
void declare_not_differentiable(std::string_view op, std::string reason);
using Grads = std::vector<std::optional<ValueRef>>;

// A rule that emits decompose(op) (autodiff/decompose.h) on the node's inputs and
// back-propagates through it with the ordinary rules of the ops it is made of.
GradFn rule_by_decomposition();
}  // namespace rung::autodiff
