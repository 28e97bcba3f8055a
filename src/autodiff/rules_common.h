// Shared by the rule files: registering a rule against an op name.
#pragma once

#include "autodiff/gradient_rule.h"

namespace rung::autodiff {
// Registers `fn` as the gradient of `op`. The op must exist (RUNG_CHECK).
void define_rule(std::string_view op, GradFn fn);
using Grads = std::vector<std::optional<ValueRef>>;
}  // namespace rung::autodiff
